import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

/// The default benchmark (equal-weight buy-and-hold of the data) with corporate actions: the holding is adjusted as
/// the portfolio's, so the benchmark is the true return of holding the shares (issue 28: with `--actions` it used to
/// read the raw prices, a split as a loss).
@Suite("Default benchmark with corporate actions")
struct BenchmarkActionsTests {
    /// Buy-and-hold filled at the first close, without costs, with fractional shares and equal weights holds exactly
    /// the benchmark's shares: its equity is the capital times the benchmark index at every step. Equal up to the
    /// roundings of the two computations (the tolerance of `CorporateActionPropertyTests`: 128 · 2⁻⁵³ relative).
    /// The same index comes from the back-adjusted prices with their dividends; without the actions the index of the
    /// raw prices differs as soon as a split falls after the first bar.
    @Test func equalWeightWithActionsIsTheHoldingsValue() throws {
        var rng = SplitMix64(seed: 0x28_3000)
        var splitCases = 0
        for trial in 0..<80 {
            let c = CorporateActionCase.random(&rng)
            let capital = 100_000.0
            let configuration = BacktestConfiguration(
                initialCapital: capital, fill: .close, costs: TradingCosts(), sizing: .equalWeight(maxPositions: c.raw.count),
                fractionalShares: true)
            var backtest = Backtest(configuration)
            backtest.corporateActions = c.rawActions
            let result = try backtest.run(BuyAndHoldStrategy(), on: try Market(c.raw))
            let timeline = result.timestamps
            let benchmark = BenchmarkSeries.equalWeight(c.raw, timeline: timeline, holdingAdjustments: c.rawActions)
            let adjusted = BenchmarkSeries.equalWeight(c.adjusted, timeline: timeline, holdingAdjustments: c.adjustedActions)
            for k in timeline.indices {
                #expect(CorporateActionPropertyTests.close(result.equity[k], capital * benchmark.values[k], scale: capital),
                        "trial \(trial) step \(k): equity \(result.equity[k]) vs benchmark \(capital * benchmark.values[k])")
                #expect(CorporateActionPropertyTests.close(benchmark.values[k], adjusted.values[k], scale: 1),
                        "trial \(trial) step \(k): raw with actions \(benchmark.values[k]) vs adjusted \(adjusted.values[k])")
            }
            let first = timeline[0]
            if c.rawActions.values.joined().contains(where: { $0.shareMultiplier != 1 && $0.time > first }) {
                splitCases += 1
                #expect(BenchmarkSeries.equalWeight(c.raw, timeline: timeline).values != benchmark.values)
            }
        }
        #expect(splitCases > 20, "the cases exercise splits while held")
    }

    /// Without actions the index is the one it always was (bit for bit: the goldens rely on it).
    @Test func noActionsIsThePlainIndex() {
        var rng = SplitMix64(seed: 0x28_3001)
        let c = CorporateActionCase.random(&rng)
        let timeline = c.raw[0].timestamps
        let plain = BenchmarkSeries.equalWeight(c.raw, timeline: timeline)
        let share = 1 / Double(c.raw.count)
        for (k, _) in timeline.enumerated() {
            var expected = 0.0
            for s in c.raw { expected += share * s.close[k] / s.close[0] }
            #expect(plain.values[k].bitPattern == expected.bitPattern)
        }
    }
}
