import SentioBacktest
import SentioCore
import SentioSignals

extension SweepRunner {
    /// Runs `base`, any strategy of `registry` (a program's own included), with every combination of `grid`, whose
    /// parameter names are the spec's setting keys (`donchian.entry=10,20,30;donchian.exit=5,10`): one row per
    /// combination, in grid order, each the statistics of `Backtest.run` of the strategy `registry` builds from
    /// the combination's spec, on `threads` workers.
    ///
    /// The CLI's `sentio sweep` varies the built-in strategies' options by their option names through
    /// ``SweepRequestBuilder``; this is the same sweep for a strategy the CLI does not know.
    ///
    /// - Throws: `BacktestError` for a grid name that is not one of the spec's setting keys;
    ///   ``SweepCombinationError`` (naming the combination) for the first combination, by index, that the registry
    ///   refuses or whose backtest fails.
    public func run(
        strategy base: StrategySpec, grid: SweepGrid, configuration: BacktestConfiguration, on market: Market,
        registry: StrategyRegistry = .shared, signalModel: SignalModelConfig = SignalModelConfig(),
        benchmark: SweepBenchmarkChoice = .none
    ) throws -> [SweepRow] {
        let keys = base.settings.map(\.key)
        for name in grid.names where !keys.contains(name) {
            throw BacktestError("\(name) is not a setting of strategy \(base.name); its settings: "
                + (keys.isEmpty ? "none" : keys.joined(separator: ", ")))
        }
        let counter = ProgressCounter(total: grid.count, report: progress)
        let results = parallelMap(grid.count, threads: threads) { i -> Result<SweepRow, any Error> in
            defer { counter.step() }
            let parameters = grid.combination(i)
            var spec = base
            for (name, value) in parameters.values {
                spec.settings[spec.settings.firstIndex { $0.key == name }!].value = value
            }
            return Result {
                do {
                    let strategy = try registry.make(spec, signalModel: signalModel)
                    let result = try Backtest(configuration).run(strategy, on: market)
                    return SweepRow(index: i, parameters: parameters, statistics: try SweepStatistics(result, benchmark: benchmark))
                } catch {
                    throw SweepCombinationError.wrap(error, index: i, parameters: parameters)
                }
            }
        }
        return try results.map { try $0.get() }
    }
}
