import Foundation
import SentioBacktest
import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// A random strategy whose decision at (symbol, bar) depends only on a hash of the pair and the seed.
struct RandomStrategy: Strategy {
    var seed: UInt64
    var name: String { "random" }
    mutating func start(symbols: [String]) throws {}
    mutating func observe(symbol: Int, bar: Bar) {}
    mutating func decide(_ context: DecisionContext) -> Decision {
        var g = SplitMix64(seed: seed ^ (UInt64(context.symbol) << 40) ^ UInt64(context.bar))
        let u = Double.random(in: 0..<1, using: &g)
        switch u {
        case ..<0.08: return .buy(stopLossPercent: Bool.random(using: &g) ? Double.random(in: 1...8, using: &g) : nil,
                                  takeProfitPercent: Bool.random(using: &g) ? Double.random(in: 1...8, using: &g) : nil)
        case ..<0.14: return .sell
        case ..<0.16: return .contribute(amount: Double.random(in: 10...5_000, using: &g))
        default: return .hold
        }
    }
}

@Suite("Simulator invariants (seeded random strategies)")
struct PropertyTests {
    static func configuration(_ seed: UInt64) -> BacktestConfiguration {
        var g = SplitMix64(seed: seed)
        let sizings: [PositionSizing] = [.allIn, .equalWeight(maxPositions: 2), .fractionOfEquity(0.4)]
        return BacktestConfiguration(
            initialCapital: Double.random(in: 1_000...200_000, using: &g),
            fill: Bool.random(using: &g) ? .nextOpen : .close,
            costs: TradingCosts(
                commissionRate: Double.random(in: 0...0.01, using: &g), feePerOrder: Double.random(in: 0...5, using: &g),
                slippageBasisPoints: Double.random(in: 0...20, using: &g)),
            sizing: sizings[Int.random(in: 0..<3, using: &g)],
            fractionalShares: Bool.random(using: &g),
            stopReference: Bool.random(using: &g) ? .decisionClose : .entryPrice)
    }

    @Test("cash never negative; equity = cash + marked positions; every order filled or rejected with a reason",
          arguments: Array(UInt64(1)...UInt64(12)))
    func invariants(seed: UInt64) throws {
        let market = try randomMarket(symbols: 4, bars: 300, seed: seed)
        let config = Self.configuration(seed)
        var strategy = RecordingStrategy(base: RandomStrategy(seed: seed))
        let r = try Backtest(config).run(&strategy, on: market)
        #expect(r.cash.allSatisfy { $0 >= 0 })
        #expect(r.orders.filter(\.isFilled).count > 10, "the random strategy must actually trade")

        // Rebuild holdings from the order log and marks from the bars; compare with the equity curve.
        var shares = [Double](repeating: 0, count: 4)
        var mark = [Double](repeating: .nan, count: 4)
        var cursor = [Int](repeating: 0, count: 4)
        var byStep = [Int: [OrderRecord]]()
        for o in r.orders where o.isFilled { byStep[o.resolvedStep, default: []].append(o) }
        for (t, time) in r.timestamps.enumerated() {
            for o in byStep[t] ?? [] { shares[o.symbol] += o.side == .buy ? o.shares : -o.shares }
            for s in 0..<4 where cursor[s] < market.series[s].count && market.series[s].timestamps[cursor[s]] == time {
                mark[s] = market.series[s].close[cursor[s]]
                cursor[s] += 1
            }
            var expected = r.cash[t]
            for s in 0..<4 where shares[s] > 1e-12 { expected += shares[s] * mark[s] }
            expectClose(r.equity[t], expected, relative: 1e-9, "step \(t)")
        }
        #expect(shares.allSatisfy { abs($0) < 1e-9 || $0 > 0 })
        let open = Dictionary(uniqueKeysWithValues: r.openPositions.map { ($0.symbolIndex, $0.shares) })
        for s in 0..<4 { expectClose(open[s] ?? 0, shares[s], relative: 1e-9, absolute: 1e-9, "final shares of S\(s)") }

        // Every non-hold decision became exactly one order record, filled or rejected with a reason.
        let decided = strategy.log.filter { $0.decision != .hold }
        let strategyOrders = r.orders.filter { $0.reason == .signal }
        #expect(decided.count == strategyOrders.count)
        #expect(Set(r.orders.map(\.id)).count == r.orders.count)
        for o in r.orders {
            if o.isFilled { #expect(o.shares > 0 && o.fillPrice > 0) } else { #expect(o.shares == 0 && o.rejection != nil) }
        }
        // Filled sells are exactly the closed trades; deposits are logged.
        #expect(r.orders.filter { $0.isFilled && $0.side == .sell }.count == r.trades.count)
        let deposits = decided.reduce(0.0) { acc, d in if case .contribute(let a) = d.decision { return acc + a } else { return acc } }
        expectClose(r.totalContributions, deposits, relative: 1e-12)
        // Money is conserved: final equity = initial + deposits + Σ closed pnl + Σ open unrealized pnl.
        let pnl = r.trades.reduce(0) { $0 + $1.pnl } + r.openPositions.reduce(0) { $0 + $1.unrealizedPnL }
        expectClose(r.finalEquity, config.initialCapital + deposits + pnl, relative: 1e-9)
    }

    /// Runs `make()` on the full market and on truncated histories; the decisions and the equity curve
    /// on each prefix must equal the prefix of the full run's.
    func expectNoLookAhead<S: Strategy>(_ make: () -> S, market: Market, config: BacktestConfiguration) throws {
        var full = RecordingStrategy(base: make())
        let fullResult = try Backtest(config).run(&full, on: market)
        for steps in [1, 2, 17, market.timeline.count / 2, market.timeline.count - 1] {
            var part = RecordingStrategy(base: make())
            let partResult = try Backtest(config).run(&part, on: market.prefix(steps: steps))
            let expected = full.log.filter { $0.step < steps }
            #expect(part.log.count == expected.count, "prefix \(steps)")
            for (a, b) in zip(part.log, expected) {
                #expect(a.step == b.step && a.symbol == b.symbol && a.bar == b.bar && a.decision == b.decision, "prefix \(steps)")
            }
            #expect(partResult.equity == Array(fullResult.equity.prefix(steps)), "equity on prefix \(steps)")
        }
    }

    @Test("no look-ahead: built-in strategies decide the same on a truncated history", arguments: [UInt64(5), 6])
    func noLookAhead(seed: UInt64) throws {
        let market = try randomMarket(symbols: 3, bars: 200, seed: seed)
        let config = BacktestConfiguration(sizing: .equalWeight(maxPositions: 3), stopLossPercent: 3, takeProfitPercent: 6)
        try expectNoLookAhead({ BuyAndHoldStrategy() }, market: market, config: config)
        try expectNoLookAhead({ RSIStrategy(period: 14, lower: 40, upper: 60) }, market: market, config: config)
        var atClose = config
        atClose.fill = .close
        try expectNoLookAhead({ RSIStrategy(period: 14, lower: 40, upper: 60) }, market: market, config: atClose)
        try expectNoLookAhead({ DollarCostAveragingStrategy(amount: 500, every: .week) }, market: market, config: config)
        try expectNoLookAhead({ RandomStrategy(seed: seed) }, market: market, config: config)
        // TA-Lib functions (issue 34): MACD line over its signal, ADX over a level.
        let macd = try TAFunction("MACD", parameters: ["fastperiod": 5, "slowperiod": 13, "signalperiod": 4])
        try expectNoLookAhead({ TACrossStrategy(function: macd, line: 0, reference: .output(1)) }, market: market, config: config)
        let adx = try TAFunction("ADX", parameters: ["timeperiod": 7])
        try expectNoLookAhead({ TACrossStrategy(function: adx, reference: .level(25)) }, market: market, config: config)
        // ...and the MACD rule buys exactly on the bars where the line crosses above the signal while flat.
        var recorded = RecordingStrategy(base: TACrossStrategy(function: macd, line: 0, reference: .output(1)))
        _ = try Backtest(config).run(&recorded, on: market)
        let buys = recorded.log.filter { if case .buy = $0.decision { true } else { false } }
        #expect(!buys.isEmpty, "the MACD cross traded")
        for entry in buys {
            let out = try macd.compute(market.series[entry.symbol])
            let i = entry.bar
            #expect(out[0].values[i - 1] <= out[1].values[i - 1] && out[0].values[i] > out[1].values[i], "buy at a cross, bar \(i)")
        }
        // The signal adapter fed by a causal rule (momentum of the last two closes).
        let momentum: SignalProvider = { s in
            (0..<s.count).map { i in
                i == 0 ? SignalDecision(action: .hold)
                    : SignalDecision(action: s.close[i] > s.close[i - 1] ? .buy : .sell, stopLossPercent: -2, targetReturnPercent: 4)
            }
        }
        try expectNoLookAhead({ SignalStrategy(provider: momentum) }, market: market, config: config)
    }

    @Test("the look-ahead check can fail: a strategy peeking at the next close is caught")
    func lookAheadIsDetected() throws {
        struct Peeking: Strategy {
            var closes: [[Double]] = []
            var name: String { "peeking" }
            mutating func prepare(market: Market) throws -> StrategyPreparation {
                closes = market.series.map(\.close)
                return .batch
            }
            mutating func start(symbols: [String]) throws {}
            mutating func observe(symbol: Int, bar: Bar) {}
            mutating func decide(_ c: DecisionContext) -> Decision {
                let next = c.bar + 1 < closes[c.symbol].count ? closes[c.symbol][c.bar + 1] : 0
                return next > closes[c.symbol][c.bar] ? .buy() : .sell
            }
        }
        let market = try randomMarket(symbols: 1, bars: 100, seed: 9)
        var full = RecordingStrategy(base: Peeking())
        _ = try Backtest().run(&full, on: market)
        var part = RecordingStrategy(base: Peeking())
        _ = try Backtest().run(&part, on: market.prefix(steps: 50))
        let expected = full.log.filter { $0.step < 50 }.map(\.decision)
        #expect(part.log.map(\.decision) != expected)
    }
}
