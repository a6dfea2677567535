import SentioCore

/// A workload of `sentio bench`: the `signals` latency workload or one of the throughput workloads.
///
/// Add a case here, its unit and default size below, and a branch in ``ThroughputRequest/run()``.
public enum BenchWorkload: String, CaseIterable, Sendable {
    case signals
    case csv
    case rsi
    case volumeRatio = "volume-ratio"
    case rollingOLS = "rolling-ols"
    case xirr
    case backtestRSI = "backtest-rsi"
    case backtestSentio = "backtest-sentio"
    case sma
    case rollingStd = "rolling-std"
    case rsiMany = "rsi-many"
    case emaMany = "ema-many"
    case atrMany = "atr-many"
    case macdMany = "macd-many"
    case bbandsMany = "bbands-many"
    case stochMany = "stoch-many"
    case adxMany = "adx-many"

    /// Whether this is a throughput workload (warm-up + repeated timed runs, ``ThroughputReport``), as opposed to
    /// the `signals` latency workload (``SignalsBenchmark``).
    public var isThroughput: Bool { self != .signals }

    /// What one work item is (the throughput's unit).
    public var unit: String {
        switch self {
        case .csv: "rows"
        case .rsi, .volumeRatio, .sma, .rollingStd, .rsiMany, .emaMany, .atrMany, .macdMany, .bbandsMany, .stochMany, .adxMany: "values"
        case .rollingOLS: "windows"
        case .xirr: "series"
        case .backtestRSI, .backtestSentio: "bar-cells"
        case .signals: "updates"
        }
    }

    /// Default work per run, as in the head-to-head table (0 for `signals`, which counts bars instead).
    public var defaultSize: Int {
        switch self {
        case .csv, .rollingOLS: 1_000_000
        case .rsi, .volumeRatio, .sma, .rollingStd: 10_000_000
        case .rsiMany, .emaMany, .atrMany, .macdMany, .bbandsMany, .stochMany, .adxMany: 1_000_000
        case .xirr: 100_000
        case .backtestRSI, .backtestSentio: 1_000_000
        case .signals: 0
        }
    }
}

/// The result of the `signals` latency benchmark; its JSON keys are part of the documented interface.
public struct BenchReport: Sendable, Equatable {
    public var symbols: Int
    public var bars: Int
    public var updates: Int
    public var p50Nanoseconds: Double
    public var p90Nanoseconds: Double
    public var p99Nanoseconds: Double
    public var p999Nanoseconds: Double
    public var maxNanoseconds: Double
    public var updatesPerSecond: Double

    /// The report as JSON, keys in the documented order.
    public var json: String {
        func number(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : x.description }
        let fields: [(String, String)] = [
            ("symbols", String(symbols)), ("bars", String(bars)), ("updates", String(updates)),
            ("p50Nanoseconds", number(p50Nanoseconds)), ("p90Nanoseconds", number(p90Nanoseconds)),
            ("p99Nanoseconds", number(p99Nanoseconds)), ("p999Nanoseconds", number(p999Nanoseconds)),
            ("maxNanoseconds", number(maxNanoseconds)), ("updatesPerSecond", number(updatesPerSecond)),
        ]
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}"
    }
}

/// Bad inputs of a benchmark (exit code 2 in the command-line tool): a size that does not match the files, a
/// file of the wrong form, an option the workload cannot use.
public struct BenchInputError: UserInputError {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// An internal failure of a benchmark (exit code 1): the work was not deterministic.
public struct BenchInternalError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
