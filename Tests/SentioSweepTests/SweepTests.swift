import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SentioAPI
import SentioApplication
import SentioBacktest
import SentioCore
import SentioReports
import SentioSignals
import SentioTestSupport
@testable import SentioSweep
import Testing


/// A seeded market of `symbols` daily series (weekdays skipped only by spacing: one bar a day) scattered around
/// their levels: SentioTestSupport's walk `.scatteredDaily`.
func randomMarket(symbols: Int, bars: Int, seed: UInt64) throws -> Market {
    try Market(randomMarketSeries(symbols: symbols, bars: bars, start: 1_600_000_000, seed: seed, walk: .scatteredDaily))
}

/// The statistics `sentio backtest --format json` reports for `result` (SentioAPI's `BacktestRunReport`): the
/// summary's figures and its benchmark.
func reportedStatistics(_ result: BacktestResult, _ request: BacktestRequest, benchmark: BacktestBenchmarkChoice = .none) throws -> SweepStatistics {
    let report = try BacktestRunReport(result: result, request: request, source: BacktestDataSource(), benchmark: benchmark)
    return SweepStatistics(statistics: report.summary.statistics, benchmark: report.benchmark)
}

@Suite("Sweep grid")
struct SweepGridTests {
    @Test func rangesStepExactlyInDecimal() throws {
        let grid = try SweepGrid.parse("stop-loss=0.1:0.3:0.1; rsi-period=7:21:7 ;x=-1:1:0.5;y=0.10:0.30:0.05")
        #expect(grid.parameters[0].values == ["0.1", "0.2", "0.3"])
        #expect(grid.parameters[1].values == ["7", "14", "21"])
        #expect(grid.parameters[2].values == ["-1.0", "-0.5", "0.0", "0.5", "1.0"])
        #expect(grid.parameters[3].values == ["0.10", "0.15", "0.20", "0.25", "0.30"])
    }

    /// Property: a range start:stop:step with random decimals gives values v_k whose decimal text equals
    /// start + k × step computed in integer hundredths by the test (independent of the code's scaling).
    @Test func randomRangesMatchIntegerArithmetic() throws {
        var rng = SplitMix64(seed: 1601)
        for _ in 0..<300 {
            let start = Int.random(in: -500...500, using: &rng), step = Int.random(in: 1...80, using: &rng)
            let count = Int.random(in: 1...12, using: &rng)
            let stop = start + step * (count - 1) + Int.random(in: 0..<step, using: &rng)
            func text(_ hundredths: Int) -> String {
                String(format: "%@%d.%02d", hundredths < 0 ? "-" : "", abs(hundredths) / 100, abs(hundredths) % 100)
            }
            let grid = try SweepGrid.parse("p=\(text(start)):\(text(stop)):\(text(step))")
            #expect(grid.parameters[0].values == (0..<count).map { text(start + $0 * step) })
            for v in grid.parameters[0].values { #expect(Decimal(string: v) != nil) }
        }
    }

    /// Property: combination i is the mixed-radix digits of i (last parameter fastest); all combinations distinct.
    @Test func combinationOrderIsMixedRadix() throws {
        var rng = SplitMix64(seed: 77)
        for _ in 0..<40 {
            let sizes = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Int.random(in: 1...4, using: &rng) }
            let grid = try SweepGrid(parameters: sizes.enumerated().map { p, n in
                SweepGridParameter(name: "p\(p)", values: (0..<n).map { "v\($0)" })
            })
            #expect(grid.count == sizes.reduce(1, *))
            var seen = Set<[String]>()
            for i in 0..<grid.count {
                let values = grid.combination(i).values.map(\.value)
                var rest = i, digits = [Int](repeating: 0, count: sizes.count)
                for p in sizes.indices.reversed() { digits[p] = rest % sizes[p]; rest /= sizes[p] }
                #expect(values == digits.map { "v\($0)" })
                seen.insert(values)
            }
            #expect(seen.count == grid.count)
        }
    }

    @Test func malformedGridsAreErrors() {
        for bad in ["", "rsi-period", "=1", "a=1,,2", "a=1;a=2", "a=1,1", "a=3:1:1", "a=1:3:0", "a=1:3", "a=x:3:1", "--a=1"] {
            #expect(throws: SweepGridError.self, "\(bad)") { try SweepGrid.parse(bad) }
        }
    }

    /// Property: the shards 1…N of a grid partition its indices.
    @Test func shardsPartitionTheGrid() throws {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<200 {
            let total = Int.random(in: 1...60, using: &rng), n = Int.random(in: 1...9, using: &rng)
            var all: [Int] = []
            for k in 1...n {
                let shard = try SweepShard(parsing: "\(k)/\(n)")
                let mine = Array(shard.indices(of: total))
                #expect(mine.allSatisfy { $0 % n == k - 1 && shard.contains($0) })
                all += mine
            }
            #expect(all.sorted() == Array(0..<total))
        }
        for bad in ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3"] {
            #expect(throws: SweepShardError.self) { try SweepShard(parsing: bad) }
        }
    }
}

@Suite("Sweep runs")
struct SweepRunTests {
    static func rsiJobs(_ grid: SweepGrid) -> [SweepJob] {
        (0..<grid.count).map { i in
            let p = grid.combination(i)
            return SweepJob(index: i, parameters: p, request: BacktestRequest(
                strategy: .rsi, rsiPeriod: Int(p["rsi-period"]!), rsiLower: Double(p["rsi-lower"]!), rsiUpper: Double(p["rsi-upper"]!)))
        }
    }

    /// Every row equals the plain backtest of its request (the strategy `makeStrategy` builds, no shared series),
    /// summarized by `BacktestRunReport`: bit for bit, with 1 and 3 threads.
    @Test func rowsEqualPlainBacktests() throws {
        let market = try randomMarket(symbols: 3, bars: 300, seed: 11)
        let grid = try SweepGrid.parse("rsi-period=5,9;rsi-lower=25,35;rsi-upper=60,72")
        let jobs = Self.rsiJobs(grid)
        let one = try SweepRunner(threads: 1).run(jobs, on: market)
        let three = try SweepRunner(threads: 3).run(jobs, on: market)
        #expect(one == three)
        for (job, row) in zip(jobs, one) {
            let config = job.request.configuration(symbolCount: 3)
            let result = try Backtest(config).run(try job.request.makeStrategy(), on: market)
            let expected = try reportedStatistics(result, job.request)
            #expect(row.statistics == expected, "combination \(job.index)")
            #expect(row.index == job.index)
        }
    }

    /// The signal model path: two model configurations × two stop-losses share two model runs; rows equal plain runs.
    @Test func signalModelRowsEqualPlainBacktests() throws {
        let market = try randomMarket(symbols: 2, bars: 260, seed: 12)
        var jobs: [SweepJob] = []
        for (k, (horizon, stop)) in [(3, 2.0), (3, 4.0), (5, 2.0), (5, 4.0)].enumerated() {
            var model = SignalModelConfig()
            model.horizon = horizon
            model.regressionWindow = 60
            jobs.append(SweepJob(
                index: k, parameters: SweepParameters([("horizon", "\(horizon)"), ("stop-loss", "\(stop)")]),
                request: BacktestRequest(strategy: .sentio, stopLossPercent: stop, signalModel: model)))
        }
        #expect(SharedWorkKey.groups(jobs).count == 2)
        let rows = try SweepRunner(threads: 2).run(jobs, on: market)
        for (job, row) in zip(jobs, rows) {
            let result = try Backtest(job.request.configuration(symbolCount: 2)).run(try job.request.makeStrategy(), on: market)
            #expect(try reportedStatistics(result, job.request) == row.statistics)
        }
    }

    /// With a benchmark, each row's statistics (its `benchmark` object included) equal the plain backtest's report
    /// against the same benchmark; without one, `Sweep.run` compares with the equal-weight universe, as
    /// `sentio backtest` does by default.
    @Test func rowsCarryTheBacktestsBenchmarkStatistics() throws {
        let market = try randomMarket(symbols: 3, bars: 240, seed: 14)
        let grid = try SweepGrid.parse("rsi-period=5,9;rsi-upper=60,72")
        let jobs = (0..<grid.count).map { i in
            let p = grid.combination(i)
            return SweepJob(index: i, parameters: p, request: BacktestRequest(
                strategy: .rsi, rsiPeriod: Int(p["rsi-period"]!), rsiUpper: Double(p["rsi-upper"]!)))
        }
        let given = BenchmarkSeries(market.series[1])
        for benchmark in [given, nil] {
            let sweep = Sweep(grid: grid, metric: .alpha, shard: nil, strategy: "rsi", options: [], source: BacktestDataSource(), jobs: jobs, benchmark: benchmark)
            let output = try sweep.run(on: market, runner: SweepRunner(threads: 2))
            for row in output.rows {
                let job = jobs[row.index]
                let result = try Backtest(job.request.configuration(symbolCount: 3)).run(try job.request.makeStrategy(), on: market)
                let choice: BacktestBenchmarkChoice = benchmark.map { .given($0) }
                    ?? .standard(BenchmarkSeries.equalWeight(market.series, timeline: result.timestamps))
                let expected = try reportedStatistics(result, job.request, benchmark: choice)
                #expect(row.statistics == expected, "combination \(row.index)")
                #expect(row.statistics.benchmark?.symbol == (benchmark == nil ? BenchmarkSeries.equalWeightName : "S1"))
            }
            // Ranked by alpha, highest first.
            let alphas = output.rows.compactMap { $0.statistics.benchmark?.alpha }
            #expect(alphas.count == output.rows.count && alphas == alphas.sorted(by: >))
            // The CSV carries the benchmark columns, filled.
            let csv = output.csv().split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let alphaColumn = try #require(csv[0].firstIndex(of: "alpha"))
            #expect(csv.dropFirst().allSatisfy { !$0[alphaColumn].isEmpty })
        }
    }

    /// Property: merging random shards of random rows gives the rows of the whole sweep in metric order.
    @Test func mergeOfShardsIsTheWholeSweep() throws {
        let market = try randomMarket(symbols: 2, bars: 200, seed: 13)
        let grid = try SweepGrid.parse("rsi-period=4,8,12;rsi-lower=20,30;rsi-upper=65,75")
        let jobs = Self.rsiJobs(grid)
        // With benchmark statistics, so the alpha and information-ratio metrics rank defined values.
        let benchmark = BenchmarkSeries.equalWeight(market.series, timeline: market.timeline)
        let rows = try SweepRunner(threads: 2).run(jobs, on: market, benchmark: .standard(benchmark))
        #expect(rows.allSatisfy { $0.statistics.benchmark != nil })
        for metric in SweepMetric.allCases {
            let whole = Sweep(grid: grid, metric: metric, shard: nil, strategy: "rsi", options: ["--strategy", "rsi"], source: BacktestDataSource(), jobs: jobs)
                .output(rows: rows, market: market)
            for n in [1, 2, 5] {
                var shards: [(file: String, output: SweepOutput)] = []
                for k in 1...n {
                    let shard = try SweepShard(parsing: "\(k)/\(n)")
                    let mine = rows.filter { shard.contains($0.index) }
                    let out = Sweep(grid: grid, metric: metric, shard: shard, strategy: "rsi", options: ["--strategy", "rsi"], source: BacktestDataSource(), jobs: [])
                        .output(rows: mine, market: market)
                    // Through the JSON form, as files are.
                    shards.append(("s\(k).json", try SweepOutput.read(json: try out.json(), file: "s\(k).json")))
                }
                shards.reverse()
                let merged = try SweepMerge.merge(shards)
                #expect(try merged.json() == whole.json())
                #expect(merged.csv() == whole.csv())
                #expect(merged.table() == whole.table())
            }
            // Rank order: each row's metric is >= the next's (undefined last), ties by index.
            for (a, b) in zip(whole.rows, whole.rows.dropFirst()) {
                switch (metric.value(a.statistics), metric.value(b.statistics)) {
                case let (x?, y?): #expect(x > y || (x == y && a.index < b.index))
                case (nil, nil): #expect(a.index < b.index)
                case (nil, _?): Issue.record("undefined before defined")
                case (_?, nil): break
                }
            }
        }
    }

    @Test func mergeRejectsMissingDuplicateAndForeignShards() throws {
        let market = try randomMarket(symbols: 1, bars: 120, seed: 14)
        let grid = try SweepGrid.parse("rsi-period=4,8;rsi-lower=20,30;rsi-upper=70")
        let rows = try SweepRunner(threads: 1).run(Self.rsiJobs(grid), on: market)
        func shard(_ k: Int, _ n: Int, grid g: SweepGrid = grid, options: [String] = []) throws -> (file: String, output: SweepOutput) {
            let s = try SweepShard(parsing: "\(k)/\(n)")
            let out = Sweep(grid: g, metric: .sharpe, shard: s, strategy: "rsi", options: options, source: BacktestDataSource(), jobs: [])
                .output(rows: rows.filter { s.contains($0.index) }, market: market)
            return ("\(k)of\(n).json", out)
        }
        #expect(throws: SweepFileError.self) { try SweepMerge.merge([try shard(1, 2)]) }
        #expect(throws: SweepFileError.self) { try SweepMerge.merge([try shard(1, 2), try shard(1, 2)]) }
        #expect(throws: SweepFileError.self) { try SweepMerge.merge([try shard(1, 2), try shard(2, 3)]) }
        #expect(throws: SweepFileError.self) { try SweepMerge.merge([try shard(1, 2), try shard(2, 2, options: ["--fee", "1"])]) }
        let other = try SweepGrid.parse("rsi-period=4,9;rsi-lower=20,30;rsi-upper=70")
        #expect(throws: SweepFileError.self) { try SweepMerge.merge([try shard(1, 2), try shard(2, 2, grid: other)]) }
        #expect(try SweepMerge.merge([try shard(2, 2), try shard(1, 2)]).rows.count == 4)
    }
}

@Suite("Walk-forward")
struct WalkForwardTests {
    /// Property: bar windows follow the documented formula (independently enumerated here).
    @Test func barWindowsFollowTheFormula() throws {
        var rng = SplitMix64(seed: 21)
        for _ in 0..<200 {
            let n = Int.random(in: 1...300, using: &rng), r = Int.random(in: 1...80, using: &rng), t = Int.random(in: 1...50, using: &rng)
            let spec = try WalkForwardSpec(parsing: "\(r):\(t)")
            let windows = spec.windows((0..<n).map { Int64($0) * 60 })
            var expected: [(Range<Int>, Range<Int>)] = []
            var k = 0
            while k * t + r < n { expected.append((k * t..<(k * t + r), (k * t + r)..<min(k * t + r + t, n))); k += 1 }
            #expect(windows.map(\.train) == expected.map(\.0))
            #expect(windows.map(\.test) == expected.map(\.1))
        }
    }

    @Test func durationWindowsUseTheCalendar() throws {
        // Daily bars over 2020-01-01 ..< 2022-01-01; train 1y, test 6m: windows test 2021-01 .. 2021-06, 2021-07 .. 2021-12.
        let t0: Int64 = 1_577_836_800
        let timeline = (0..<731).map { t0 + Int64($0) * 86_400 }
        let windows = try WalkForwardSpec(parsing: "1y:6m").windows(timeline)
        #expect(windows.count == 2)
        #expect(iso8601(epochSeconds: timeline[windows[0].test.lowerBound]).hasPrefix("2021-01-01"))
        #expect(iso8601(epochSeconds: timeline[windows[0].test.upperBound - 1]).hasPrefix("2021-06-30"))
        #expect(iso8601(epochSeconds: timeline[windows[1].train.lowerBound]).hasPrefix("2020-07-01"))
        #expect(iso8601(epochSeconds: timeline[windows[1].test.upperBound - 1]).hasPrefix("2021-12-31"))
        for bad in ["1y", "1y:10", "0:5", "2q:1d", "a:b"] {
            #expect(throws: WalkForwardError.self) { try WalkForwardSpec(parsing: bad) }
        }
    }

    /// Stitching: each window's out-of-sample run starts from the previous window's final equity, is the in-sample
    /// best combination, and the stitched curve is the concatenation of the test runs.
    @Test func stitchedEquityCarriesOver() throws {
        let market = try randomMarket(symbols: 2, bars: 400, seed: 22)
        let grid = try SweepGrid.parse("rsi-period=5,10;rsi-lower=25,35;rsi-upper=70")
        let jobs = SweepRunTests.rsiJobs(grid)
        let sweep = Sweep(grid: grid, metric: .totalReturn, shard: nil, strategy: "rsi", options: [], source: BacktestDataSource(), jobs: jobs)
        let out = try sweep.runWalkForward(try WalkForwardSpec(parsing: "150:60"), on: market, runner: SweepRunner(threads: 2))
        let wf = try #require(out.walkForward)
        #expect(wf.windows.count == 5)  // 150 + 60k < 400: k = 0…4
        var capital = 100_000.0
        for w in wf.windows {
            #expect(w.outOfSample.initialCapital == capital)
            capital = w.outOfSample.finalEquity
            // The best in-sample is the first by the metric among all combinations on the train bars.
            let train = try market.slice(steps: (w.window - 1) * 60..<((w.window - 1) * 60 + 150))
            let rows = SweepMetric.totalReturn.sorted(try SweepRunner(threads: 1).run(jobs, on: train, benchmark: sweep.benchmarkChoice(on: train)))
            #expect(rows[0].index == w.best)
            #expect(rows[0].statistics == w.inSample)
        }
        #expect(wf.outOfSample.finalEquity == capital)
        #expect(wf.outOfSample.equity.count == wf.windows.map(\.testBars).reduce(0, +))
        #expect(zip(wf.outOfSample.equity, wf.outOfSample.equity.dropFirst()).allSatisfy { $0.time < $1.time })
        #expect(out.rows.count == grid.count)
    }
}

@Suite("Sweep report")
struct SweepReportTests {
    /// The heatmap has one cell per (X, Y), each holding the best metric over the third parameter, read back from the
    /// parsed XML.
    @Test func heatmapCellsHoldTheMetric() throws {
        let market = try randomMarket(symbols: 2, bars: 250, seed: 31)
        let grid = try SweepGrid.parse("rsi-period=4,8,12;rsi-lower=20,30;rsi-upper=65,75")
        let out = try Sweep(grid: grid, metric: .totalReturn, shard: nil, strategy: "rsi", options: [], source: BacktestDataSource(), jobs: SweepRunTests.rsiJobs(grid))
            .run(on: market, runner: SweepRunner(threads: 2))
        let html = try SweepReport.html(out, heatmap: ("rsi-lower", "rsi-period"))
        let cells = try HeatmapCells.parse(html)
        #expect(cells.count == 6)
        for (key, value) in cells {
            let matching = out.rows.filter { $0.parameters["rsi-lower"] == key.x && $0.parameters["rsi-period"] == key.y }
            let best = matching.map { $0.statistics.totalReturnPercent }.max()!
            #expect(value == best.description)
        }
        #expect(throws: SweepGridError.self) { try SweepReport.html(out, heatmap: ("rsi-lower", "nope")) }
    }
}

/// The heatmap cells of a report: (data-x, data-y) → data-value, from an XML parse of the whole document.
final class HeatmapCells: NSObject, XMLParserDelegate {
    struct Key: Hashable { var x: String, y: String }
    var cells: [Key: String] = [:]
    var inHeatmap = false

    static func parse(_ html: String) throws -> [Key: String] {
        let body = html.replacingOccurrences(of: "<!DOCTYPE html>\n", with: "")
        let parser = XMLParser(data: Data(body.utf8))
        let delegate = HeatmapCells()
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return delegate.cells
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "table" { inHeatmap = attributes["data-heatmap"] != nil }
        if inHeatmap, name == "td", let x = attributes["data-x"], let y = attributes["data-y"], let v = attributes["data-value"] {
            cells[Key(x: x, y: y)] = v
        }
    }
}
