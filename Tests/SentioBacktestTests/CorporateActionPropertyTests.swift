import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

/// Corporate actions applied to holdings on raw prices equal the run on back-adjusted prices.
///
/// What "equal" means. Run A: raw (unadjusted) prices, and at each ex-date the holding's shares are multiplied by
/// the split ratio and the cash dividend per raw share is credited. Run B: the same prices back-adjusted for the
/// splits (each bar divided by the product of the ratios of the later splits) and the dividends credited per
/// adjusted share (the dividend divided by the ratios of the splits after its date). Both hold the same money in
/// the same instrument at every step, so their equity curves, cash, trades and orders agree; they are not the same
/// bits, because a raw price is an adjusted price times a product of ratios, rounded, and every later quantity
/// inherits that rounding (ratios 3, 1.5, 5 and 10 and their inverses are not powers of two).
///
/// Tolerance, from the arithmetic: each compared quantity is a product or quotient of at most k + 2m + 12 rounded
/// operations away from its counterpart (k ≤ 6 splits, each rounding the price, the shares and the marks once;
/// m ≤ 30 contributions, each rounding the quantity and the cash twice; the fill, the commission and the equity
/// sum), all on positive terms (no cancellation, except the cash left after an all-in buy, which is compared
/// against the capital, not itself), so the relative error is at most (6 + 60 + 12) · 2⁻⁵³ < 128 · 2⁻⁵³ ≈ 1.4e-14.
/// The tests use 128 · 2⁻⁵³. Fractional shares: with whole shares, floor(budget / price) and
/// floor(budget · r / price) / r differ by construction (a different number of shares), which is not a rounding
/// error; the decisions of buy-and-hold and DCA do not depend on the price level (rsi and sentio do, which is why
/// `sentio backtest` refuses them on prices with splits left in).
@Suite("Corporate actions: raw prices with actions = back-adjusted prices")
struct CorporateActionPropertyTests {
    static let tolerance = 128 * Double.ulpOfOne / 2

    typealias Case = CorporateActionCase

    /// A random market of 1–3 symbols with random splits and dividends (`CorporateActionCase.random`).
    static func randomCase(_ rng: inout SplitMix64) -> Case { CorporateActionCase.random(&rng) }

    static func close(_ a: Double, _ b: Double, scale: Double) -> Bool {
        abs(a - b) <= tolerance * max(abs(a), abs(b), scale)
    }

    static func compare(_ a: BacktestResult, _ b: BacktestResult, capital: Double, label: String) {
        #expect(a.equity.count == b.equity.count)
        var worst = 0.0
        for (x, y) in zip(a.equity, b.equity) {
            worst = max(worst, abs(x - y) / max(abs(x), abs(y)))
            #expect(close(x, y, scale: capital), "\(label): equity \(x) vs \(y)")
        }
        for (x, y) in zip(a.cash, b.cash) { #expect(close(x, y, scale: capital), "\(label): cash \(x) vs \(y)") }
        #expect(a.orders.count == b.orders.count)
        #expect(a.orders.map(\.rejection) == b.orders.map(\.rejection))
        #expect(a.trades.count == b.trades.count)
        #expect(a.openPositions.count == b.openPositions.count)
        for (x, y) in zip(a.openPositions, b.openPositions) {
            #expect(close(x.marketValue, y.marketValue, scale: capital), "\(label): position value")
            #expect(close(x.shares, y.shares, scale: 0), "\(label): shares")
        }
    }

    @Test(arguments: [StrategyChoice.buyAndHold, .dcaMonthly, .dcaWeekly])
    func rawWithActionsEqualsBackAdjusted(_ choice: StrategyChoice) throws {
        var rng = SplitMix64(seed: 0x28_1000 &+ UInt64(choice.rawValue))
        for trial in 0..<60 {
            let c = Self.randomCase(&rng)
            let configuration = BacktestConfiguration(
                initialCapital: choice == .buyAndHold ? 100_000 : 0,
                costs: TradingCosts(commissionRate: 0.001, feePerOrder: 1, slippageBasisPoints: 5),
                sizing: c.raw.count == 1 ? .allIn : .equalWeight(maxPositions: c.raw.count), fractionalShares: true)
            var rawRun = Backtest(configuration)
            rawRun.corporateActions = c.rawActions
            var adjustedRun = Backtest(configuration)
            adjustedRun.corporateActions = c.adjustedActions
            let a = try choice.run(rawRun, on: try Market(c.raw))
            let b = try choice.run(adjustedRun, on: try Market(c.adjusted))
            Self.compare(a, b, capital: 100_000, label: "\(choice) trial \(trial)")
            // The actions matter: without them the raw run differs when there is a split while invested.
            // (A split at the second bar comes before the first fill: it changes nothing held.)
            let secondBar = c.raw[0].timestamps[1]
            let splits = c.rawActions.values.joined().filter { $0.shareMultiplier != 1 && $0.time > secondBar }.count
            if splits > 0 {
                let ignored = try choice.run(Backtest(configuration), on: try Market(c.raw))
                #expect(ignored.equity != a.equity)
            }
        }
    }

    @Test func liveStepsWithActionsEqualTheBacktestBitForBit() throws {
        var rng = SplitMix64(seed: 0x28_2000)
        for _ in 0..<20 {
            let c = Self.randomCase(&rng)
            let configuration = BacktestConfiguration(
                initialCapital: 100_000, costs: TradingCosts(commissionRate: 0.001),
                sizing: .equalWeight(maxPositions: c.raw.count))
            var backtest = Backtest(configuration)
            backtest.corporateActions = c.rawActions
            let market = try Market(c.raw)
            let expected = try backtest.run(BuyAndHoldStrategy(), on: market)
            let live = try SteppedSimulation(configuration: configuration, strategy: .buyAndHold, symbols: market.symbols)
            live.scheduleCorporateActions(c.rawActions)
            for (step, time) in market.timeline.enumerated() {
                for (s, series) in market.series.enumerated() where step < series.count && series.timestamps[step] == time {
                    try live.add(symbol: s, bar: series[bar: step])
                }
                live.completeStep(time: time)
            }
            let result = live.result()
            #expect(result.equity.map(\.bitPattern) == expected.equity.map(\.bitPattern))
            #expect(result.cash.map(\.bitPattern) == expected.cash.map(\.bitPattern))
        }
    }
}

enum StrategyChoice: Int, CustomStringConvertible, Sendable {
    case buyAndHold, dcaMonthly, dcaWeekly

    var description: String { ["buy-and-hold", "dca monthly", "dca weekly"][rawValue] }

    func run(_ backtest: Backtest, on market: Market) throws -> BacktestResult {
        switch self {
        case .buyAndHold: return try backtest.run(BuyAndHoldStrategy(), on: market)
        case .dcaMonthly: return try backtest.run(DollarCostAveragingStrategy(amount: 1_000, every: .month), on: market)
        case .dcaWeekly: return try backtest.run(DollarCostAveragingStrategy(amount: 250, every: .week), on: market)
        }
    }
}
