import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

@Suite("Strategies")
struct StrategyTests {
    @Test("buy-and-hold with equal weights holds every symbol to the end")
    func buyAndHold() throws {
        let market = try Market([dailySeries("A", flat(10, count: 5)), dailySeries("B", flat(20, count: 5))])
        let r = try Backtest(BacktestConfiguration(initialCapital: 1_000, sizing: .equalWeight(maxPositions: 2)))
            .run(BuyAndHoldStrategy(), on: market)
        #expect(r.openPositions.map(\.shares) == [50, 25])
        #expect(r.openPositions.allSatisfy { $0.entryBar == 1 })
        #expect(r.trades.isEmpty)
    }

    @Test("rsi: buys below the lower threshold when flat, sells above the upper one when invested")
    func rsiRule() throws {
        let s = dailySeries("A", flat(10, count: 8))
        // An injected indicator (not an RSI implementation): values chosen to exercise the rule.
        let values: [Double] = [.nan, 50, 25, 20, 50, 75, 80, 25]
        let strategy = RSIStrategy(period: 14, lower: 30, upper: 70, rsi: { _, _ in IndicatorSeries(values: values, firstValidIndex: 1) })
        var recorder = RecordingStrategy(base: strategy)
        let r = try Backtest(BacktestConfiguration(initialCapital: 100)).run(&recorder, on: Market([s]))
        let decided = recorder.log.filter { $0.decision != .hold }.map { ($0.bar, $0.decision) }
        #expect(decided.map(\.0) == [2, 5, 7])  // bar 3 (20 < 30) is skipped: already invested
        #expect(r.trades.count == 1 && r.trades[0].entryBar == 3 && r.trades[0].exitBar == 6)
        #expect(r.orders.compactMap(\.rejection) == [.noBarForSymbol])  // bar 7's buy has no bar to fill at
    }

    @Test("week and month period keys change exactly at Monday 00:00 and at the 1st")
    func periodKeys() {
        let sunday = CivilDate(year: 2024, month: 1, day: 7)!.epochSeconds + 86_399
        let monday = CivilDate(year: 2024, month: 1, day: 8)!.epochSeconds
        #expect(ContributionPeriod.week.periodKey(epochSeconds: sunday) + 1 == ContributionPeriod.week.periodKey(epochSeconds: monday))
        #expect(ContributionPeriod.week.periodKey(epochSeconds: monday) == ContributionPeriod.week.periodKey(epochSeconds: monday + 6 * 86_400))
        let jan31 = CivilDate(year: 2024, month: 1, day: 31)!.epochSeconds
        let feb1 = CivilDate(year: 2024, month: 2, day: 1)!.epochSeconds
        #expect(ContributionPeriod.month.periodKey(epochSeconds: jan31) + 1 == ContributionPeriod.month.periodKey(epochSeconds: feb1))
    }

    @Test("dca: one deposit per month split over the listed symbols; deposits are flows, not returns")
    func dca() throws {
        // 2024-01-01 .. 2024-03-31, price rising 1 per day for A, constant for B and C.
        let days = 91
        let a = dailySeries("A", (0..<days).map { i in let p = 100 + Double(i); return (p, p, p, p) })
        let b = dailySeries("B", flat(50, count: days))
        let c = dailySeries("C", flat(20, count: days))
        let market = try Market([a, b, c])
        let strategy = DollarCostAveragingStrategy(amount: 1_000, every: .month, symbols: ["A", "B"])
        let config = BacktestConfiguration(initialCapital: 0, fractionalShares: true)
        let r = try Backtest(config).run(strategy, on: market)
        // Deposits at the first bar of Jan, Feb and Mar: 2 symbols x 500.
        let depositSteps = r.contributions.indices.filter { r.contributions[$0] > 0 }
        #expect(depositSteps == [0, 31, 60])
        #expect(depositSteps.allSatisfy { r.contributions[$0] == 1_000 })
        #expect(r.totalContributions == 3_000)
        #expect(r.orders.count == 6 && r.orders.allSatisfy { $0.isFilled })
        #expect(r.openPositions.map(\.symbol) == ["A", "B"])
        // Shares bought with 500 at the next open.
        let sharesA = 500 / 101.0 + 500 / 132.0 + 500 / 161.0
        expectClose(r.openPositions[0].shares, sharesA, relative: 1e-12)
        expectClose(r.finalEquity, sharesA * 190 + 30 * 50, relative: 1e-12)
        let st = BacktestStatistics(r, moneyWeightedReturn: referenceXIRR)
        expectClose(st.totalReturnPercent, (r.finalEquity / 3_000 - 1) * 100, relative: 1e-12)
        // Time-weighted: B is flat, A rises; the deposit days contribute no return.
        var twr = 1.0
        for t in 1..<days where r.equity[t - 1] > 0 { twr *= (r.equity[t] - r.contributions[t]) / r.equity[t - 1] }
        expectClose(st.timeWeightedReturnPercent, (twr - 1) * 100, relative: 1e-12)
        #expect(abs(st.timeWeightedReturnPercent - st.totalReturnPercent) > 1)
        // Money-weighted: the flows handed to XIRR.
        let flows = moneyWeightedCashFlows(r)
        #expect(flows.map(\.amount) == [-1_000, -1_000, -1_000, r.finalEquity])
        #expect(flows.last?.time == r.timestamps.last)
        var seen: [(time: Int64, amount: Double)] = []
        let injected = BacktestStatistics(r, moneyWeightedReturn: { f in seen = f; return 0.5 })
        #expect(injected.moneyWeightedReturnPercent == 50)
        #expect(seen.count == 4)
        #expect(BacktestStatistics(r, moneyWeightedReturn: nil).moneyWeightedReturnPercent == nil)
        // The XIRR passed in (the tests' bisection): the flows' NPV at that rate (Actual/365) is 0.
        let rate = try #require(st.moneyWeightedReturnPercent) / 100
        let t0 = flows[0].time
        let npv = flows.reduce(0.0) { $0 + $1.amount / pow(1 + rate, Double($1.time - t0) / 86_400 / 365) }
        #expect(abs(npv) < 1e-7 * 3_000)
        #expect(rate > 0)  // A rose from 100 to 190, B stayed flat: money made money
    }

    @Test("dca rejects an unknown symbol")
    func dcaUnknownSymbol() throws {
        let market = try Market([dailySeries("A", flat(10, count: 5))])
        #expect(throws: BacktestError.self) {
            try Backtest().run(DollarCostAveragingStrategy(amount: 100, every: .week, symbols: ["ZZZ"]), on: market)
        }
    }

    @Test("signal adapter: BUY opens with the signal's stop and target, SELL closes, HOLD and redundant signals do nothing")
    func signalAdapter() throws {
        let s = dailySeries("A", [
            (100, 100, 100, 100), (100, 101, 99, 100), (100, 101, 99, 100), (100, 104, 99, 103),
            (103, 103, 102, 102), (102, 103, 101, 102), (102, 102, 95, 96), (96, 96, 96, 96),
        ])
        typealias D = SignalDecision
        let decisions: [D] = [
            D(action: .buy, stopLossPercent: -2, targetReturnPercent: 3),  // bar 0: entry at bar 1's open; levels 98 / 103
            D(action: .buy, stopLossPercent: -9, targetReturnPercent: 9),  // bar 1: invested: ignored
            D(action: .hold),
            D(action: .sell),  // bar 3: target (103) already hit intrabar at bar 3; the SELL finds no position
            D(action: .buy, stopLossPercent: -5, targetReturnPercent: .nan),  // bar 4: entry at bar 5's open, stop 96.9
            D(action: .hold),
            D(action: .hold),  // bar 6: low 95 hits the stop at 96.9
            D(action: .sell),
        ]
        let strategy = SignalStrategy(provider: { _ in decisions })
        let r = try Backtest(BacktestConfiguration(initialCapital: 1_000)).run(strategy, on: Market([s]))
        #expect(r.trades.count == 2)
        #expect(r.trades[0].entryBar == 1 && r.trades[0].exitBar == 3 && r.trades[0].exitReason == .takeProfit && r.trades[0].exitPrice == 103)
        #expect(r.trades[1].entryBar == 5 && r.trades[1].exitBar == 6 && r.trades[1].exitReason == .stopLoss)
        expectClose(r.trades[1].exitPrice, 102 * 0.95, relative: 1e-12)
        #expect(r.orders.allSatisfy { $0.isFilled })
        #expect(r.orders.count == 4)
    }

    @Test("signal adapter: a provider with the wrong number of decisions is an error")
    func signalAdapterLength() throws {
        let market = try Market([dailySeries("A", flat(10, count: 5))])
        #expect(throws: BacktestError.self) {
            try Backtest().run(SignalStrategy(provider: { _ in [SignalDecision(action: .hold)] }), on: market)
        }
    }
}
