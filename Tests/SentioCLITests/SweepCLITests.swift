import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SentioAPI
import SentioTestSupport
import Testing

/// End-to-end tests of `sentio sweep`: the built executable is run as a subprocess.
@Suite("sentio sweep CLI")
struct SweepCLITests {
    static func market() throws -> URL {
        let dir = try temporaryDirectory("sweep-cli").appendingPathComponent("market")
        try BacktestCLITests.writeMarket(dir, symbols: ["AAA", "BBB", "CCC"], bars: 300, seed: 41)
        return dir
    }

    static let rsiGrid = "rsi-period=7,14,21;rsi-lower=20,25,30;rsi-upper=70,80"

    static func run(_ arguments: [String]) async throws -> SentioRun { try await runSentio(arguments) }

    /// The statistics object of each row of a sweep's JSON, and of `backtest --format json`, compared as parsed JSON
    /// values (numbers compared by their text, so equal means bit-identical).
    static func statistics(_ object: APIJSONValue, keys: [String]) -> [String: APIJSONValue] {
        var out: [String: APIJSONValue] = [:]
        for key in keys { out[key] = object[key] }
        return out
    }

    /// Random rows (seeded) of an RSI sweep and of a sentio sweep are bit-identical to `sentio backtest --format json`
    /// with the fixed options plus the row's values.
    @Test func randomRowsMatchBacktest() async throws {
        let data = try Self.market().path
        var rng = SplitMix64(seed: 2016)
        let cases: [(fixed: [String], grid: String)] = [
            (["--strategy", "rsi", "--commission", "0.002"], Self.rsiGrid),
            // A chosen benchmark: each row's benchmark object is the backtest's with the same --benchmark.
            (["--strategy", "rsi", "--benchmark", "BBB"], "rsi-period=7,14;rsi-upper=70,75"),
            (["--strategy", "sentio", "--window", "60"], "horizon=3,5;stop-loss=2:4:1"),
            // Options that are only valid together go in the grid together (the fixed options are validated on their own).
            (["--strategy", "rsi"], "sizing=fraction;fraction=0.25,0.5;slippage-bps=0,5;fractional=true,false"),
        ]
        for (fixed, grid) in cases {
            let sweep = try await Self.run(["sweep", data, "--grid", grid, "--format", "json", "--threads", "2"] + fixed)
            try #require(sweep.status == 0, "\(sweep.stderr)")
            let output = try APIJSONValue.parse(sweep.stdout)
            guard case .array(let rows)? = output["rows"] else { Issue.record("no rows"); continue }
            for _ in 0..<3 {
                let row = rows[Int.random(in: 0..<rows.count, using: &rng)]
                guard let stats = row["statistics"], let parameters = row["parameters"] else { Issue.record("row shape"); continue }
                var arguments = ["backtest", data, "--format", "json"] + fixed
                for field in parameters.fields {
                    guard case .string(let value) = field.value else { continue }
                    if field.key == "fractional" { if value == "true" { arguments.append("--fractional") } } else { arguments += ["--\(field.key)", value] }
                }
                let backtest = try await Self.run(arguments)
                try #require(backtest.status == 0, "\(backtest.stderr)")
                let summary = try APIJSONValue.parse(backtest.stdout)
                let keys = stats.fields.map(\.key)
                #expect(keys.count == 30)
                #expect(stats["benchmark"]?["alpha"] != nil, "a row without benchmark statistics")
                if fixed.contains("--benchmark") { #expect(stats["benchmark"]?["symbol"] == .string("BBB")) }
                #expect(Self.statistics(stats, keys: keys) == Self.statistics(summary, keys: keys), "\(arguments)")
            }
        }
    }

    /// `sweep merge` of the shard files is byte-identical to the unsharded sweep, in every format.
    @Test func mergedShardsEqualTheWholeSweep() async throws {
        let data = try Self.market().path
        let dir = try temporaryDirectory("sweep-shards")
        let base = ["sweep", data, "--strategy", "rsi", "--grid", Self.rsiGrid, "--metric", "total-return"]
        var files: [String] = []
        for k in [3, 1, 2] {
            let file = dir.appendingPathComponent("shard\(k).json").path
            let shard = try await Self.run(base + ["--shard", "\(k)/3", "--format", "json", "--output", file])
            try #require(shard.status == 0, "\(shard.stderr)")
            #expect(shard.stdout.isEmpty)
            files.append(file)
        }
        for format in ["table", "json", "csv"] {
            let whole = try await Self.run(base + ["--format", format])
            let merged = try await Self.run(["sweep", "merge"] + files + ["--format", format])
            try #require(whole.status == 0 && merged.status == 0, "\(whole.stderr)\(merged.stderr)")
            #expect(merged.stdout == whole.stdout, "\(format)")
        }
        let missing = try await Self.run(["sweep", "merge", files[0], files[1]])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing shard 2/3"), "files[0] and files[1] are shards 3 and 1")
        let twice = try await Self.run(["sweep", "merge", files[0], files[0], files[1]])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("given twice"))
        let otherFile = dir.appendingPathComponent("other.json").path
        let other = try await Self.run(base + ["--commission", "0.01", "--shard", "2/3", "--format", "json", "--output", otherFile])
        try #require(other.status == 0)
        let foreign = try await Self.run(["sweep", "merge", files[0], files[2], otherFile])
        #expect(foreign.status == 2)
        #expect(foreign.stderr.contains("differs"))
    }

    @Test func badGridsFailBeforeAnyWork() async throws {
        let data = try Self.market().path
        let cases: [([String], String)] = [
            (["--strategy", "rsi", "--grid", "rsi-perod=7,14"], "rsi-perod is not a backtest option"),
            (["--strategy", "rsi", "--rsi-period", "9", "--grid", "rsi-period=7,14"], "both in the grid and given as --rsi-period"),
            (["--strategy", "rsi", "--grid", "rsi-lower=40,75;rsi-upper=70,80"], "combination 2 (rsi-lower=75, rsi-upper=70) is invalid"),
            (["--strategy", "sentio", "--grid", "window=60,3"], "combination 1 (window=3) is invalid"),
            (["--strategy", "rsi", "--grid", "format=json"], "format is not a strategy option"),
            (["--strategy", "rsi", "--grid", "rsi-period=1:3:0"], "positive step"),
        ]
        for (arguments, message) in cases {
            let run = try await Self.run(["sweep", data] + arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    /// The report's heatmap: one cell per (X, Y) with the metric of the matching row.
    @Test func reportHeatmapMatchesRows() async throws {
        let data = try Self.market().path
        let dir = try temporaryDirectory("sweep-report")
        let report = dir.appendingPathComponent("sweep.html").path
        let run = try await Self.run(["sweep", data, "--strategy", "rsi", "--grid", "rsi-period=7,14,21;rsi-lower=20,30", "--format", "json",
                                "--report", report, "--heatmap", "rsi-lower,rsi-period"])
        try #require(run.status == 0, "\(run.stderr)")
        let output = try APIJSONValue.parse(run.stdout)
        let cells = try HeatmapCellReader.parse(try String(contentsOfFile: report, encoding: .utf8))
        #expect(cells.count == 6)
        guard case .array(let rows)? = output["rows"] else { Issue.record("no rows"); return }
        for row in rows {
            guard case .string(let x)? = row["parameters"]?["rsi-lower"], case .string(let y)? = row["parameters"]?["rsi-period"] else { continue }
            let expected = row["statistics"]?["sharpeRatio"]?.doubleValue.map { "\($0)" } ?? "null"
            #expect(cells["\(x)|\(y)"] == expected)
        }
    }

    /// Saved sweeps read back as the same JSON; the walk-forward output stitches the test windows.
    @Test func saveShowAndWalkForward() async throws {
        let data = try Self.market().path
        let dir = try temporaryDirectory("sweep-save")
        let db = dir.appendingPathComponent("s.sqlite").path
        let run = try await Self.run(["sweep", data, "--strategy", "rsi", "--grid", "rsi-period=7,14;rsi-lower=25,30", "--format", "json",
                                "--walk-forward", "120:60", "--save", "--db", db, "--label", "wf"])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("saved sweep 1"))
        let shown = try await Self.run(["sweep", "show", "1", "--db", db, "--format", "json"])
        #expect(shown.stdout == run.stdout)
        let list = try await Self.run(["sweep", "list", "--db", db])
        #expect(list.stdout.contains("wf"))
        let output = try APIJSONValue.parse(run.stdout)
        guard case .array(let windows)? = output["walkForward"]?["windows"] else { Issue.record("no windows"); return }
        // 300 bars, train 120, test 60: windows start at 0, 60, 120 (120 + 60k < 300 for k = 0, 1, 2).
        #expect(windows.count == 3)
        var capital = 100_000.0
        for w in windows {
            #expect(w["outOfSample"]?["initialCapital"]?.doubleValue == capital)
            capital = w["outOfSample"]?["finalEquity"]?.doubleValue ?? .nan
        }
        #expect(output["walkForward"]?["outOfSample"]?["finalEquity"]?.doubleValue == capital)
    }
}

/// Heatmap cells of a sweep report ("x|y" → data-value), from an XML parse of the whole document.
final class HeatmapCellReader: NSObject, XMLParserDelegate {
    var cells: [String: String] = [:]
    var inHeatmap = false

    static func parse(_ html: String) throws -> [String: String] {
        let parser = XMLParser(data: Data(html.replacingOccurrences(of: "<!DOCTYPE html>\n", with: "").utf8))
        let delegate = HeatmapCellReader()
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return delegate.cells
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "table" { inHeatmap = attributes["data-heatmap"] != nil }
        if inHeatmap, name == "td", let x = attributes["data-x"], let y = attributes["data-y"] { cells["\(x)|\(y)"] = attributes["data-value"] }
    }
}
