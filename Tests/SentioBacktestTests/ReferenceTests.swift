import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

/// Reproduction of backtesting.py 0.6.6 on its bundled GOOG daily series (fixtures from
/// `Tests/Fixtures/backtest/generate_backtest.py`).
@Suite("backtesting.py reference")
struct ReferenceTests {
    static let configuration = BacktestConfiguration(
        initialCapital: 100_000, fill: .nextOpen, costs: TradingCosts(commissionRate: 0.001), sizing: .allIn)

    func compare(_ result: BacktestResult, fixture prefix: String) throws {
        let trades = try loadNumericCSV("backtest/\(prefix)_trades.csv")
        let summary = try loadNumericCSV("backtest/\(prefix)_summary.csv")
        let n = trades["entryBar"]!.count
        #expect(result.trades.count == n)
        for (i, t) in result.trades.prefix(n).enumerated() {
            #expect(t.entryBar == Int(trades["entryBar"]![i]), "trade \(i) entry bar")
            #expect(t.exitBar == Int(trades["exitBar"]![i]), "trade \(i) exit bar")
            #expect(t.shares == trades["size"]![i], "trade \(i) size")
            expectClose(t.entryPrice, trades["entryPrice"]![i], relative: 1e-12, "trade \(i) entry price")
            expectClose(t.exitPrice, trades["exitPrice"]![i], relative: 1e-12, "trade \(i) exit price")
            expectClose(t.pnl, trades["pnl"]![i], relative: 1e-9, "trade \(i) pnl")
            expectClose(t.pnlPercent, trades["returnPercent"]![i], relative: 1e-9, "trade \(i) return")
            expectClose(t.commission, trades["commission"]![i], relative: 1e-9, "trade \(i) commission")
        }
        expectClose(result.finalEquity, summary["finalEquity"]![0], relative: 1e-9, "final equity")
        let openSize = summary["openSize"]![0]
        #expect(result.openPositions.reduce(0) { $0 + $1.shares } == openSize)
        expectClose(result.commissionsPaid, summary["commissions"]![0] + openCommission(result), relative: 1e-9)
    }

    /// backtesting.py counts commissions of closed trades only; ours include open positions' entries.
    func openCommission(_ r: BacktestResult) -> Double {
        r.openPositions.reduce(0) { $0 + $1.shares * $1.entryPrice * r.configuration.costs.commissionRate }
    }

    @Test("RSI(14) 30/70, all-in, commission 0.001, next-open: identical trades and final equity")
    func rsiStrategy() throws {
        let (goog, rsi) = try loadGOOG()
        let strategy = RSIStrategy(period: 14, lower: 30, upper: 70, rsi: fixtureRSIProvider(rsi))
        let result = try Backtest(Self.configuration).run(strategy, on: Market([goog]))
        try compare(result, fixture: "goog_rsi")
        // The whole equity curve, bar by bar.
        let equity = try loadNumericCSV("backtest/goog_rsi_equity.csv")["equity"]!
        expectClose(result.equity, equity, relative: 1e-9)
    }

    @Test("the same run with SentioIndicators' RSI (the strategy's default provider)")
    func rsiStrategyWithSentioRSI() throws {
        let (goog, _) = try loadGOOG()
        let result = try Backtest(Self.configuration).run(RSIStrategy(period: 14, lower: 30, upper: 70), on: Market([goog]))
        try compare(result, fixture: "goog_rsi")
    }

    @Test("same with a stop 5 % below and a target 10 % above the decision close (levels live on the entry bar)")
    func rsiWithStops() throws {
        let (goog, rsi) = try loadGOOG()
        var config = Self.configuration
        config.stopLossPercent = 5
        config.takeProfitPercent = 10
        config.stopReference = .decisionClose
        let strategy = RSIStrategy(period: 14, lower: 30, upper: 70, rsi: fixtureRSIProvider(rsi))
        let result = try Backtest(config).run(strategy, on: Market([goog]))
        try compare(result, fixture: "goog_rsi_stops")
        #expect(result.trades.contains { $0.exitReason == .stopLoss && $0.entryBar == $0.exitBar })
        #expect(result.trades.contains { $0.exitReason == .takeProfit })
    }

    @Test("close fills (backtesting.py trade_on_close=True): identical trades and final equity, with and without levels",
          arguments: [("goog_rsi_close", false), ("goog_rsi_close_stops", true)])
    func closeFills(fixture: String, withLevels: Bool) throws {
        let (goog, rsi) = try loadGOOG()
        var config = Self.configuration
        config.fill = .close
        if withLevels {
            config.stopLossPercent = 5
            config.takeProfitPercent = 10
        }
        let result = try Backtest(config).run(RSIStrategy(rsi: fixtureRSIProvider(rsi)), on: Market([goog]))
        try compare(result, fixture: fixture)
        if withLevels {
            // Levels are first checked on the bar after a close entry: no same-bar exit.
            #expect(result.trades.allSatisfy { $0.exitBar > $0.entryBar })
            #expect(result.trades.contains { $0.exitReason == .stopLoss })
        }
    }
}
