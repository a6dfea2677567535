import Foundation
import SentioCore
import SentioData
import SentioIndicators

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
public struct ThroughputReport: Sendable, Equatable {
    public var workload: String
    /// Work items per run, in the workload's unit (rows, values, rows, series, bars per symbol).
    public var size: Int
    public var repeats: Int
    public var medianSeconds: Double
    public var minSeconds: Double
    public var maxSeconds: Double
    /// Work items per second at the median time (`units / medianSeconds`; units are documented per workload).
    public var throughputPerSecond: Double
    /// The workload's documented reduction of its outputs, for agreement checks with a peer.
    public var checksum: Double

    /// The report as JSON, keys in the documented order; non-finite numbers are written as null.
    public var json: String {
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
            throw BenchInputError("--dump: workload '\(name)' has no per-element outputs to dump")
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
    let median = median(sorted: times)!
    return ThroughputReport(
        workload: name, size: size, repeats: repeats, medianSeconds: median, minSeconds: times.first!,
        maxSeconds: times.last!, throughputPerSecond: Double(workload.units) / median, checksum: checksum)
}

/// Neumaier-compensated sum of the finite values of `values` (NaN and ±∞ skipped): the checksum reduction.
///
/// Compensated so that the result is within a few ulps of the exact sum whatever the order, and so matches
/// Python's `math.fsum` over the same finite values (the harness's reduction) to about 1e-15 relative.
public func compensatedFiniteSum(_ values: some Sequence<Double>) -> Double {
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
public struct BenchInputs: Sendable {
    public var paths: [String]
    public var seed: UInt64

    public init(paths: [String], seed: UInt64) {
        self.paths = paths
        self.seed = seed
    }

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
            throw BenchInputError("--size \(count) needs \(count) values, the inputs hold only \(values.count) bars")
        }
        return values
    }
}

// MARK: - Workloads

/// The throughput workloads: each builds its inputs (untimed) and returns the timed body with its checksum.
public enum ThroughputWorkloads {
    static let rsiPeriod = 14
    static let volumeWindow = 20
    /// The rolling-ols window (rows).
    public static let regressionWindow = 60
    static let regressionLags = [1, 2, 3]

    /// `csv`: `OHLCVReader.read` of one file (parse + validation + columns). Units: rows. Checksum: compensated
    /// sum of the close column. Dump: the close column. Without `--input`, a file of `size` generated TQQQ
    /// minute bars (the bytes of `sentio generate --symbols TQQQ --freq minute`) is written to a temporary
    /// directory first.
    static func csv(inputs: BenchInputs, size: Int?) throws -> (ThroughputWorkload<OHLCVSeries>, Int, generatedDirectory: String?) {
        let path: String
        var generatedDirectory: String?
        if let given = inputs.paths.first {
            guard inputs.paths.count == 1 else { throw BenchInputError("--input: the csv workload reads exactly one file") }
            path = given
        } else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("sentio-bench-csv-\(getpid())").path
            let generator = try MarketGenerator(config: MarketConfig(
                symbols: ["TQQQ"], bars: size ?? BenchWorkload.csv.defaultSize, frequency: .minute, seed: inputs.seed))
            generatedDirectory = directory
            path = try generator.write(to: directory)[0]
        }
        let rows = try OHLCVReader.read(path: path).count
        if let size, size != rows {
            throw BenchInputError("--size \(size) does not match \(path), which has \(rows) rows")
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
            throw BenchInputError("--size must be at least the window (\(regressionWindow)) for rolling-ols, got \(size)")
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

// MARK: - Running a workload

/// A throughput benchmark as asked for: which workload, how much work, how many timed runs, and the inputs.
public struct ThroughputRequest: Sendable {
    public var workload: BenchWorkload
    /// Work per run (`nil`: the workload's ``BenchWorkload/defaultSize``, or the whole input files).
    public var size: Int?
    /// Timed runs after the untimed warm-up run.
    public var repeats: Int
    public var inputs: BenchInputs
    /// Inputs used by the multi-series and backtest workloads (the first `count`).
    public var count: Int
    /// Worker threads of the xirr workload.
    public var threads: Int
    /// Where to write the warm-up run's per-element outputs (raw little-endian float64), if anywhere.
    public var dumpPath: String?

    public init(
        workload: BenchWorkload, size: Int? = nil, repeats: Int = 5, inputs: BenchInputs, count: Int = 12,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, dumpPath: String? = nil
    ) {
        self.workload = workload
        self.size = size
        self.repeats = repeats
        self.inputs = inputs
        self.count = count
        self.threads = threads
        self.dumpPath = dumpPath
    }

    /// Builds the inputs, runs the warm-up and the timed runs, and reports.
    ///
    /// - Throws: ``BenchInputError`` for inputs that do not fit the request, ``BenchInternalError`` when a run's
    ///   checksum differs from the warm-up's.
    public func run() throws -> ThroughputReport {
        let name = workload.rawValue
        let n = size ?? workload.defaultSize
        func measure<Output>(_ body: ThroughputWorkload<Output>, size: Int) throws -> ThroughputReport {
            try measureThroughput(body, name: name, size: size, repeats: repeats, dumpPath: dumpPath)
        }
        switch workload {
        case .csv:
            let (body, rows, generatedDirectory) = try ThroughputWorkloads.csv(inputs: inputs, size: size)
            defer { if let generatedDirectory { try? FileManager.default.removeItem(atPath: generatedDirectory) } }
            return try measure(body, size: rows)
        case .rsi: return try measure(try ThroughputWorkloads.rsi(inputs: inputs, size: n), size: n)
        case .volumeRatio: return try measure(try ThroughputWorkloads.volumeRatioWorkload(inputs: inputs, size: n), size: n)
        case .rollingOLS: return try measure(try ThroughputWorkloads.rollingOLS(inputs: inputs, size: n), size: n)
        case .xirr:
            let (body, series) = try ThroughputWorkloads.xirrWorkload(inputs: inputs, size: size, threads: threads)
            return try measure(body, size: series)
        case .backtestRSI:
            let (body, bars) = try ThroughputWorkloads.backtestRSIWorkload(inputs: inputs, symbols: count, size: n)
            return try measure(body, size: bars)
        case .backtestSentio:
            let (body, bars, generatedDirectory) = try ThroughputWorkloads.backtestSentioWorkload(
                inputs: inputs, symbols: count, size: size)
            defer { if let generatedDirectory { try? FileManager.default.removeItem(atPath: generatedDirectory) } }
            return try measure(body, size: bars)
        case .sma: return try measure(try ThroughputWorkloads.smaWorkload(inputs: inputs, size: n), size: n)
        case .rollingStd: return try measure(try ThroughputWorkloads.rollingStdWorkload(inputs: inputs, size: n), size: n)
        case .rsiMany, .emaMany, .atrMany:
            return try measure(try ThroughputWorkloads.manyWorkload(workload, inputs: inputs, symbols: count, size: n), size: n)
        case .macdMany, .bbandsMany, .stochMany, .adxMany:
            return try measure(try ThroughputWorkloads.taManyWorkload(workload, inputs: inputs, symbols: count, size: n), size: n)
        case .signals:
            throw BenchInputError("signals is not a throughput workload")
        }
    }
}

extension ThroughputReport {
    /// The human-readable form of the report; `source` says where the inputs came from.
    public func table(unit: String, source: String) -> String {
        func seconds(_ x: Double) -> String { String(format: "%.6g s", x) }
        return """
            sentio bench \(workload): size \(size) (\(source)); 1 warm-up run + \(repeats) timed runs
            median \(seconds(medianSeconds))  min \(seconds(minSeconds))  max \(seconds(maxSeconds))
            throughput: \(String(format: "%.4g", throughputPerSecond)) \(unit)/s (at the median)
            checksum: \(checksum)
            """
    }
}
