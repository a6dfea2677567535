import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

/// Stand-ins for the backtest's own types, to prove an adapter can save any `Encodable` configuration.
private struct Config: Codable, Equatable {
    var initialCapital: Double
    var commission: Double
    var symbols: [String]
}

private struct Statistics: Codable, Equatable {
    var finalEquity: Double
    var totalReturnPercent: Double
    var sharpeRatio: Double
    var tradeCount: Int
}

func sampleRun(trades: Int, points: Int, seed: UInt64) throws -> (StoredRun, [StoredTrade], [StoredEquityPoint]) {
    var rng = SplitMix64(seed: seed)
    let run = try StoredRun(
        strategy: "rsi", symbols: ["AAA", "BBB"],
        config: Config(initialCapital: 100_000, commission: 0.001, symbols: ["AAA", "BBB"]),
        statistics: Statistics(finalEquity: 101_234.5, totalReturnPercent: 1.2345, sharpeRatio: 0.8, tradeCount: trades),
        inputFingerprint: "0123456789abcdef", label: "seed \(seed)", startTimestamp: 1_700_000_000,
        endTimestamp: 1_700_000_000 + Int64(points) * 60, initialCapital: 100_000, finalEquity: 101_234.5,
        createdAt: 1_763_700_000)
    var tradeList: [StoredTrade] = []
    for i in 0..<trades {
        let isOpen = i == trades - 1
        let entry: Int64 = 1_700_000_000 + Int64(i) * 600
        var trade = StoredTrade(
            symbol: i % 2 == 0 ? "AAA" : "BBB", entryTimestamp: entry, entryPrice: 100 + rng.nextGaussian(),
            shares: Double(i + 1), commission: 0.2, signalType: "BUY")
        if !isOpen {
            trade.exitTimestamp = entry + 300
            trade.exitPrice = 101
            trade.pnl = 1.5
            trade.pnlPercent = 0.015
            trade.exitReason = "signal"
        }
        if i == 0 { trade.detailsJSON = #"{"rsi":28.5}"# }
        tradeList.append(trade)
    }
    var equity: [StoredEquityPoint] = []
    for i in 0..<points {
        let cash: Double? = i % 3 == 0 ? nil : 5_000
        let contribution: Double? = i % 50 == 0 ? 1_000 : nil
        equity.append(
            StoredEquityPoint(
                timestamp: 1_700_000_000 + Int64(i) * 60, equity: 100_000 + Double(i), cash: cash, contribution: contribution))
    }
    return (run, tradeList, equity)
}

@Suite("Runs, signals and fund events")
struct RunsSignalsFundsTests {
    @Test("saveRun stores header, trades and equity; run(id:) gives them back")
    func runRoundTrip() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let (run, trades, equity) = try sampleRun(trades: 7, points: 500, seed: 1)
        let id = try store.saveRun(run, trades: trades, equity: equity)
        let secondID = try store.saveRun(try sampleRun(trades: 2, points: 10, seed: 2).0, trades: [], equity: [])
        #expect(secondID > id)

        let detail = try store.run(id: id)
        var expected = run
        expected.id = id
        expected.tradeCount = 7
        expected.equityPointCount = 500
        #expect(detail.run == expected)
        #expect(detail.trades == trades)
        #expect(detail.equity == equity)
        let statistics = detail.run.statisticsObject()
        #expect(statistics["sharpeRatio"] as? Double == 0.8)
        #expect(detail.run.configObject()["commission"] as? Double == 0.001)
        #expect(try store.runs().map(\.id) == [id, secondID])

        try store.deleteRun(id: id)
        #expect(try store.runs().map(\.id) == [secondID])
        #expect(throws: StoreError.runNotFound(id: id, path: store.path)) { try store.run(id: id) }
        #expect(throws: StoreError.runNotFound(id: 999, path: store.path)) { try store.deleteRun(id: 999) }
        let orphans = try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM run_trades) + (SELECT count(*) FROM run_equity)")
        }
        #expect(orphans == 0)  // cascaded
    }

    @Test("an invalid run is rejected whole: nothing of it is stored")
    func invalidRun() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        var (run, trades, equity) = try sampleRun(trades: 3, points: 20, seed: 3)
        var badJSON = run
        badJSON.statisticsJSON = "{not json"
        #expect(throws: StoreError.self) { try store.saveRun(badJSON, trades: trades, equity: equity) }
        equity[10].timestamp = equity[9].timestamp
        #expect(throws: StoreError.self) { try store.saveRun(run, trades: trades, equity: equity) }
        run.strategy = ""
        #expect(throws: StoreError.self) { try store.saveRun(run, trades: trades, equity: []) }
        #expect(try store.runs().isEmpty)
    }

    @Test("signals: saved, filtered, and replaced on the same (model, symbol, timestamp)")
    func signals() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        var signals: [StoredSignal] = []
        for i in 0..<20 {
            let timestamp: Int64 = 1_700_000_000 + Int64(i % 10) * 86_400
            signals.append(
                StoredSignal(
                    model: "sentio", symbol: i < 10 ? "AAA" : "BBB", timestamp: timestamp,
                    signal: i % 3 == 0 ? "BUY" : "HOLD", price: 100 + Double(i), confidence: 0.5, stopLoss: 95,
                    takeProfit: 110, detailsJSON: "{\"rsi\":\(30 + i)}"))
        }
        #expect(try store.saveSignals(signals) == 20)
        #expect(try store.loadSignals() == signals)
        #expect(try store.loadSignals(symbols: ["BBB"]) == Array(signals[10...]))
        #expect(try store.loadSignals(model: "other").isEmpty)
        let window = try store.loadSignals(
            symbols: ["AAA"], from: 1_700_000_000 + 2 * 86_400, to: 1_700_000_000 + 4 * 86_400)
        #expect(window == Array(signals[2...4]))

        var revised = signals[3]
        revised.signal = "SELL"
        revised.confidence = 0.9
        try store.saveSignals([revised])
        let stored = try store.loadSignals(symbols: ["AAA"])
        #expect(stored.count == 10)
        #expect(stored[3] == revised)
        #expect(throws: StoreError.self) {
            try store.saveSignals([StoredSignal(model: "sentio", symbol: "", timestamp: 0, signal: "BUY")])
        }
    }

    @Test("fund events: exact decimal amounts, a fund's history replaced as a whole, metadata upserted")
    func fundEvents() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        func day(_ text: String) -> CivilDate { CivilDate(iso: text)! }
        let fundA: [StoredFundEvent] = [
            StoredFundEvent(fundID: "A", date: day("2015-01-15"), kind: .commitment, amount: Decimal(string: "10000000")!),
            StoredFundEvent(
                fundID: "A", date: day("2015-03-01"), kind: .call, amount: Decimal(string: "2500000.10")!,
                dueDate: day("2015-03-15"), status: .paid),
            StoredFundEvent(fundID: "A", date: day("2016-12-31"), kind: .nav, amount: Decimal(string: "2750000.33")!),
            StoredFundEvent(
                fundID: "A", date: day("2017-02-01"), kind: .call, amount: Decimal(string: "0.1")!,
                dueDate: day("2017-02-15"), status: .pending, detailsJSON: #"{"note":"x"}"#),
        ]
        let fundB = [StoredFundEvent(fundID: "B", date: day("2018-01-01"), kind: .distribution, amount: 5)]
        try store.saveFundEvents(
            fundA + fundB,
            metadata: [StoredFundMetadata(fundID: "A", name: "Alpha I", manager: "M", domicile: "DE", vintage: 2015)])
        #expect(try store.loadFundEvents() == fundA + fundB)
        #expect(try store.loadFundEvents(fundIDs: ["B"]) == fundB)
        let total = try store.loadFundEvents(fundIDs: ["A"]).filter { $0.kind == .call }.reduce(Decimal(0)) { $0 + $1.amount }
        #expect(total == Decimal(string: "2500000.2")!)  // exact: 2500000.10 + 0.1

        // Saving fund A again replaces its history; B is untouched; metadata is updated.
        let revisedA = [StoredFundEvent(fundID: "A", date: day("2015-01-15"), kind: .commitment, amount: 12_000_000)]
        try store.saveFundEvents(
            revisedA, metadata: [StoredFundMetadata(fundID: "A", name: "Alpha I (renamed)", vintage: 2015)])
        #expect(try store.loadFundEvents() == revisedA + fundB)
        #expect(try store.loadFundMetadata() == [StoredFundMetadata(fundID: "A", name: "Alpha I (renamed)", vintage: 2015)])

        #expect(throws: StoreError.self) {
            try store.saveFundEvents([StoredFundEvent(fundID: "C", date: day("2020-01-01"), kind: .call, amount: -1)])
        }
        #expect(try store.loadFundEvents(fundIDs: ["C"]).isEmpty)
    }
}
