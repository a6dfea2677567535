import Foundation
import SentioTestSupport
import Testing

/// Issue 28 part 2 through the built `sentio` binary: AAPL 2000–2013 buy-and-hold from the real unadjusted file
/// under each `--adjust` mode against pandas' adjusted-close computation (Tests/Fixtures/market_files), the split
/// check's error, and a long-form file and an M/D/YYYY file read as they are shipped.
@Suite("Real market files at the command line")
struct MarketFilesCLITests {
    static let folder = fixturePath("market_files")

    static func reference(_ name: String) throws -> Double {
        let text = try String(contentsOfFile: folder + "/reference.csv", encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + ",") })
        return try #require(Double(row.split(separator: ",")[1]))
    }

    /// Total return (a fraction) of `sentio backtest ... --strategy buy-and-hold --fractional --format json`.
    static func buyAndHold(_ arguments: [String]) async throws -> (fraction: Double, adjustment: String?, stderr: String) {
        let run = try await runSentio(["backtest"] + arguments + ["--strategy", "buy-and-hold", "--fractional", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let percent = try #require(json["totalReturnPercent"] as? Double)
        let config = try #require(json["config"] as? [String: Any])
        return (percent / 100, config["adjustment"] as? String, run.stderr)
    }

    static func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(abs(a), abs(b)) }

    @Test("AAPL buy-and-hold under each --adjust mode equals pandas' computation of the same holding")
    func aaplUnderEachMode() async throws {
        let aapl = Self.folder + "/AAPL.csv", actions = Self.folder + "/AAPL_actions.csv"
        // The holding: 100,000 bought at the second bar's open with 0.1 % commission, fractional shares, marked at
        // the last close. The references are pandas' (generate_market_files.py); the tolerance covers the
        // few roundings between the two computations (a relative 1e-12; the returns are about 12.7).
        let total = try await Self.buyAndHold([aapl])
        #expect(Self.relative(total.fraction, try Self.reference("aapl_buy_and_hold_total_net")) < 1e-12)
        #expect(total.adjustment?.hasPrefix("total") == true)
        let explicitTotal = try await Self.buyAndHold([aapl, "--adjust", "total"])
        #expect(explicitTotal.fraction == total.fraction)
        let splits = try await Self.buyAndHold([aapl, "--adjust", "splits"])
        let splitsGross = try Self.reference("aapl_buy_and_hold_splits_gross")
        #expect(Self.relative(1 + splits.fraction, (1 + splitsGross) / 1.001) < 1e-12)
        #expect(splits.adjustment?.hasPrefix("splits") == true)
        let none = try await Self.buyAndHold([aapl, "--adjust", "none"])
        let unadjustedGross = try Self.reference("aapl_buy_and_hold_unadjusted_gross")
        #expect(Self.relative(1 + none.fraction, (1 + unadjustedGross) / 1.001) < 1e-12)
        #expect(none.adjustment?.hasPrefix("none") == true)
        let withActions = try await Self.buyAndHold([aapl, "--actions", actions])
        #expect(Self.relative(withActions.fraction, try Self.reference("aapl_buy_and_hold_actions_net")) < 1e-12)
        #expect(withActions.adjustment?.contains("applied to holdings") == true)
    }

    @Test("an unadjusted file with a split: exit 2 naming file, line, dates, ratio and how to proceed")
    func splitCheck() async throws {
        let directory = try temporaryDirectory("cli-split")
        let text = try String(contentsOfFile: Self.folder + "/AAPL.csv", encoding: .utf8)
        let raw = text.split(separator: "\n").map { $0.split(separator: ",").prefix(6).joined(separator: ",") }.joined(separator: "\n")
        let path = directory.appendingPathComponent("AAPL.csv").path
        try Data(raw.utf8).write(to: URL(fileURLWithPath: path))
        let line = try #require(raw.split(separator: "\n").firstIndex { $0.hasPrefix("2000-06-21,") }) + 1
        for command in [["backtest", path, "--strategy", "buy-and-hold"], ["indicators", path], ["signals", path]] {
            let run = try await runSentio(command)
            #expect(run.status == 2, "\(command)")
            #expect(run.stderr.contains("AAPL.csv:\(line): AAPL: from 2000-06-20 (line \(line - 1)) to 2000-06-21"), "\(run.stderr)")
            #expect(run.stderr.contains("2-for-1 split"))
            #expect(run.stderr.contains("--adjust none") && run.stderr.contains("--actions"))
        }
        // --adjust none accepts it (the move is then taken as real: the issue's +238 %).
        let none = try await runSentio(["backtest", path, "--strategy", "buy-and-hold", "--adjust", "none"])
        #expect(none.status == 0)
        // rsi decides on prices: refused on prices with the splits left in, accepted split-adjusted.
        let rsi = try await runSentio(["backtest", path, "--strategy", "rsi", "--actions", Self.folder + "/AAPL_actions.csv"])
        #expect(rsi.status == 2 && rsi.stderr.contains("--adjust splits"), "\(rsi.stderr)")
        let rsiSplits = try await runSentio(
            ["backtest", path, "--strategy", "rsi", "--adjust", "splits", "--actions", Self.folder + "/AAPL_actions.csv"])
        #expect(rsiSplits.status == 0, "\(rsiSplits.stderr)")
        #expect(rsiSplits.stdout.contains("Price adjustment: splits (2 split(s) from"))
    }

    @Test("a long-form file is a universe; M/D/YYYY dates are detected; unused columns are named")
    func layoutsAndDates() async throws {
        let long = try await runSentio(["backtest", Self.folder + "/stocks_2005H1.csv", "--strategy", "buy-and-hold", "--format", "json"])
        #expect(long.status == 0, "\(long.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(long.stdout.utf8)) as? [String: Any])
        #expect(json["symbols"] as? [String] == ["AAPL", "IBM", "MSFT"])
        let sp = try await runSentio(["indicators", Self.folder + "/SP500_1999.csv"])
        #expect(sp.status == 0, "\(sp.stderr)")
        #expect(sp.stderr.contains("dates read as %m/%d/%Y"))
        let bars = Int(try Self.reference("sp500_1999_bars"))
        #expect(sp.stdout.split(separator: "\n").count == bars + 1)
        let goog = try await runSentio(["indicators", fixturePath("backtest/goog_daily.csv")])
        #expect(goog.status == 0)
        #expect(goog.stderr.contains("column 'talibRsi14' is not used"))
        // An ambiguous file is refused; --date-format reads it.
        let directory = try temporaryDirectory("cli-dates")
        let path = directory.appendingPathComponent("X.csv").path
        try Data("Date,Open,High,Low,Close,Volume\n1/4/1999,1,1,1,1,0\n2/4/1999,1,1,1,1,0\n".utf8).write(to: URL(fileURLWithPath: path))
        let ambiguous = try await runSentio(["indicators", path])
        #expect(ambiguous.status == 2 && ambiguous.stderr.contains("--date-format"))
        let given = try await runSentio(["indicators", path, "--date-format", "%d/%m/%Y"])
        #expect(given.status == 0 && given.stdout.contains("1999-04-01"), "\(given.stdout)")
    }
}
