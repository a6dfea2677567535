import Foundation
import SentioTestSupport
import Testing

@testable import Sentio

/// Issue 28's market-file options beyond the batch commands, through the built `sentio` binary: `live` with
/// `--actions` (= `backtest` with the same actions, bit for bit) and its split check bar by bar, `import` of a
/// long-form file, and the default benchmark of `backtest --actions`.
@Suite("Market files: live, import, benchmark")
struct LiveMarketFilesCLITests {
    static let folder = fixturePath("market_files")
    static let actions = folder + "/AAPL_actions.csv"

    /// The AAPL fixture's unadjusted bars as an NDJSON feed.
    static func aaplFeed() throws -> String {
        let series = try OHLCVReader.read(path: folder + "/AAPL.csv", options: ReadOptions(adjust: .none))
        var writer = ByteWriter()
        NDJSONBars.encode(timeline: [series], into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("live with --actions on the raw AAPL bars ends in backtest --actions' portfolio, bit for bit; without them the split bar is rejected")
    func liveWithActionsIsTheBacktest() async throws {
        let directory = try temporaryDirectory("cli-live-actions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let portfolio = directory.appendingPathComponent("portfolio.json").path
        let backtest = try await runSentio([
            "backtest", Self.folder + "/AAPL.csv", "--strategy", "buy-and-hold", "--actions", Self.actions, "--portfolio", portfolio,
        ])
        #expect(backtest.status == 0, "\(backtest.stderr)")
        let feed = try Self.aaplFeed()
        let common = ["live", "--symbols", "AAPL", "--strategy", "buy-and-hold", "--step-timeout", "0"]

        let db = directory.appendingPathComponent("actions.sqlite").path
        let live = try await runLive(common + ["--db", db, "--actions", Self.actions], input: feed)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(!live.stdout.contains(#""type": "rejected""#), "\(live.stdout.split(separator: "\n").filter { $0.contains("rejected") }.prefix(3))")
        let shown = try await runSentio(["live", "show", "portfolio", "--db", db])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == (try String(contentsOfFile: portfolio, encoding: .utf8)))
        // A restart continues with the stored actions (same options: no difference reported).
        let again = try await runLive(common + ["--db", db, "--actions", Self.actions], input: feed)
        #expect(again.status == 0 && again.stderr.contains("0 rejected"), "\(again.stderr)")
        let without = try await runLive(common + ["--db", db], input: "")
        #expect(without.status == 2 && without.stderr.contains("corporateActions: stored AAPL 2000-06-21 split=2.0"), "\(without.stderr)")

        // No actions: the 2-for-1 of 2000-06-21 is a suspected split (and every bar after it, at the new level).
        let unchecked = directory.appendingPathComponent("none.sqlite").path
        let plain = directory.appendingPathComponent("plain.sqlite").path
        let rejecting = try await runLive(common + ["--db", plain], input: feed)
        #expect(rejecting.status == 0, "\(rejecting.stderr)")
        let firstRejection = try #require(rejecting.stdout.split(separator: "\n").first { $0.contains(#""type": "rejected""#) })
        #expect(firstRejection.contains("suspected-split") && firstRejection.contains("AAPL bar at 2000-06-21"), "\(firstRejection)")
        #expect(firstRejection.contains("from 2000-06-20") && firstRejection.contains("2-for-1"), "\(firstRejection)")
        // --adjust none: the move is taken as real (the issue's +238 %), as `backtest --adjust none`.
        let real = try await runLive(common + ["--db", unchecked, "--adjust", "none"], input: feed)
        #expect(real.status == 0 && !real.stdout.contains("suspected-split"))
        let nonePortfolio = directory.appendingPathComponent("none.json").path
        #expect(try await runSentio(["backtest", Self.folder + "/AAPL.csv", "--strategy", "buy-and-hold", "--adjust", "none", "--portfolio", nonePortfolio]).status == 0)
        #expect(try await runSentio(["live", "show", "portfolio", "--db", unchecked]).stdout == (try String(contentsOfFile: nonePortfolio, encoding: .utf8)))
    }

    @Test("live refuses the options a bar-by-bar feed cannot honour, with exit 2 and the reason")
    func liveOptionErrors() async throws {
        let db = try temporaryDirectory("cli-live-options").appendingPathComponent("s.sqlite").path
        let base = ["live", "--db", db, "--symbols", "AAPL"]
        let total = try await runLive(base + ["--adjust", "total"], input: "")
        #expect(total.status == 2 && total.stderr.contains("one at a time"), "\(total.stderr)")
        let format = try await runLive(base + ["--date-format", "%m/%d/%Y"], input: "")
        #expect(format.status == 2 && format.stderr.contains("--follow"), "\(format.stderr)")
        let rsi = try await runLive(base + ["--strategy", "rsi", "--actions", Self.actions], input: "")
        #expect(rsi.status == 2 && rsi.stderr.contains("decides on prices"), "\(rsi.stderr)")
        let missing = try await runLive(base + ["--strategy", "buy-and-hold", "--actions", "/nonexistent/actions.csv"], input: "")
        #expect(missing.status == 2, "\(missing.stderr)")
    }

    @Test("import of a long-form file stores each symbol; the store's backtest equals the file's")
    func importLongForm() async throws {
        let directory = try temporaryDirectory("cli-import-long")
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("s.sqlite").path
        let file = Self.folder + "/stocks_2005H1.csv"
        let imported = try await runSentio(["import", file, "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1 file(s) (3 symbols) into"), "\(imported.stdout)")
        let stored = try SentioDatabase(path: db, mode: .existingOnly).loadSeries()
        let read = try OHLCVReader.readResults(path: file, options: ReadOptions(adjust: .auto)).map(\.series)
        #expect(stored.map(\.symbol) == ["AAPL", "IBM", "MSFT"])
        #expect(stored == read)
        let again = try await runSentio(["import", file, "--db", db])
        #expect(again.status == 0 && again.stdout.contains("3 symbol(s) unchanged"), "\(again.stdout)")
        func totalReturn(_ arguments: [String]) async throws -> Double {
            let run = try await runSentio(["backtest"] + arguments + ["--strategy", "buy-and-hold", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(json["symbols"] as? [String] == ["AAPL", "IBM", "MSFT"])
            return try #require(json["totalReturnPercent"] as? Double)
        }
        #expect(try await totalReturn(["--db", db]) == (try await totalReturn([file])))
    }

    @Test("backtest --actions: the default benchmark holds the shares through the splits and keeps the dividends")
    func benchmarkWithActions() async throws {
        let run = try await runSentio([
            "backtest", Self.folder + "/AAPL.csv", "--strategy", "buy-and-hold", "--actions", Self.actions, "--format", "json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let benchmark = try #require(json["benchmark"] as? [String: Any])
        let percent = try #require(benchmark["totalReturnPercent"] as? Double)
        // Independently: one share bought at the first close, ×2 at each split, the dividends kept in cash.
        let raw = try OHLCVReader.read(path: Self.folder + "/AAPL.csv", options: ReadOptions(adjust: .none))
        let actions = try CorporateActions.read(path: Self.actions)
        var shares = 1.0, cash = 0.0
        for action in actions.actions where action.date > raw.timestamps[0] {
            shares *= action.splitRatio
            cash += shares * action.cashDividend
        }
        let expected = (shares * raw.close.last! + cash) / raw.close[0] - 1
        #expect(abs(percent / 100 - expected) <= 1e-12 * abs(expected), "\(percent / 100) vs \(expected)")
        #expect(abs(percent / 100 - (raw.close.last! / raw.close[0] - 1)) > 1, "not the raw prices' return")
    }
}
