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

    struct Case {
        var raw: [OHLCVSeries]
        var adjusted: [OHLCVSeries]
        var rawActions: [String: [HoldingAdjustment]]
        var adjustedActions: [String: [HoldingAdjustment]]
    }

    /// A random market of 1–3 symbols with random splits and dividends.
    static func randomCase(_ rng: inout SplitMix64) -> Case {
        let ratios: [Double] = [2, 3, 1.5, 4, 5, 10, 1.0 / 2, 1.0 / 3, 2.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 10]
        let symbolCount = Int.random(in: 1...3, using: &rng)
        let bars = Int.random(in: 40...260, using: &rng)
        let start: Int64 = 19_000 * 86_400
        var c = Case(raw: [], adjusted: [], rawActions: [:], adjustedActions: [:])
        for k in 0..<symbolCount {
            let symbol = "S\(k)"
            // Adjusted prices: a random walk; raw = adjusted × the product of the later splits' ratios.
            var adjusted = OHLCVSeries(symbol: symbol)
            var price = Double.random(in: 5...500, using: &rng)
            for i in 0..<bars {
                let open = price * exp(0.01 * rng.nextGaussian())
                let close = open * exp(0.02 * rng.nextGaussian())
                let high = max(open, close) * (1 + Double.random(in: 0...0.01, using: &rng))
                let low = min(open, close) * (1 - Double.random(in: 0...0.01, using: &rng))
                adjusted.append(timestamp: start + Int64(i) * 86_400, open: open, high: high, low: low, close: close, volume: 1_000)
                price = close
            }
            let splitCount = Int.random(in: 0...6, using: &rng)
            var splitBars = Set<Int>()
            for _ in 0..<splitCount { splitBars.insert(Int.random(in: 1..<bars, using: &rng)) }
            var ratioAt: [Int: Double] = [:]
            for b in splitBars { ratioAt[b] = ratios.randomElement(using: &rng)! }
            var dividendAt: [Int: Double] = [:]  // per raw share of that bar
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                dividendAt[Int.random(in: 1..<bars, using: &rng)] = Double.random(in: 0.001...0.03, using: &rng)
            }
            // Factor of bar i: product of the ratios of the splits at bars > i.
            var factor = [Double](repeating: 1, count: bars)
            var running = 1.0
            for i in stride(from: bars - 1, through: 0, by: -1) {
                factor[i] = running
                if let r = ratioAt[i] { running *= r }
            }
            var raw = OHLCVSeries(symbol: symbol)
            for i in 0..<bars {
                let f = factor[i]
                raw.append(timestamp: adjusted.timestamps[i], open: adjusted.open[i] * f, high: adjusted.high[i] * f,
                           low: adjusted.low[i] * f, close: adjusted.close[i] * f, volume: 1_000 / f)
            }
            var rawActions: [HoldingAdjustment] = [], adjustedActions: [HoldingAdjustment] = []
            for i in 1..<bars where ratioAt[i] != nil || dividendAt[i] != nil {
                let t = adjusted.timestamps[i]
                // The dividend in money per raw share of bar i: the adjusted dividend times the raw/adjusted factor.
                let perRaw = (dividendAt[i] ?? 0) * raw.close[i - 1] / 10
                rawActions.append(HoldingAdjustment(time: t, shareMultiplier: ratioAt[i] ?? 1, cashPerShare: perRaw))
                if dividendAt[i] != nil {
                    adjustedActions.append(HoldingAdjustment(time: t, shareMultiplier: 1, cashPerShare: perRaw / factor[i]))
                }
            }
            c.raw.append(raw)
            c.adjusted.append(adjusted)
            c.rawActions[symbol] = rawActions
            c.adjustedActions[symbol] = adjustedActions
        }
        return c
    }

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
