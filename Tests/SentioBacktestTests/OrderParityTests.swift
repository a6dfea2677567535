import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

/// The order model and short selling against backtesting.py 0.6.6 on its GOOG series (fixtures from
/// `Tests/Fixtures/orders/generate_orders.py`): the same orders at the same bars, trade by trade.
@Suite("backtesting.py order semantics and SmaCross long/short")
struct OrderParityTests {
    /// The rows of a text CSV fixture (no quoting), as dictionaries by column name.
    static func rows(_ name: String) throws -> [[String: String]] {
        let lines = try fixtureText(name).split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    static func number(_ text: String?) -> Double? { text.flatMap { Double($0) }.flatMap { $0.isNaN ? nil : $0 } }

    /// The closed trades and summary backtesting.py wrote for `name`, compared with `result`.
    func compare(_ result: BacktestResult, case name: String) throws {
        let expected = try Self.rows("orders/orders_trades.csv").filter { $0["case"] == name }
        let summary = try #require(try Self.rows("orders/orders_summary.csv").first { $0["case"] == name })
        #expect(result.trades.count == expected.count, "\(name): trade count")
        for (i, (t, e)) in zip(result.trades, expected).enumerated() {
            #expect(t.entryBar == Int(e["entryBar"]!), "\(name) trade \(i) entry bar")
            #expect(t.exitBar == Int(e["exitBar"]!), "\(name) trade \(i) exit bar")
            #expect(t.shares == Double(e["size"]!)!, "\(name) trade \(i) size")
            expectClose(t.entryPrice, Double(e["entryPrice"]!)!, relative: 1e-12, "\(name) trade \(i) entry price")
            expectClose(t.exitPrice, Double(e["exitPrice"]!)!, relative: 1e-12, "\(name) trade \(i) exit price")
            expectClose(t.pnl, Double(e["pnl"]!)!, relative: 1e-9, absolute: 1e-9, "\(name) trade \(i) pnl")
            expectClose(t.pnlPercent, Double(e["returnPercent"]!)!, relative: 1e-9, absolute: 1e-12, "\(name) trade \(i) return")
            expectClose(t.commission, Double(e["commission"]!)!, relative: 1e-9, "\(name) trade \(i) commission")
        }
        expectClose(result.finalEquity, Double(summary["finalEquity"]!)!, relative: 1e-9, "\(name): final equity")
        #expect(result.openPositions.reduce(0) { $0 + $1.shares } == Double(summary["openSize"]!)!, "\(name): open size")
    }

    @Test("a stop-loss on the entry bar, a stop entry gapped through, stop before take-profit, a stop-loss gapped through",
          arguments: ["sl_entry_bar", "stop_entry_gap", "stop_before_tp", "sl_gap"])
    func orderSemantics(name: String) throws {
        let (goog, _) = try loadGOOG()
        var script: [Int: Decision] = [:]
        for row in try Self.rows("orders/orders_cases.csv") where row["case"] == name {
            let bar = Int(row["decisionBar"]!)!
            let request: OrderRequest
            switch row["action"]! {
            case "buy":
                request = OrderRequest(
                    side: .buy, type: Self.number(row["stop"]).map { .stop($0) } ?? .market, quantity: .all,
                    stopLoss: Self.number(row["sl"]), takeProfit: Self.number(row["tp"]))
            default:  // close the long position
                request = OrderRequest(side: .sell, quantity: .all)
            }
            script[bar] = .order(request)
        }
        #expect(!script.isEmpty)
        let configuration = BacktestConfiguration(initialCapital: 100_000, costs: TradingCosts(commissionRate: 0.001), sizing: .allIn)
        let result = try Backtest(configuration).run(ScriptedStrategy(script: [0: script]), on: Market([goog]))
        try compare(result, case: name)
        #expect(result.orders.allSatisfy { $0.status != .rejected })
    }

    /// backtesting.py's SmaCross: buy when SMA(10) crosses above SMA(20), sell when it crosses below; each new order
    /// closes the open position first (`exclusive_orders=True`), so it reverses: long ↔ short, all-in.
    struct SmaCross: Strategy {
        let fast: [Double], slow: [Double]
        var name: String { "sma-cross" }
        mutating func start(symbols: [String]) throws {}
        mutating func observe(symbol: Int, bar: Bar) {}
        mutating func decide(_ context: DecisionContext) -> Decision {
            let i = context.bar
            guard i >= 1, !fast[i - 1].isNaN, !slow[i - 1].isNaN else { return .hold }
            let all = OrderQuantity.all
            if fast[i - 1] < slow[i - 1] && fast[i] > slow[i] {
                let buy = OrderRequest(side: .buy, quantity: all)
                return context.shares < 0 ? .orders([buy, buy]) : .order(buy)  // cover, then buy
            }
            if slow[i - 1] < fast[i - 1] && slow[i] > fast[i] {
                let sell = OrderRequest(side: .sell, quantity: all)
                return context.shares > 0 ? .orders([sell, sell]) : .order(sell)  // sell the long, then short
            }
            return .hold
        }
    }

    @Test("SmaCross (SMA 10/20, long and short, commission 0.002): backtesting.py's trades and final equity")
    func smaCross() throws {
        let (goog, _) = try loadGOOG()
        let sma = try loadNumericCSV("orders/sma_cross_sma.csv")
        let configuration = BacktestConfiguration(
            initialCapital: 100_000, costs: TradingCosts(commissionRate: 0.002), sizing: .allIn, allowShort: true)
        let result = try Backtest(configuration).run(SmaCross(fast: sma["sma10"]!, slow: sma["sma20"]!), on: Market([goog]))
        try compare(result, case: "sma_cross")
        #expect(result.trades.contains { $0.shares < 0 } && result.trades.contains { $0.shares > 0 })
    }
}
