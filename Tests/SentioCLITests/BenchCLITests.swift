import Foundation
import SentioTestSupport
import Testing

@testable import Sentio
@testable import SentioCLI
import SentioBench



private let sampleFiles = ["TQQQ", "SQQQ"].map { repositoryRoot.appendingPathComponent("Data/market/\($0).csv").path }

private let reportKeys: Set<String> = [
    "workload", "size", "repeats", "medianSeconds", "minSeconds", "maxSeconds", "throughputPerSecond", "checksum",
]

/// Parses a throughput report and checks the invariants every report must satisfy.
private func parseReport(_ stdout: String, workload: String, size: Int, repeats: Int) throws -> [String: Any] {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)")
    #expect(Set(object.keys) == reportKeys)
    #expect(object["workload"] as? String == workload)
    #expect(object["size"] as? Int == size)
    #expect(object["repeats"] as? Int == repeats)
    let minimum = try #require(object["minSeconds"] as? Double)
    let median = try #require(object["medianSeconds"] as? Double)
    let maximum = try #require(object["maxSeconds"] as? Double)
    #expect(minimum > 0 && minimum <= median && median <= maximum)
    let throughput = try #require(object["throughputPerSecond"] as? Double)
    #expect(throughput > 0 && throughput.isFinite)
    #expect(object["checksum"] is NSNumber)
    return object
}

/// Reads a `--dump` file (raw little-endian float64).
private func readDump(_ path: String) throws -> [Double] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(data.count % 8 == 0)
    return stride(from: 0, to: data.count, by: 8).map { offset in
        Double(bitPattern: data[offset..<(offset + 8)].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
    }
}

/// Plain sum of finite values, computed independently of the command's compensated sum.
private func plainFiniteSum(_ values: [Double]) -> Double { values.filter(\.isFinite).reduce(0, +) }

private func sameNaNsAndValues(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.isNaN ? $1.isNaN : $0 == $1 }
}

@Suite("sentio bench throughput workloads")
struct BenchCLITests {
    @Test func csvReadsTheInputFileAndDumpsItsCloses() async throws {
        let dump = try temporaryDirectory().appendingPathComponent("closes.f64").path
        let run = try await runSentio(["bench", "csv", "--input", sampleFiles[0], "--repeat", "2", "--format", "json", "--dump", dump])
        #expect(run.status == 0, "\(run.stderr)")
        let series = try OHLCVReader.read(path: sampleFiles[0])
        let report = try parseReport(run.stdout, workload: "csv", size: series.count, repeats: 2)
        let checksum = try #require(report["checksum"] as? Double)
        expectClose(checksum, plainFiniteSum(series.close), relative: 1e-12)
        #expect(try readDump(dump) == series.close)
    }

    @Test func csvGeneratesItsInputWhenNoneIsGiven() async throws {
        let run = try await runSentio(["bench", "csv", "--size", "300", "--repeat", "1", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "csv", size: 300, repeats: 1)
        let generated = try MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 300, frequency: .minute, seed: 42)).generate()[0]
        // The generator rounds prices to 4 decimals when it writes the CSV.
        let rounded = generated.close.map { ($0 * 10_000).rounded() / 10_000 }
        expectClose(try #require(report["checksum"] as? Double), plainFiniteSum(rounded), relative: 1e-9)
    }

    @Test func rsiOverConcatenatedInputsMatchesTheBatchFunction() async throws {
        let dump = try temporaryDirectory().appendingPathComponent("rsi.f64").path
        let size = 700  // crosses from the first file into the second
        let run = try await runSentio(["bench", "rsi", "--size", "\(size)", "--input", sampleFiles[0], "--input", sampleFiles[1],
                                 "--repeat", "3", "--format", "json", "--dump", dump])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "rsi", size: size, repeats: 3)
        let closes = try Array(sampleFiles.flatMap { try OHLCVReader.read(path: $0).close }.prefix(size))
        let expected = relativeStrengthIndex(closes, period: 14)
        let dumped = try readDump(dump)
        #expect(sameNaNsAndValues(dumped, expected.values))
        let lookbackIsNaN = dumped.prefix(14).allSatisfy { $0.isNaN }
        #expect(lookbackIsNaN && !dumped[14].isNaN)
        expectClose(try #require(report["checksum"] as? Double), plainFiniteSum(expected.values), relative: 1e-12)
    }

    @Test func volumeRatioMatchesTheBatchFunction() async throws {
        let dump = try temporaryDirectory().appendingPathComponent("vr.f64").path
        let run = try await runSentio(["bench", "volume-ratio", "--size", "500", "--input", sampleFiles[0], "--repeat", "1",
                                 "--format", "json", "--dump", dump])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "volume-ratio", size: 500, repeats: 1)
        let volumes = Array(try OHLCVReader.read(path: sampleFiles[0]).volume.prefix(500))
        let expected = try volumeRatio(volumes, window: 20)
        #expect(sameNaNsAndValues(try readDump(dump), expected.values))
        expectClose(try #require(report["checksum"] as? Double), plainFiniteSum(expected.values), relative: 1e-12)
    }

    @Test func rollingOLSRegressesReturnsOnTheirLags() async throws {
        let dump = try temporaryDirectory().appendingPathComponent("ols.f64").path
        let size = 400
        let run = try await runSentio(["bench", "rolling-ols", "--size", "\(size)", "--input", sampleFiles[0], "--repeat", "1",
                                 "--format", "json", "--dump", dump])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "rolling-ols", size: size, repeats: 1)
        #expect(report["throughputPerSecond"] as? Double ?? 0 > 0)
        // The documented design, built here independently: y[t] = r[t+3], xj[t] = r[t+3-j].
        let c = try OHLCVReader.read(path: sampleFiles[0]).close
        let r = (0..<(size + 3)).map { log(c[$0 + 1] / c[$0]) }
        let y = (0..<size).map { r[$0 + 3] }
        let x = [1, 2, 3].map { j in (0..<size).map { r[$0 + 3 - j] } }
        let expected = rollingRegression(y, regressors: x, window: 60)
        let dumped = try readDump(dump)
        #expect(dumped.count == size * 4)
        for t in [59, 200, size - 1] {
            for j in 0..<4 { #expect(dumped[t * 4 + j] == expected.coefficients[j][t]) }
        }
        let warmUpIsNaN = dumped.prefix(59 * 4).allSatisfy { $0.isNaN }
        #expect(warmUpIsNaN)
        let all = expected.coefficients.flatMap { $0 }
        expectClose(try #require(report["checksum"] as? Double), plainFiniteSum(all), relative: 1e-9)
    }

    @Test func xirrSolvesEverySeriesOfTheInputFile() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("flows.csv").path, dump = directory.appendingPathComponent("rates.f64").path
        // Series 0 is the Excel documentation example (0.373362535); series 2 has no sign change (an error: NaN).
        try Data("""
            series,date,amount
            0,2008-01-01,-10000
            0,2008-03-01,2750
            0,2008-10-30,4250
            0,2009-02-15,3250
            0,2009-04-01,2750
            1,2021-01-01,-1000
            1,2022-01-01,1100
            2,2020-01-01,500
            2,2021-01-01,600

            """.utf8).write(to: URL(fileURLWithPath: file))
        let run = try await runSentio(["bench", "xirr", "--input", file, "--threads", "2", "--repeat", "2", "--format", "json", "--dump", dump])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "xirr", size: 3, repeats: 2)
        let rates = try readDump(dump)
        #expect(rates.count == 3)
        expectClose(rates[0], 0.373362535, relative: 1e-8)
        expectClose(rates[1], 0.1, relative: 1e-12)
        #expect(rates[2].isNaN)
        expectClose(try #require(report["checksum"] as? Double), rates[0] + rates[1], relative: 1e-12)
    }

    @Test func xirrGeneratesItsSeriesWhenNoInputIsGiven() async throws {
        let run = try await runSentio(["bench", "xirr", "--size", "50", "--threads", "1", "--repeat", "1", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "xirr", size: 50, repeats: 1)
        let batch = ThroughputWorkloads.generatedXIRRBatch(count: 50, seed: 42)
        #expect(batch.count == 50 && batch.amounts.count == 50 * 24)
        let rates = try (0..<50).map { k in
            let range = batch.offsets[k]..<batch.offsets[k + 1]
            return try xirr(flows: range.map { CashFlow(date: CivilDate(daysSinceEpoch: batch.dayNumbers[$0]), amount: batch.amounts[$0]) }).rate
        }
        expectClose(try #require(report["checksum"] as? Double), plainFiniteSum(rates), relative: 1e-12)
    }

    @Test func backtestRSIChecksumIsTheFinalEquityOfSentioBacktest() async throws {
        let run = try await runSentio(["bench", "backtest-rsi", "--input", "Data/market", "--count", "4", "--size", "500",
                                 "--repeat", "2", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "backtest-rsi", size: 500, repeats: 2)
        #expect(report["throughputPerSecond"] as? Double ?? 0 > 0)
        // The same run through `sentio backtest` on the first 4 sample files cut to 500 bars.
        let directory = try temporaryDirectory()
        let files = try OHLCVReader.readDirectory(repositoryRoot.appendingPathComponent("Data/market").path).prefix(4)
        var paths: [String] = []
        for series in files {
            let path = directory.appendingPathComponent("\(series.symbol).csv").path
            try OHLCVWriter.write(series.prefix(500), to: path)
            paths.append(path)
        }
        let backtest = try await runSentio(["backtest"] + paths + ["--strategy", "rsi", "--sizing", "all-in", "--format", "json"])
        #expect(backtest.status == 0, "\(backtest.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(backtest.stdout.utf8)) as? [String: Any])
        #expect(report["checksum"] as? Double == summary["finalEquity"] as? Double)
    }

    @Test func backtestSentioChecksumIsTheFinalEquityOfSentioBacktest() async throws {
        let run = try await runSentio(["bench", "backtest-sentio", "--input", "Data/market", "--repeat", "1", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try parseReport(run.stdout, workload: "backtest-sentio", size: 504, repeats: 1)
        let backtest = try await runSentio(["backtest", "Data/market", "--format", "json"])
        #expect(backtest.status == 0, "\(backtest.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(backtest.stdout.utf8)) as? [String: Any])
        #expect(report["checksum"] as? Double == summary["finalEquity"] as? Double)
    }

    @Test func tableFormatShowsTheMedianAndThroughput() async throws {
        let run = try await runSentio(["bench", "rsi", "--size", "1000", "--repeat", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("sentio bench rsi: size 1000") && run.stdout.contains("median")
            && run.stdout.contains("values/s"), "\(run.stdout)")
    }

    @Test(arguments: [
        (["bench", "nope"], "unknown workload 'nope'"),
        (["bench", "rsi", "--size", "0"], "--size must be at least 1"),
        (["bench", "csv", "--repeat", "0"], "--repeat must be at least 1"),
        (["bench", "rolling-ols", "--size", "10"], "at least 60"),
        (["bench", "rsi", "--input", "no/such/file.csv"], "no/such/file.csv"),
        (["bench", "rsi", "--size", "600", "--input", "Data/market/TQQQ.csv"], "the inputs hold only 504"),
        (["bench", "csv", "--size", "7", "--input", "Data/market/TQQQ.csv"], "has 504 rows"),
        (["bench", "csv", "--input", "Data/market/TQQQ.csv", "--input", "Data/market/SQQQ.csv"], "exactly one file"),
        (["bench", "signals", "--repeat", "3"], "--repeat applies to the throughput workloads"),
        (["bench", "rsi", "--format", "xml"], "xml"),
        (["bench", "xirr", "--threads", "0"], "--threads must be at least 1"),
        (["bench", "rsi", "--threads", "2"], "--threads applies to the xirr workload only"),
        (["bench", "backtest-sentio", "--input", "Data/market", "--size", "100"], "whose shortest has 504 bars"),
        (["bench", "backtest-rsi", "--input", "Data/market", "--size", "600"], "has only 504 bars"),
        (["bench", "backtest-rsi", "--count", "13"], "--count must be in 1...12"),
        (["bench", "xirr", "--input", "Data/market/TQQQ.csv"], "expected the header 'series,date,amount'"),
        (["bench", "csv", "--bars", "-5"], "--bars applies to the signals workload, not to csv"),
        (["bench", "rsi", "--warmup", "3"], "--warmup applies to the signals workload, not to rsi"),
        (["bench", "xirr", "--data", "Data/market"], "--data applies to the signals workload, not to xirr"),
        (["bench", "signals", "--bars", "1"], "--bars must be at least 2"),
    ])
    func badOptionsExitWith2(arguments: [String], message: String) async throws {
        let run = try await runSentio(arguments)
        #expect(run.status == 2, "\(arguments): status \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func badCSVInputNamesFileAndLine() async throws {
        let file = try temporaryDirectory().appendingPathComponent("BAD.csv").path
        try Data("timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,100\n2024-01-03,1,2,0.5,abc,100\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try await runSentio(["bench", "csv", "--input", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("BAD.csv") && run.stderr.contains("3") && run.stderr.contains("close"), "\(run.stderr)")
    }

    @Test func badXIRRRowNamesFileLineAndField() async throws {
        let file = try temporaryDirectory().appendingPathComponent("flows.csv").path
        try Data("series,date,amount\n0,2020-01-01,-100\n0,2020-13-01,110\n".utf8).write(to: URL(fileURLWithPath: file))
        let run = try await runSentio(["bench", "xirr", "--input", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("flows.csv:3: field 'date'"), "\(run.stderr)")
    }

    @Test func compensatedSumIsExactWhereThePlainSumIsNot() {
        // 1 + 1e-16 * 10 + (-1): the plain left-to-right sum loses the small terms.
        let values = [1.0] + [Double](repeating: 1e-16, count: 10) + [-1.0, .nan, .infinity]
        let small = (0..<10).reduce(0.0) { sum, _ in sum + 1e-16 }
        expectClose(compensatedFiniteSum(values), small, relative: 1e-12)
        #expect(plainFiniteSum(values) == 0)
    }
}

@Suite("SentioBench: the one percentile and median")
struct BenchStatisticsTests {
    @Test("nearest rank: sorted[ceil(q·n) − 1], clamped; never interpolated (seeded samples against a counting oracle)")
    func nearestRank() throws {
        let hundred = Array(1...100)
        #expect(nearestRankPercentile(hundred, 0.5) == 50)
        #expect(nearestRankPercentile(hundred, 0.99) == 99)
        #expect(nearestRankPercentile(hundred, 0.999) == 100)
        #expect(nearestRankPercentile(hundred, 0) == 1)
        #expect(nearestRankPercentile(hundred, 1) == 100)
        #expect(nearestRankPercentile([Int](), 0.5) == nil)
        // Oracle: the smallest sample with at least the fraction q of the samples at or below it.
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let n = 1 + Int(rng.next() % 300)
            let xs = (0..<n).map { _ in Double(rng.next() % 1_000) }.sorted()
            let q = Double(rng.next() % 1_001) / 1_000
            let value = try #require(nearestRankPercentile(xs, q))
            let oracle = xs.first { x in Double(xs.filter { $0 <= x }.count) >= q * Double(n) } ?? xs[0]
            #expect(value == oracle, "n \(n), q \(q)")
            #expect(xs.contains(value))
        }
    }

    @Test("median: the middle value, or the mean of the two middle values")
    func medianOfSorted() {
        #expect(median(sorted: [3]) == 3)
        #expect(median(sorted: [1, 2, 4, 8]) == 3)
        #expect(median(sorted: [1, 2, 4]) == 2)
        #expect(median(sorted: []) == nil)
    }
}
