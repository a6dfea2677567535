import SentioBacktest
import SentioCore
import SentioData
import SentioSignals
import SentioTestSupport
import Testing

@Suite("sentio strategy (signal model adapter) on the sample universe")
struct SentioStrategyTests {
    static func sample() throws -> Market {
        try Market(OHLCVReader.readDirectory(repositoryRoot.appendingPathComponent("Data/market").path))
    }

    @Test("trades open on BUY signals with the signal's stop and target, close on SELL signals or levels")
    func tradesFollowSignals() throws {
        let market = try Self.sample()
        let config = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 12))
        let result = try Backtest(config).run(try SignalStrategy.sentio(), on: market)
        let signals = try market.series.map { try SignalModel.evaluate($0) }
        #expect(result.trades.count > 20)
        #expect(result.trades.contains { $0.exitReason == .signal })
        #expect(result.trades.contains { $0.exitReason == .stopLoss })
        for t in result.trades {
            let series = market.series[t.symbolIndex]
            let entrySignal = signals[t.symbolIndex][t.entryBar - 1]
            #expect(entrySignal.signalType == .buy, "\(t.symbol) entry at bar \(t.entryBar)")
            #expect(t.entryPrice == series.open[t.entryBar])
            let decisionClose = series.close[t.entryBar - 1]
            switch t.exitReason {
            case .signal:
                #expect(signals[t.symbolIndex][t.exitBar - 1].signalType == .sell)
                #expect(t.exitPrice == series.open[t.exitBar])
            case .stopLoss:
                let stop = decisionClose * (1 - abs(entrySignal.stopLoss) / 100)
                #expect(series.low[t.exitBar] <= stop)
                expectClose(t.exitPrice, min(series.open[t.exitBar], stop), relative: 1e-12)
            case .takeProfit:
                // The target is the signal's profitTarget: close × (1 + targetReturn / 100).
                let target = entrySignal.profitTarget
                #expect(series.high[t.exitBar] >= target)
                expectClose(t.exitPrice, max(series.open[t.exitBar], target), relative: 1e-12)
            case .liquidation:
                Issue.record("a long-only run is never liquidated (trade \(t))")
            }
        }
        // Each BUY signal of a flat symbol became an order: count BUY signals seen while flat.
        #expect(result.orders.filter { $0.side == .buy }.count == result.trades.count + result.openPositions.count + result.rejectedOrders.count)
    }

    @Test("no look-ahead on real data: decisions on truncated histories equal the prefix")
    func noLookAhead() throws {
        let market = try Self.sample()
        let config = BacktestConfiguration(sizing: .equalWeight(maxPositions: 4))
        var full = RecordingStrategy(base: try SignalStrategy.sentio())
        let fullResult = try Backtest(config).run(&full, on: market)
        for steps in [200, 333, market.timeline.count - 1] {
            var part = RecordingStrategy(base: try SignalStrategy.sentio())
            let partResult = try Backtest(config).run(&part, on: market.prefix(steps: steps))
            let expected = full.log.filter { $0.step < steps }
            #expect(part.log.count == expected.count)
            #expect(zip(part.log, expected).allSatisfy { $0.decision == $1.decision && $0.bar == $1.bar && $0.symbol == $1.symbol })
            #expect(partResult.equity == Array(fullResult.equity.prefix(steps)))
        }
    }
}
