import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

@Suite("Portfolio simulator")
struct SimulatorTests {
    @Test("all-in next-open entry: floor(cash / (price (1 + c))) shares at the next open, commission at both ends")
    func allInNextOpen() throws {
        // Decide at bar 0's close (100), fill at bar 1's open (101); sell decided at bar 2, filled at bar 3's open.
        let s = dailySeries("A", [(100, 100, 100, 100), (101, 106, 100, 105), (110, 111, 109, 110), (112, 112, 112, 112), (113, 113, 113, 113)])
        let config = BacktestConfiguration(initialCapital: 10_000, costs: TradingCosts(commissionRate: 0.001))
        let result = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy(), 2: .sell]]), on: Market([s]))
        let shares = (10_000 / (101 * 1.001)).rounded(.down)
        #expect(shares == 98)
        #expect(result.trades.count == 1)
        let t = try #require(result.trades.first)
        #expect(t.entryBar == 1 && t.exitBar == 3 && t.entryPrice == 101 && t.exitPrice == 112 && t.shares == shares)
        let entryCommission = shares * 101 * 0.001, exitCommission = shares * 112 * 0.001
        expectClose(t.commission, entryCommission + exitCommission, relative: 1e-12)
        expectClose(t.pnl, shares * (112 - 101) - entryCommission - exitCommission, relative: 1e-12)
        expectClose(t.pnlPercent, t.pnl / (shares * 101) * 100, relative: 1e-12)
        let cashAfter = 10_000 - shares * 101 - entryCommission + shares * 112 - exitCommission
        expectClose(result.finalEquity, cashAfter, relative: 1e-12)
        // Marked at bar 1's close and bar 2's close while held.
        expectClose(result.equity[1], 10_000 - shares * 101 - entryCommission + shares * 105, relative: 1e-12)
        expectClose(result.equity[2], 10_000 - shares * 101 - entryCommission + shares * 110, relative: 1e-12)
        #expect(result.equity[0] == 10_000)
        expectClose(result.commissionsPaid, entryCommission + exitCommission, relative: 1e-12)
        #expect(result.openPositions.isEmpty)
        #expect(result.exposed == [false, true, true, true, false])
    }

    @Test("close fills: same bar's close")
    func closeFill() throws {
        let s = dailySeries("A", [(100, 100, 100, 100), (101, 106, 100, 105), (110, 111, 109, 110)])
        let config = BacktestConfiguration(initialCapital: 1_000, fill: .close)
        let result = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy(), 1: .sell]]), on: Market([s]))
        let t = try #require(result.trades.first)
        #expect(t.entryBar == 0 && t.exitBar == 1 && t.entryPrice == 100 && t.exitPrice == 105 && t.shares == 10)
        #expect(result.finalEquity == 1_050)
    }

    @Test("slippage against the trader, fixed fee per order, fractional shares")
    func costs() throws {
        let s = dailySeries("A", [(100, 100, 100, 100), (100, 100, 100, 100), (120, 120, 120, 120), (120, 120, 120, 120)])
        let config = BacktestConfiguration(
            initialCapital: 1_000, costs: TradingCosts(commissionRate: 0.01, feePerOrder: 2, slippageBasisPoints: 50),
            fractionalShares: true)
        let result = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy(), 1: .sell]]), on: Market([s]))
        let t = try #require(result.trades.first)
        let buyPrice = 100 * 1.005, sellPrice = 120 * 0.995
        let shares = (1_000 - 2) / (buyPrice * 1.01)
        expectClose(t.entryPrice, buyPrice, relative: 1e-14)
        expectClose(t.exitPrice, sellPrice, relative: 1e-14)
        expectClose(t.shares, shares, relative: 1e-14)
        let commission = shares * buyPrice * 0.01 + 2 + shares * sellPrice * 0.01 + 2
        expectClose(t.commission, commission, relative: 1e-12)
        expectClose(result.finalEquity, shares * sellPrice * 0.99 - 2, relative: 1e-9)
        #expect(result.cash.allSatisfy { $0 >= 0 })
    }

    @Test("stop-loss: a gap through the level fills at the open; otherwise at the stop")
    func stopGap() throws {
        // Entry decided at close 100 with a 5 % stop -> 95. Bar 2 gaps to 90: exit at the open, 90.
        let gap = dailySeries("A", [(100, 100, 100, 100), (100, 101, 99, 100), (90, 92, 88, 91), (91, 91, 91, 91)])
        let config = BacktestConfiguration(initialCapital: 1_000)
        var r = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy(stopLossPercent: 5)]]), on: Market([gap]))
        var t = try #require(r.trades.first)
        #expect(t.exitBar == 2 && t.exitPrice == 90 && t.exitReason == .stopLoss)
        // Bar 2 opens above the stop and trades through it: exit at exactly 95.
        let through = dailySeries("A", [(100, 100, 100, 100), (100, 101, 99, 100), (97, 98, 93, 94), (94, 94, 94, 94)])
        r = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy(stopLossPercent: 5)]]), on: Market([through]))
        t = try #require(r.trades.first)
        #expect(t.exitBar == 2 && t.exitPrice == 95 && t.exitReason == .stopLoss)
    }

    @Test("take-profit: a gap above the target fills at the open; otherwise at the target")
    func targetGap() throws {
        let gap = dailySeries("A", [(100, 100, 100, 100), (100, 101, 99, 100), (115, 116, 114, 115), (115, 115, 115, 115)])
        let config = BacktestConfiguration(initialCapital: 1_000, takeProfitPercent: 10)
        var r = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([gap]))
        var t = try #require(r.trades.first)
        #expect(t.exitBar == 2 && t.exitPrice == 115 && t.exitReason == .takeProfit)
        let through = dailySeries("A", [(100, 100, 100, 100), (100, 101, 99, 100), (105, 111, 104, 106), (106, 106, 106, 106)])
        r = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([through]))
        t = try #require(r.trades.first)
        #expect(t.exitBar == 2 && abs(t.exitPrice - 110) < 1e-12 && t.exitReason == .takeProfit)
    }

    @Test("a bar touching both levels exits at the stop (conservative rule)")
    func bothTouched() throws {
        let s = dailySeries("A", [(100, 100, 100, 100), (100, 101, 99, 100), (100, 112, 94, 100), (100, 100, 100, 100)])
        let config = BacktestConfiguration(initialCapital: 1_000, stopLossPercent: 5, takeProfitPercent: 10)
        let r = try Backtest(config).run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([s]))
        let t = try #require(r.trades.first)
        #expect(t.exitBar == 2 && t.exitPrice == 95 && t.exitReason == .stopLoss)
    }

    @Test("levels are live on the entry bar with next-open fills, from the next bar with close fills")
    func levelsOnEntryBar() throws {
        // Entry at bar 1's open (100); bar 1's low 94 crosses the 95 stop.
        let s = dailySeries("A", [(100, 100, 100, 100), (100, 101, 94, 99), (99, 99, 99, 99), (99, 99, 99, 99)])
        let nextOpen = try Backtest(BacktestConfiguration(initialCapital: 1_000, stopLossPercent: 5))
            .run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([s]))
        let t = try #require(nextOpen.trades.first)
        #expect(t.entryBar == 1 && t.exitBar == 1 && t.exitPrice == 95)
        // With close fills the entry is at bar 1's close: bar 1's range is before the entry and must not trigger.
        let atClose = try Backtest(BacktestConfiguration(initialCapital: 1_000, fill: .close, stopLossPercent: 5))
            .run(ScriptedStrategy(script: [0: [1: .buy()]]), on: Market([s]))
        #expect(atClose.trades.isEmpty)
        #expect(atClose.openPositions.count == 1)
        #expect(atClose.openPositions.first?.entryBar == 1)
    }

    @Test("stop reference: decision close (default) or entry price")
    func stopReference() throws {
        let s = dailySeries("A", [(100, 100, 100, 100), (110, 110, 110, 110), (104, 105, 104, 105), (105, 105, 105, 105)])
        let byClose = try Backtest(BacktestConfiguration(initialCapital: 1_000, stopLossPercent: 5))
            .run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([s]))
        #expect(byClose.openPositions.first?.stopPrice == 95)
        let byEntry = try Backtest(BacktestConfiguration(initialCapital: 1_000, stopLossPercent: 5, stopReference: .entryPrice))
            .run(ScriptedStrategy(script: [0: [0: .buy()]]), on: Market([s]))
        let t = try #require(byEntry.trades.first)
        #expect(t.exitBar == 2 && t.exitPrice == 104 && t.exitReason == .stopLoss)  // gap below 104.5
    }

    /// A price so small that the budget would buy more shares than a double holds: the order is rejected
    /// (`quantity-overflow`) and the cash stays whole; before, the quantity was capped at 1.8e308 shares, which
    /// invested a fraction of the budget (221.94 of 100,000 at 1.2345678e-306) and reported a full purchase.
    @Test("a quantity beyond a double's range is rejected, never capped (all-in, whole and fractional, DCA)", arguments: [false, true])
    func quantityOverflow(fractional: Bool) throws {
        // 100,000 / price overflows below about 5.6e-304; 100 / price below about 5.6e-307.
        for price in [1.2345678e-306, 0x1p-1030, 0x1p-1074] {  // 1.2e-306, about 8.7e-311, the smallest double
            let s = dailySeries("A", flat(price, count: 6))
            let allIn = try Backtest(BacktestConfiguration(initialCapital: 100_000, fractionalShares: fractional))
                .run(BuyAndHoldStrategy(), on: Market([s]))
            #expect(allIn.orders.map(\.rejection) == [.quantityOverflow], "price \(price)")
            #expect(allIn.finalCash == 100_000 && allIn.openPositions.isEmpty)
            guard price < 5e-307 else { continue }
            let dca = try Backtest(BacktestConfiguration(initialCapital: 0, fractionalShares: fractional))
                .run(DollarCostAveragingStrategy(amount: 100, every: .week), on: Market([s]))
            #expect(!dca.orders.isEmpty && dca.orders.allSatisfy { $0.rejection == .quantityOverflow }, "price \(price)")
        }
        // Small but representable: bought in full.
        let s = dailySeries("A", flat(1e-300, count: 6))
        let r = try Backtest(BacktestConfiguration(initialCapital: 100_000, fractionalShares: fractional)).run(BuyAndHoldStrategy(), on: Market([s]))
        #expect(r.orders.allSatisfy(\.isFilled) && r.finalCash < 1_000)
    }

    @Test("rejections are logged with reasons, never dropped")
    func rejections() throws {
        let a = dailySeries("A", flat(100, count: 4))
        let b = dailySeries("B", flat(50, count: 4))
        let market = try Market([a, b])
        // All-in on two symbols: A takes the cash, B is rejected for insufficient cash. A sell while flat
        // and a buy on the last bar (no bar left to fill at) are rejected too.
        let script: [Int: [Int: Decision]] = [0: [0: .buy(), 1: .buy()], 1: [0: .buy(), 1: .sell, 3: .buy()]]
        let r = try Backtest(BacktestConfiguration(initialCapital: 1_000)).run(ScriptedStrategy(script: script), on: market)
        let reasons = r.orders.compactMap { o in o.rejection.map { (r.symbols[o.symbol], $0) } }
        #expect(reasons.count == 4)
        #expect(reasons.contains { $0 == ("B", .insufficientCash) })
        #expect(reasons.contains { $0 == ("A", .positionAlreadyOpen) })
        #expect(reasons.contains { $0 == ("B", .noOpenPosition) })
        #expect(reasons.contains { $0 == ("B", .noBarForSymbol) })
        #expect(r.orders.count == 5)
        #expect(r.orders.filter(\.isFilled).count == 1)
    }

    @Test("equal-weight and fraction sizing; max positions and zero size")
    func sizingRules() throws {
        let syms = ["A", "B", "C"].map { dailySeries($0, flat(10, count: 3)) }
        let market = try Market(syms)
        let all: [Int: [Int: Decision]] = [0: [0: .buy()], 1: [0: .buy()], 2: [0: .buy()]]
        let ew = try Backtest(BacktestConfiguration(initialCapital: 1_000, sizing: .equalWeight(maxPositions: 2)))
            .run(ScriptedStrategy(script: all), on: market)
        #expect(ew.openPositions.map(\.shares) == [50, 50])
        #expect(ew.orders.compactMap(\.rejection) == [.maxPositionsReached])
        let fraction = try Backtest(BacktestConfiguration(initialCapital: 1_000, sizing: .fractionOfEquity(0.3)))
            .run(ScriptedStrategy(script: all), on: market)
        #expect(fraction.openPositions.map(\.shares) == [30, 30, 30])
        let tiny = try Backtest(BacktestConfiguration(initialCapital: 1_000, sizing: .fractionOfEquity(0.005)))
            .run(ScriptedStrategy(script: [0: [0: .buy()]]), on: market)
        #expect(tiny.orders.compactMap(\.rejection) == [.zeroSize])
    }

    @Test("a symbol with no bar at a step is neither traded nor re-marked")
    func missingBars() throws {
        // B trades every other day; A every day.
        let a = dailySeries("A", flat(10, count: 6))
        let b = dailySeries("B", [(20, 20, 20, 20), (30, 30, 30, 30), (40, 40, 40, 40)], dayStride: 2)
        let market = try Market([a, b])
        #expect(market.timeline.count == 6)
        // Buy B at its bar 0 close: fills at B's next bar (step 2), not at step 1 where B has no bar.
        let r = try Backtest(BacktestConfiguration(initialCapital: 100)).run(ScriptedStrategy(script: [1: [0: .buy()]]), on: market)
        let fill = try #require(r.orders.first { $0.isFilled })
        #expect(fill.resolvedStep == 2 && fill.fillPrice == 30 && fill.shares == 3)
        // Step 3: B has no bar; its mark stays at 30.
        #expect(r.equity[3] == 10 + 3 * 30)
        #expect(r.equity[4] == 10 + 3 * 40)
        #expect(r.equity[5] == 10 + 3 * 40)
    }

    @Test("the timeline is the sorted union of all timestamps", arguments: [UInt64(11), 12, 13])
    func timelineUnion(seed: UInt64) throws {
        let market = try randomMarket(symbols: 4, bars: 120, seed: seed, dropProbability: 0.3)
        let union = Set(market.series.flatMap(\.timestamps)).sorted()
        #expect(market.timeline == union)
        let same = try Market([dailySeries("A", flat(1, count: 5)), dailySeries("B", flat(2, count: 5))])
        #expect(same.timeline == same.series[0].timestamps)
    }

    @Test("open positions at the end are marked to market and not counted as trades")
    func openAtEnd() throws {
        let s = dailySeries("A", [(100, 100, 100, 100), (100, 100, 100, 100), (120, 120, 120, 125)])
        let r = try Backtest(BacktestConfiguration(initialCapital: 1_000, costs: TradingCosts(commissionRate: 0.01)))
            .run(BuyAndHoldStrategy(), on: Market([s]))
        #expect(r.trades.isEmpty)
        let p = try #require(r.openPositions.first)
        #expect(p.shares == 9 && p.currentPrice == 125 && p.entryPrice == 100)
        expectClose(p.unrealizedPnL, 9 * 25 - 9)
        expectClose(r.finalEquity, 1_000 - 900 - 9 + 9 * 125)
    }

    @Test("progress is reported once at the start (0, after prepare), every 4,096 steps and at the end")
    func progress() throws {
        final class Calls: @unchecked Sendable { var values: [Int] = [] }  // single-threaded use
        let calls = Calls()
        let market = try randomMarket(symbols: 2, bars: 10_000, seed: 4, dropProbability: 0)
        _ = try Backtest(BacktestConfiguration(), progress: { done, total in
            #expect(total == 10_000)
            calls.values.append(done)
        }).run(BuyAndHoldStrategy(), on: market)
        #expect(calls.values == [0, 4_096, 8_192, 10_000])
    }

    @Test("invalid configuration and data are errors")
    func invalidInput() throws {
        let s = dailySeries("A", flat(10, count: 3))
        #expect(throws: BacktestError.self) {
            try Backtest(BacktestConfiguration(costs: TradingCosts(commissionRate: -0.1))).run(BuyAndHoldStrategy(), on: Market([s]))
        }
        #expect(throws: BacktestError.self) { try Market([]) }
        #expect(throws: BacktestError.self) { try Market([s, s]) }
        var bad = s
        bad.close[1] = .nan
        #expect(throws: BacktestError("symbol A, bar 1 (2024-01-02T00:00:00Z): prices must be finite and positive")) { try Market([bad]) }
        bad = s
        bad.high[2] = .infinity
        #expect(throws: BacktestError.self) { try Market([bad]) }
        bad = s
        bad.low[0] = 0
        #expect(throws: BacktestError.self) { try Market([bad]) }
        bad = s
        bad.timestamps[2] = bad.timestamps[1]
        #expect(throws: BacktestError("symbol A, bar 2: timestamps must be strictly increasing")) { try Market([bad]) }
    }
}
