import SentioContractDecoders
import Foundation
import SentioCore
import SentioData
import SentioTestSupport
import Testing

// `sentio live` and `sentio live show` print contracts: their output, from the built executable, decodes with the
// strict decoders written from issue 12's field lists.

/// Runs the built `sentio` with `stdin` as its standard input; its exit status and standard output.
private func run(_ arguments: [String], stdin: URL? = nil) async throws -> (status: Int32, stdout: String) {
    let run = try await runSentio(arguments, stdin: stdin)
    return (run.status, run.stdout)
}

@Suite("live show prints contracts")
struct LiveShowContractTests {
    @Test func liveOutputsDecodeWithTheStrictDecoders() async throws {
        let series = try MarketGenerator(config: MarketConfig(
            symbols: ["TQQQ", "SQQQ"], bars: 400, frequency: .minute, seed: 17,
            start: CivilDate(iso: "2024-03-04")!)).generate()
        var writer = ByteWriter()
        NDJSONBars.encode(timeline: series, into: &writer)
        let dir = try temporaryDirectory("live-show")
        let feed = dir.appendingPathComponent("feed.ndjson")
        try Data(writer.bytes).write(to: feed)
        let db = dir.appendingPathComponent("s.sqlite").path

        let live = try await run(["live", "--db", db, "--symbols", "TQQQ,SQQQ"], stdin: feed)
        #expect(live.status == 0)
        var updates = 0
        for line in live.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object?["type"] as? String == "signal_update" {
                _ = try Strict.decode(StrictLiveMessage.self, String(line))
                updates += 1
            }
        }
        #expect(updates > 0)

        let portfolio = try await run(["live", "show", "portfolio", "--db", db])
        #expect(portfolio.status == 0)
        let decodedPortfolio = try Strict.decode(StrictPortfolio.self, portfolio.stdout)
        #expect(decodedPortfolio.initialCapital == 100_000)

        let signals = try await run(["live", "show", "signals", "--db", db])
        #expect(signals.status == 0)
        let decodedSignals = try Strict.decode(StrictSignalsResponse.self, signals.stdout)
        #expect(decodedSignals.signals.count + decodedSignals.warmingUp.count == 2)

        let trades = try await run(["live", "show", "trades", "--db", db])
        #expect(trades.status == 0)
        let history = try Strict.decode(StrictTradeHistory.self, trades.stdout)
        #expect(history.totalTrades == history.trades.count && history.totalTrades > 0)

        // CSV: a header of the Trade fields, `id` first, and one row per trade with the same ids.
        let csv = try await run(["live", "show", "trades", "--db", db, "--format", "csv"])
        #expect(csv.status == 0)
        let rows = csv.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first == ["id", "symbol", "entryPrice", "exitPrice", "shares", "entryTime", "exitTime", "pnl", "pnlPercent", "signalType"])
        #expect(rows.dropFirst().map { UUID(uuidString: $0[0]) } == history.trades.map(\.id))

        // Formats a command cannot write are usage errors.
        await #expect(try run(["live", "show", "portfolio", "--db", db, "--format", "csv"]).status == 2)
    }
}
