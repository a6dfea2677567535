import SentioBacktest
import SentioCore

/// A buy decision's levels, as distances in percent from the reference price (`nil`: none given).
public struct BuyLevels: Sendable, Equatable {
    public var stopLossPercent: Double?
    public var takeProfitPercent: Double?
    public init(stopLossPercent: Double?, takeProfitPercent: Double?) {
        self.stopLossPercent = stopLossPercent
        self.takeProfitPercent = takeProfitPercent
    }
}

/// Buy levels per symbol index, then per decision bar.
public typealias RecordedBuyLevels = [Int: [Int: BuyLevels]]

/// Wraps a strategy and records the stop-loss and take-profit distances of each of its buy decisions, so
/// that a report can draw the levels of closed trades (the simulator keeps levels only while a position
/// is open). Everything else is forwarded unchanged: the run's results are those of the wrapped strategy.
/// Recording inserts into a dictionary on each buy decision (an allocation the `Strategy` contract otherwise
/// avoids), so wrap only runs that produce a report, not benchmarks.
public struct LevelRecordingStrategy<Base: Strategy>: Strategy {
    public var base: Base
    /// Per symbol index, the levels of each buy decision keyed by the decision bar.
    public private(set) var buyLevels: RecordedBuyLevels = [:]

    public init(_ base: Base) { self.base = base }

    public var name: String { base.name }
    public var settings: [(key: String, value: String)] { base.settings }

    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        buyLevels = [:]
        return try base.prepare(market: market)
    }

    public mutating func start(symbols: [String]) throws {
        buyLevels = [:]
        try base.start(symbols: symbols)
    }

    public mutating func observe(symbol: Int, bar: Bar) { base.observe(symbol: symbol, bar: bar) }
    public func savedState() -> StrategyState? { base.savedState() }
    public mutating func restore(_ state: StrategyState) throws { try base.restore(state) }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        let decision = base.decide(context)
        if case .buy(let stop, let target) = decision {
            buyLevels[context.symbol, default: [:]][context.bar] = BuyLevels(stopLossPercent: stop, takeProfitPercent: target)
        }
        return decision
    }
}

extension BacktestReportContent {
    /// The report content of a backtest run.
    ///
    /// - The benchmark is the equal-weight buy-and-hold of the same symbols (`equalWeightBuyAndHold`), with
    ///   the run's initial capital (none for a run that starts without capital, such as DCA).
    /// - Period returns are SentioBacktest's `periodReturns` (net of deposits), aligned to the timeline with
    ///   0 for the first step, so the drawdown chart's deepest point is `maxDrawdownPercent`.
    /// - Stop and target levels: the position's own for open positions; for closed trades the buy decision's
    ///   distances from `buyLevels` (see `LevelRecordingStrategy`) or else the configuration's, measured
    ///   from the reference price the simulator uses (`StopReference`).
    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - statistics: its statistics.
    ///   - market: the bars it ran on (for the price charts and the default benchmark).
    ///   - buyLevels: the stop and target distances of each buy decision (see `LevelRecordingStrategy`).
    ///   - title: the page title (default `Backtest: STRATEGY`).
    ///   - benchmark: the benchmark drawn against the equity, scaled to the initial capital at its first bar on
    ///     the timeline (`nil`: equal-weight buy-and-hold of the market).
    ///   - benchmarkStatistics: alpha, beta, … shown as cards (`nil`: none).
    ///   - warnings: signs of a degenerate run, listed at the top.
    ///   - warmUpBars: bars each symbol needs before the strategy can decide (RSI period, the signal model's first
    ///     signal index); the span until the first symbol is ready is shaded and labelled. 0: none.
    public init(
        result: BacktestResult, statistics: BacktestStatistics, market: Market,
        buyLevels: RecordedBuyLevels = [:], title: String? = nil, benchmark: BenchmarkSeries? = nil,
        benchmarkStatistics: BenchmarkStatistics? = nil, warnings: [BacktestWarning] = [], warmUpBars: Int = 0
    ) {
        let config = result.configuration
        let first = result.timestamps.first.map { CivilDate(epochSeconds: $0).description } ?? "—"
        let last = result.timestamps.last.map { CivilDate(epochSeconds: $0).description } ?? "—"
        let symbolsText = result.symbols.count <= 6
            ? result.symbols.joined(separator: ", ") : "\(result.symbols.count) symbols"
        var costs = "commission \(NumberText.fixed(config.costs.commissionRate * 100, decimals: 3, grouping: false))%"
        if config.costs.feePerOrder > 0 { costs += ", fee \(NumberText.fixed(config.costs.feePerOrder, decimals: 2)) per order" }
        if config.costs.slippageBasisPoints > 0 { costs += ", slippage \(NumberText.fixed(config.costs.slippageBasisPoints, decimals: 1)) bp" }
        let subtitle = "Strategy \(result.strategyName) on \(symbolsText), \(first) to \(last); \(config.fill.rawValue) fills, "
            + "\(config.sizing.name) sizing, \(costs)."

        let s = statistics
        func pct(_ v: Double) -> String { NumberText.percent(v) }
        func ratio(_ v: Double) -> String { NumberText.fixed(v, decimals: 2) }
        func money(_ v: Double) -> String { NumberText.fixed(v, decimals: 2) }
        var headline: [Statistic] = [
            Statistic(key: "finalEquity", label: "Final equity", value: s.finalEquity, format: money),
            Statistic(key: "totalReturnPercent", label: "Total return", value: s.totalReturnPercent, signed: true, format: pct),
            Statistic(key: "cagrPercent", label: "CAGR", value: s.cagrPercent, signed: true, format: pct),
            Statistic(key: "annualizedVolatilityPercent", label: "Volatility (ann.)", value: s.annualizedVolatilityPercent, format: pct),
            Statistic(key: "sharpeRatio", label: "Sharpe", value: s.sharpeRatio, format: ratio),
            Statistic(key: "sortinoRatio", label: "Sortino", value: s.sortinoRatio, format: ratio),
            Statistic(key: "calmarRatio", label: "Calmar", value: s.calmarRatio, format: ratio),
            Statistic(key: "maxDrawdownPercent", label: "Max drawdown", value: s.maxDrawdownPercent, signed: true, format: pct),
            Statistic(key: "tradeCount", label: "Closed trades", value: Double(s.tradeCount)) { NumberText.fixed($0, decimals: 0) },
            Statistic(key: "winRatePercent", label: "Win rate", value: s.winRatePercent, format: pct),
            Statistic(key: "profitFactor", label: "Profit factor", value: s.profitFactor, format: ratio),
            Statistic(key: "averageTradePercent", label: "Average trade", value: s.averageTradePercent, signed: true, format: pct),
            Statistic(key: "exposurePercent", label: "Exposure", value: s.exposurePercent, format: pct),
            Statistic(key: "commissionsPaid", label: "Commissions", value: s.commissionsPaid, format: money),
            Statistic(key: "sqn", label: "SQN", value: s.sqn, format: ratio),
        ]
        if s.totalContributions > 0 {
            headline.insert(Statistic(key: "totalContributions", label: "Deposits", value: s.totalContributions, format: money), at: 1)
            headline.append(Statistic(key: "moneyWeightedReturnPercent", label: "Money-weighted return", value: s.moneyWeightedReturnPercent, signed: true, format: pct))
        }
        if s.openPositionCount > 0 {
            headline.append(Statistic(key: "openPositionCount", label: "Open positions", value: Double(s.openPositionCount)) { NumberText.fixed($0, decimals: 0) })
        }
        let k = s.conventions
        let conventions = "Returns are per-bar, net of deposits; annualised with \(NumberText.fixed(k.periodsPerYear, decimals: 0)) periods a year "
            + "(\(k.periodsPerYearSource)), risk-free rate \(NumberText.fixed(k.riskFreeRate * 100, decimals: 2))%, standard deviations with ddof \(k.ddof). "
            + "Initial capital \(money(s.initialCapital))."

        // Returns aligned with the timeline: step 0 has none; later steps follow `periodReturns`, which skips
        // a step whose previous equity is not positive (nothing invested yet): 0 there.
        let computed = SentioBacktest.periodReturns(equity: result.equity, contributions: result.contributions)
        var aligned = [Double](repeating: 0, count: result.equity.count)
        var next = 0
        for t in result.equity.indices.dropFirst() where result.equity[t - 1] > 0 {
            aligned[t] = computed[next]
            next += 1
        }

        let benchmarkName = benchmark?.name ?? "Buy & hold (equal weight)"
        let benchmarkValues: [Double]?
        if config.initialCapital <= 0 {
            benchmarkValues = nil
        } else if let benchmark {
            benchmarkValues = onTimeline(benchmark, result.timestamps, scale: config.initialCapital)
        } else {
            benchmarkValues = equalWeightBuyAndHold(series: market.series, timeline: result.timestamps, initialCapital: config.initialCapital)
        }

        var invested: [Double]? = nil
        if result.totalContributions > 0 {
            var total = config.initialCapital
            invested = result.contributions.map { total += $0; return total }
        }

        var trades: [Trade] = []
        let filledBuys = result.orders.filter { $0.isFilled && $0.side == .buy }
        func levels(symbol: Int, entryStep: Int, entryPrice: Double) -> (stop: Double?, target: Double?) {
            guard let order = filledBuys.first(where: { $0.symbol == symbol && $0.resolvedStep == entryStep }) else { return (nil, nil) }
            let series = market.series[symbol]
            guard let decisionBar = barIndex(series.timestamps, at: market.timeline[order.decidedStep]) else { return (nil, nil) }
            let recorded = buyLevels[symbol]?[decisionBar]
            let stopPercent = recorded?.stopLossPercent ?? config.stopLossPercent
            let targetPercent = recorded?.takeProfitPercent ?? config.takeProfitPercent
            let reference = config.stopReference == .decisionClose ? series.close[decisionBar] : entryPrice
            return (stopPercent.map { reference * (1 - $0 / 100) }, targetPercent.map { reference * (1 + $0 / 100) })
        }
        for t in result.trades {
            let l = levels(symbol: t.symbolIndex, entryStep: t.entryStep, entryPrice: t.entryPrice)
            trades.append(Trade(symbol: t.symbol, entryTime: t.entryTime, entryPrice: t.entryPrice, exitTime: t.exitTime,
                                exitPrice: t.exitPrice, shares: t.shares, pnl: t.pnl, pnlPercent: t.pnlPercent,
                                exitReason: t.exitReason.rawValue, stopPrice: l.stop, targetPrice: l.target))
        }
        for p in result.openPositions {
            let cost = p.shares * p.entryPrice
            trades.append(Trade(symbol: p.symbol, entryTime: p.entryTime, entryPrice: p.entryPrice, exitTime: nil, exitPrice: nil,
                                shares: p.shares, pnl: p.unrealizedPnL, pnlPercent: cost > 0 ? 100 * p.unrealizedPnL / cost : 0,
                                exitReason: "open", stopPrice: p.stopPrice, targetPrice: p.targetPrice))
        }
        self.init(title: title ?? "Backtest: \(result.strategyName)", subtitle: subtitle, headline: headline, conventions: conventions,
                  times: result.timestamps, equity: result.equity, periodReturns: aligned,
                  benchmarkName: benchmarkName, benchmark: benchmarkValues, prices: market.series, trades: trades,
                  invested: invested)
        periodsPerYear = k.periodsPerYear
        self.warnings = warnings.map(\.message)
        if let b = benchmarkStatistics {
            benchmarkCards = [
                Statistic(key: "benchmark.totalReturnPercent", label: "Benchmark return", value: b.totalReturnPercent, signed: true, format: pct),
                Statistic(key: "benchmark.cagrPercent", label: "Benchmark CAGR", value: b.cagrPercent, signed: true, format: pct),
                Statistic(key: "benchmark.alpha", label: "Alpha (ann.)", value: b.alpha * 100, signed: true, format: pct),
                Statistic(key: "benchmark.beta", label: "Beta", value: b.beta, format: ratio),
                Statistic(key: "benchmark.correlation", label: "Correlation", value: b.correlation, format: ratio),
                Statistic(key: "benchmark.informationRatio", label: "Information ratio", value: b.informationRatio) { NumberText.fixed($0, decimals: 3) },
                Statistic(key: "benchmark.trackingErrorPercent", label: "Tracking error", value: b.trackingErrorPercent, format: pct),
            ]
        }
        if warmUpBars > 0 {
            let ready = market.series.compactMap { $0.count > warmUpBars ? $0.timestamps[warmUpBars] : nil }.min()
                ?? result.timestamps.last
            if let start = result.timestamps.first, let end = ready, end > start {
                warmUp = ChartBand(start: start, end: end, label: "Warm-up (\(warmUpBars) bars)")
            }
        }
    }
}

/// `benchmark`'s values on `timeline` (the last value at or before each step; NaN before its first), scaled so
/// that its first value on the timeline is `scale`.
private func onTimeline(_ benchmark: BenchmarkSeries, _ timeline: [Int64], scale: Double) -> [Double] {
    var out = [Double](repeating: .nan, count: timeline.count)
    var j = -1
    var base: Double? = nil
    for (k, t) in timeline.enumerated() {
        while j + 1 < benchmark.timestamps.count, benchmark.timestamps[j + 1] <= t { j += 1 }
        guard j >= 0, benchmark.values[j].isFinite, benchmark.values[j] > 0 else { continue }
        if base == nil { base = benchmark.values[j] }
        out[k] = benchmark.values[j] / base! * scale
    }
    return out
}

/// The index of `time` in sorted `timestamps`, if present.
private func barIndex(_ timestamps: [Int64], at time: Int64) -> Int? {
    var lo = 0, hi = timestamps.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if timestamps[mid] < time { lo = mid + 1 } else { hi = mid }
    }
    return lo < timestamps.count && timestamps[lo] == time ? lo : nil
}

/// Writes the HTML report of a backtest run to `path` (atomically).
public func writeBacktestReport(
    result: BacktestResult, statistics: BacktestStatistics, market: Market,
    buyLevels: RecordedBuyLevels = [:], to path: String
) throws {
    let content = BacktestReportContent(result: result, statistics: statistics, market: market, buyLevels: buyLevels)
    try writeReportAtomically(BacktestReportRenderer().render(content), to: path)
}
