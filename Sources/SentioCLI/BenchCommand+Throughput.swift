import ArgumentParser
import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Throughput workloads of `sentio bench` (everything but `signals`): one untimed warm-up run, then `repeats`
// timed runs of the same in-memory work; inputs are built (generated or read) before the warm-up and never
// timed, and so are the checksum and the optional dump of the outputs. The head-to-head harness in
// Benchmarks/compare runs the peer on the same input files and compares checksums and dumps.

/// The result of a throughput benchmark; its JSON keys are part of the documented interface.
struct ThroughputReport: Equatable {
    var workload: String
    /// Work items per run, in the workload's unit (rows, values, rows, series, bars per symbol).
    var size: Int
    var repeats: Int
    var medianSeconds: Double
    var minSeconds: Double
    var maxSeconds: Double
    /// Work items per second at the median time (`units / medianSeconds`; units are documented per workload).
    var throughputPerSecond: Double
    /// The workload's documented reduction of its outputs, for agreement checks with a peer.
    var checksum: Double

    /// The report as JSON, keys in the documented order; non-finite numbers are written as null.
    var json: String {
        func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
        let fields: [(String, String)] = [
            ("workload", "\"\(workload)\""), ("size", String(size)), ("repeats", String(repeats)),
            ("medianSeconds", number(medianSeconds)), ("minSeconds", number(minSeconds)),
            ("maxSeconds", number(maxSeconds)), ("throughputPerSecond", number(throughputPerSecond)),
            ("checksum", number(checksum)),
        ]
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}"
    }
}

/// One throughput workload: the timed body and what to do with its output afterwards.
struct ThroughputWorkload<Output> {
    /// What the work items are called in the table ("rows", "values", "windows", ...).
    var unit: String
    /// Work items per run (the throughput's numerator).
    var units: Int
    /// The timed work.
    var run: () throws -> Output
    /// The documented reduction of an output (not timed).
    var checksum: (Output) -> Double
    /// Per-element outputs for `--dump` (not timed), or nil when the workload has none.
    var dumpValues: ((Output) -> [Double])? = nil
}

/// Runs `workload` once untimed, then `repeats` times timed with the monotonic clock.
///
/// Each run's output is released after the clock is read, so deallocation is never timed. The checksum of
/// every run must be identical (the work is deterministic); a difference is an internal error.
func measureThroughput<Output>(
    _ workload: ThroughputWorkload<Output>, name: String, size: Int, repeats: Int, dumpPath: String?
) throws -> ThroughputReport {
    let warmUp = try workload.run()
    let checksum = workload.checksum(warmUp)
    if let dumpPath {
        guard let values = workload.dumpValues?(warmUp) else {
            throw UsageError("--dump: workload '\(name)' has no per-element outputs to dump")
        }
        try writeFloat64(values, to: dumpPath)
    }
    var times: [Double] = []
    for _ in 0..<repeats {
        let start = monotonicNanoseconds()
        let output = try workload.run()
        let end = monotonicNanoseconds()
        times.append(Double(end &- start) / 1e9)
        let again = workload.checksum(output)
        guard again.bitPattern == checksum.bitPattern || (again.isNaN && checksum.isNaN) else {
            throw BenchInternalError("workload '\(name)' is not deterministic: checksum \(again) after \(checksum)")
        }
    }
    times.sort()
    let median = times.count % 2 == 1
        ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
    return ThroughputReport(
        workload: name, size: size, repeats: repeats, medianSeconds: median, minSeconds: times.first!,
        maxSeconds: times.last!, throughputPerSecond: Double(workload.units) / median, checksum: checksum)
}

/// An internal failure of a benchmark (exit code 1).
struct BenchInternalError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Neumaier-compensated sum of the finite values of `values` (NaN and ±∞ skipped): the checksum reduction.
///
/// Compensated so that the result is within a few ulps of the exact sum whatever the order, and so matches
/// Python's `math.fsum` over the same finite values (the harness's reduction) to about 1e-15 relative.
func compensatedFiniteSum(_ values: some Sequence<Double>) -> Double {
    var sum = 0.0, compensation = 0.0
    for x in values where x.isFinite {
        let t = sum + x
        if abs(sum) >= abs(x) { compensation += (sum - t) + x } else { compensation += (x - t) + sum }
        sum = t
    }
    return sum + compensation
}

/// Writes `values` as raw little-endian IEEE-754 float64 (numpy `fromfile(path, "<f8")`), atomically.
func writeFloat64(_ values: [Double], to path: String) throws {
    try AtomicFile.write(path: path) { writer in
        var chunk: [UInt8] = []
        chunk.reserveCapacity(8 * 65_536)
        for (i, x) in values.enumerated() {
            withUnsafeBytes(of: x.bitPattern.littleEndian) { chunk.append(contentsOf: $0) }
            if chunk.count >= 8 * 65_536 || i == values.count - 1 {
                writer.append(contentsOf: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
    }
}

// MARK: - Inputs

/// Inputs of the throughput workloads: read from `--input` files, or generated deterministically.
struct BenchInputs {
    var paths: [String]
    var seed: UInt64

    /// The bars of `paths` (files in the order given; a directory stands for its CSV files sorted by symbol),
    /// or `symbols` generated minute series of `bars` bars.
    func series(generatedSymbols symbols: Int, generatedBars bars: Int) throws -> [OHLCVSeries] {
        if paths.isEmpty {
            return try MarketGenerator(config: MarketConfig(
                symbols: MarketConfig.firstSymbols(symbols), bars: bars, frequency: .minute, seed: seed)).generate()
        }
        return try OHLCVReader.readAll(paths: paths)
    }

    /// The first `count` values of one column of the inputs' series, concatenated in input order (generated:
    /// the 12-symbol minute market of `ceil(count / 12)` bars per symbol, concatenated in universe order).
    func concatenatedColumn(_ column: KeyPath<OHLCVSeries, [Double]>, count: Int) throws -> [Double] {
        let all = try series(generatedSymbols: 12, generatedBars: (count + 11) / 12)
        var values: [Double] = []
        values.reserveCapacity(count)
        for s in all where values.count < count {
            values.append(contentsOf: s[keyPath: column].prefix(count - values.count))
        }
        guard values.count == count else {
            throw UsageError("--size \(count) needs \(count) values, the inputs hold only \(values.count) bars")
        }
        return values
    }
}

// MARK: - Workloads

enum ThroughputWorkloads {
    /// Default sizes, as in the head-to-head table.
    static func defaultSize(_ workload: BenchWorkload) -> Int {
        switch workload {
        case .csv, .rollingOLS: 1_000_000
        case .rsi, .volumeRatio, .sma, .rollingStd: 10_000_000
        case .rsiMany, .emaMany, .atrMany, .macdMany, .bbandsMany, .stochMany, .adxMany: 1_000_000
        case .xirr: 100_000
        case .backtestRSI, .backtestSentio: 1_000_000
        case .signals: 0
        }
    }

    static let rsiPeriod = 14
    static let volumeWindow = 20
    static let regressionWindow = 60
    static let regressionLags = [1, 2, 3]

    /// `csv`: `OHLCVReader.read` of one file (parse + validation + columns). Units: rows. Checksum: compensated
    /// sum of the close column. Dump: the close column. Without `--input`, a file of `size` generated TQQQ
    /// minute bars (the bytes of `sentio generate --symbols TQQQ --freq minute`) is written to a temporary
    /// directory first.
    static func csv(inputs: BenchInputs, size: Int?) throws -> (ThroughputWorkload<OHLCVSeries>, Int, generatedDirectory: String?) {
        let path: String
        var generatedDirectory: String?
        if let given = inputs.paths.first {
            guard inputs.paths.count == 1 else { throw UsageError("--input: the csv workload reads exactly one file") }
            path = given
        } else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("sentio-bench-csv-\(getpid())").path
            let generator = try MarketGenerator(config: MarketConfig(
                symbols: ["TQQQ"], bars: size ?? defaultSize(.csv), frequency: .minute, seed: inputs.seed))
            generatedDirectory = directory
            path = try generator.write(to: directory)[0]
        }
        let rows = try OHLCVReader.read(path: path).count
        if let size, size != rows {
            throw UsageError("--size \(size) does not match \(path), which has \(rows) rows")
        }
        let workload = ThroughputWorkload<OHLCVSeries>(
            unit: "rows", units: rows, run: { try OHLCVReader.read(path: path) },
            checksum: { compensatedFiniteSum($0.close) }, dumpValues: { $0.close })
        return (workload, rows, generatedDirectory)
    }

    /// `rsi`: `relativeStrengthIndex(closes, period: 14)` over `size` closes (batch, TA-Lib definition).
    /// Units: values. Checksum: compensated sum of the valid RSI values. Dump: all values (NaN before index 14).
    static func rsi(inputs: BenchInputs, size: Int) throws -> ThroughputWorkload<IndicatorSeries> {
        let closes = try inputs.concatenatedColumn(\.close, count: size)
        return ThroughputWorkload(
            unit: "values", units: size, run: { relativeStrengthIndex(closes, period: rsiPeriod) },
            checksum: { compensatedFiniteSum($0.validValues) }, dumpValues: { $0.values })
    }

    /// `volume-ratio`: `volumeRatio(volumes, window: 20)` over `size` volumes. Units: values. Checksum:
    /// compensated sum of the finite ratios. Dump: all values.
    static func volumeRatioWorkload(inputs: BenchInputs, size: Int) throws -> ThroughputWorkload<IndicatorSeries> {
        let volumes = try inputs.concatenatedColumn(\.volume, count: size)
        return ThroughputWorkload(
            unit: "values", units: size, run: { try volumeRatio(volumes, window: volumeWindow) },
            checksum: { compensatedFiniteSum($0.validValues) }, dumpValues: { $0.values })
    }

    /// `rolling-ols`: `rollingRegression(y, regressors: [x1, x2, x3], window: 60)` over `size` rows, where from
    /// `size + 4` closes `c`, `r[i] = log(c[i+1]/c[i])`, `y[t] = r[t+3]` and `xj[t] = r[t+3−j]` (j = 1, 2, 3):
    /// a regression of the log return on its three previous values. Units: windows (`size − 59`). Checksum:
    /// compensated sum of all finite coefficients (intercept and slopes). Dump: the coefficients row-major,
    /// `size × 4` (intercept, b1, b2, b3; NaN where no estimate).
    static func rollingOLS(inputs: BenchInputs, size: Int) throws -> ThroughputWorkload<RollingRegressionSeries> {
        guard size >= regressionWindow else {
            throw UsageError("--size must be at least the window (\(regressionWindow)) for rolling-ols, got \(size)")
        }
        let design = try regressionDesign(inputs: inputs, rows: size)
        return ThroughputWorkload(
            unit: "windows", units: size - regressionWindow + 1,
            run: { rollingRegression(design.y, regressors: design.x, window: regressionWindow) },
            checksum: { result in
                compensatedFiniteSum(result.coefficients.lazy.flatMap { $0 })
            },
            dumpValues: { result in
                let p = result.coefficients.count
                var rowMajor = [Double](repeating: .nan, count: size * p)
                for j in 0..<p { for t in 0..<size { rowMajor[t * p + j] = result.coefficients[j][t] } }
                return rowMajor
            })
    }

    static func regressionDesign(inputs: BenchInputs, rows: Int) throws -> (y: [Double], x: [[Double]]) {
        let closes = try inputs.concatenatedColumn(\.close, count: rows + 4)
        let returns = (0..<(rows + 3)).map { Foundation.log(closes[$0 + 1] / closes[$0]) }
        let y = Array(returns[3..<(rows + 3)])
        let x = regressionLags.map { lag in Array(returns[(3 - lag)..<(rows + 3 - lag)]) }
        return (y, x)
    }
}

// MARK: - Command plumbing

extension BenchCommand {
    /// Option checks for the throughput workloads (exit code 2 on failure).
    func validateThroughput(_ kind: BenchWorkload) throws {
        // Options of the signals workload are errors here, never silently ignored.
        for (flag, given) in [("--bars", bars != nil), ("--warmup", warmup != nil), ("--data", !data.isEmpty)] where given {
            throw ValidationError("\(flag) applies to the signals workload, not to \(kind.rawValue) (use --size and --input)")
        }
        if let size, size < 1 { throw ValidationError("--size must be at least 1, got \(size)") }
        if kind == .rollingOLS, let size, size < ThroughputWorkloads.regressionWindow {
            throw ValidationError("--size must be at least \(ThroughputWorkloads.regressionWindow) (the window) for rolling-ols, got \(size)")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
        if threads != nil, kind != .xirr { throw ValidationError("--threads applies to the xirr workload only") }
        if let repeats, repeats < 1 { throw ValidationError("--repeat must be at least 1, got \(repeats)") }
        guard (1...12).contains(count) else { throw ValidationError("--count must be in 1...12, got \(count)") }
        for path in input where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--input: \(path) does not exist")
        }
    }

    func runThroughput(_ kind: BenchWorkload) throws -> ThroughputReport {
        let inputs = BenchInputs(paths: input, seed: seed)
        let repeatCount = repeats ?? 5
        let name = kind.rawValue
        let n = size ?? ThroughputWorkloads.defaultSize(kind)
        switch kind {
        case .csv:
            let (workload, rows, generatedDirectory) = try ThroughputWorkloads.csv(inputs: inputs, size: size)
            defer { if let generatedDirectory { try? FileManager.default.removeItem(atPath: generatedDirectory) } }
            return try measureThroughput(workload, name: name, size: rows, repeats: repeatCount, dumpPath: dump)
        case .rsi:
            let workload = try ThroughputWorkloads.rsi(inputs: inputs, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .volumeRatio:
            let workload = try ThroughputWorkloads.volumeRatioWorkload(inputs: inputs, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .rollingOLS:
            let workload = try ThroughputWorkloads.rollingOLS(inputs: inputs, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .xirr:
            let (workload, count) = try ThroughputWorkloads.xirrWorkload(
                inputs: inputs, size: size, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
            return try measureThroughput(workload, name: name, size: count, repeats: repeatCount, dumpPath: dump)
        case .backtestRSI:
            let (workload, bars) = try ThroughputWorkloads.backtestRSIWorkload(inputs: inputs, symbols: count, size: n)
            return try measureThroughput(workload, name: name, size: bars, repeats: repeatCount, dumpPath: dump)
        case .backtestSentio:
            let (workload, bars, generatedDirectory) = try ThroughputWorkloads.backtestSentioWorkload(
                inputs: inputs, symbols: count, size: size)
            defer { if let generatedDirectory { try? FileManager.default.removeItem(atPath: generatedDirectory) } }
            return try measureThroughput(workload, name: name, size: bars, repeats: repeatCount, dumpPath: dump)
        case .sma:
            let workload = try ThroughputWorkloads.smaWorkload(inputs: inputs, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .rollingStd:
            let workload = try ThroughputWorkloads.rollingStdWorkload(inputs: inputs, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .rsiMany, .emaMany, .atrMany:
            let workload = try ThroughputWorkloads.manyWorkload(kind, inputs: inputs, symbols: count, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .macdMany, .bbandsMany, .stochMany, .adxMany:
            let workload = try ThroughputWorkloads.taManyWorkload(kind, inputs: inputs, symbols: count, size: n)
            return try measureThroughput(workload, name: name, size: n, repeats: repeatCount, dumpPath: dump)
        case .signals:
            throw UsageError("signals is not a throughput workload")
        }
    }

    /// The human-readable form of a throughput report.
    func throughputTable(_ report: ThroughputReport, _ kind: BenchWorkload) -> String {
        let unit: String = switch kind {
        case .csv: "rows"
        case .rsi, .volumeRatio, .sma, .rollingStd, .rsiMany, .emaMany, .atrMany, .macdMany, .bbandsMany, .stochMany, .adxMany: "values"
        case .rollingOLS: "windows"
        case .xirr: "series"
        case .backtestRSI, .backtestSentio: "bar-cells"
        case .signals: "updates"
        }
        let source = input.isEmpty ? "generated, seed \(seed)" : input.joined(separator: " ")
        func seconds(_ x: Double) -> String { String(format: "%.6g s", x) }
        return """
            sentio bench \(report.workload): size \(report.size) (\(source)); 1 warm-up run + \(report.repeats) timed runs
            median \(seconds(report.medianSeconds))  min \(seconds(report.minSeconds))  max \(seconds(report.maxSeconds))
            throughput: \(String(format: "%.4g", report.throughputPerSecond)) \(unit)/s (at the median)
            checksum: \(report.checksum)
            """
    }
}
