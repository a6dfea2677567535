import Foundation
import SentioTestSupport
import Testing

@Suite("backtest --benchmark, warnings, runs list/compare/show --signals (issue 19)", .serialized)
struct TearsheetCLITests {
    static var market: String { repositoryRoot.appendingPathComponent("Data/market").path }

    @Test("--benchmark FILE gives its symbol's statistics; an unknown or unalignable benchmark exits 2 with the reason")
    func benchmark() async throws {
        let spxl = repositoryRoot.appendingPathComponent("Data/market/SPXL.csv").path
        let run = try await runSentio(["backtest", Self.market, "--strategy", "rsi", "--benchmark", spxl, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let benchmark = try #require(summary["benchmark"] as? [String: Any])
        #expect(benchmark["symbol"] as? String == "SPXL")
        for key in ["totalReturnPercent", "cagrPercent", "alpha", "beta", "correlation", "informationRatio", "trackingErrorPercent"] {
            #expect((benchmark[key] as? NSNumber)?.doubleValue.isFinite == true, "\(key)")
        }
        // A symbol of the data works too and gives the same numbers as its file.
        let bySymbol = try await runSentio(["backtest", Self.market, "--strategy", "rsi", "--benchmark", "spxl", "--format", "json"])
        #expect(bySymbol.stdout == run.stdout)
        // Not a file, not a symbol, no store.
        let directory = try temporaryDirectory("tearsheet-benchmark")
        let unknown = try await runSentio(["backtest", Self.market, "--strategy", "rsi", "--benchmark", "NOPE"], in: directory)
        #expect(unknown.status == 2 && unknown.stderr.contains("--benchmark NOPE"))
        // A benchmark with no bar in common with the run: exit 2, never a number.
        let later = directory.appendingPathComponent("LATER.csv")
        try "timestamp,open,high,low,close,volume\n2030-01-02,1,1,1,1,1\n2030-01-03,1,2,1,2,1\n2030-01-04,2,2,1,1,1\n"
            .write(to: later, atomically: true, encoding: .utf8)
        let apart = try await runSentio(["backtest", Self.market, "--strategy", "rsi", "--benchmark", later.path])
        #expect(apart.status == 2 && apart.stderr.contains("0 bar(s) in common"), "\(apart.stderr)")
        #expect(apart.stdout.isEmpty)
    }

    @Test("degenerate run: warnings on standard error and in the JSON; no progress output when stderr is not a terminal")
    func warnings() async throws {
        let spxl = repositoryRoot.appendingPathComponent("Data/market/SPXL.csv").path
        let run = try await runSentio(["backtest", spxl, "--strategy", "rsi", "--rsi-lower", "60", "--rsi-upper", "61",
                                 "--commission", "0.05", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let warnings = try #require(summary["warnings"] as? [[String: Any]])
        let codes = warnings.compactMap { $0["code"] as? String }
        #expect(codes.contains("commissions-high"))
        let commissions = (summary["commissionsPaid"] as! NSNumber).doubleValue
        #expect(commissions > 10_000)
        #expect(run.stderr.contains("warning: commissions and fees paid"))
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\r"))
        // A clean run has none.
        let clean = try await runSentio(["backtest", spxl, "--strategy", "buy-and-hold", "--format", "json"])
        let cleanSummary = try JSONSerialization.jsonObject(with: Data(clean.stdout.utf8)) as! [String: Any]
        #expect((cleanSummary["warnings"] as? [Any])?.isEmpty == true && clean.stderr.isEmpty)
    }

    @Test("runs list shows labels; runs compare is a narrow side-by-side table; runs show --signals reads saved signals")
    func runs() async throws {
        let directory = try temporaryDirectory("tearsheet-runs")
        let db = directory.appendingPathComponent("s.sqlite").path
        for (strategy, label) in [("rsi", "rsi on the sample"), ("buy-and-hold", "a very long label that the list shortens")] {
            let r = try await runSentio(["backtest", Self.market, "--strategy", strategy, "--save", "--db", db, "--label", label])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let list = try await runSentio(["runs", "list", "--db", db])
        #expect(list.stdout.contains("rsi on the sample") && list.stdout.contains("a very long label that …"))
        let compare = try await runSentio(["runs", "compare", "1", "2", "--db", db])
        #expect(compare.status == 0, "\(compare.stderr)")
        let lines = compare.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 120 }, "\(lines.map(\.count).max() ?? 0)")
        for row in ["label", "Sharpe", "max drawdown %", "alpha", "beta"] {
            #expect(lines.contains { $0.hasPrefix(row) }, "row \(row)")
        }
        #expect(compare.stdout.contains("--format json"))

        let saved = try await runSentio(["signals", Self.market, "--symbols", "TQQQ,SPXL", "--save", "--db", db, "--format", "json"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let shown = try await runSentio(["runs", "show", "--signals", "--db", db, "--format", "json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let signals = (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as! [String: Any])["signals"] as! [[String: Any]]
        #expect(Set(signals.compactMap { $0["symbol"] as? String }) == ["SPXL", "TQQQ"])
        #expect(signals.allSatisfy { $0["model"] as? String == "sentio" })
        let table = try await runSentio(["runs", "show", "--signals", "--symbols", "TQQQ", "--db", db])
        #expect(table.stdout.contains("TQQQ") && !table.stdout.contains("SPXL"))
        #expect(try await runSentio(["runs", "show", "--db", db]).status == 2)
        #expect(try await runSentio(["runs", "show", "1", "--signals", "--db", db]).status == 2)
    }
}
