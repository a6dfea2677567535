import ArgumentParser
import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A latency/throughput workload of `sentio bench`. Add a case here and a branch in `BenchCommand.run()`.
enum BenchWorkload: String, CaseIterable, ExpressibleByArgument {
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

    /// Workloads implemented so far.
    static let available: [BenchWorkload] = allCases

    /// Whether this is a throughput workload (warm-up + repeated timed runs, `ThroughputReport`), as opposed to
    /// the `signals` latency workload.
    var isThroughput: Bool { self != .signals }
}

/// The result of a latency benchmark; its JSON keys are part of the documented interface.
struct BenchReport {
    var symbols: Int
    var bars: Int
    var updates: Int
    var p50Nanoseconds: Double
    var p90Nanoseconds: Double
    var p99Nanoseconds: Double
    var p999Nanoseconds: Double
    var maxNanoseconds: Double
    var updatesPerSecond: Double
}

/// `sentio bench WORKLOAD`: latency benchmarks that users can run on their own machine.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure per-update latency and throughput of an engine workload.",
        discussion: """
            Workloads: \(BenchWorkload.allCases.map(\.rawValue).joined(separator: ", ")).

            signals: builds one streaming signal-model state per symbol, feeds --warmup bars per symbol untimed, then times every further symbol-bar update (indicators + rolling-regression update + Cholesky solve + forecast + signal construction; the English texts are generated lazily at output time and are not timed) with the monotonic clock (clock_gettime CLOCK_MONOTONIC), bars fed tick by tick across symbols.
            It reports the percentiles of the per-update latency (nearest rank; each includes one clock read, ~20 ns) and updates per second from a second, untimed-per-update pass (total updates / total time). The table also shows the full tick (all symbols) latency and the clock overhead.
            Heap allocations per update are counted by the developer tool `sentio-dev allocations`, not here.
            JSON keys: symbols, bars, updates, p50Nanoseconds, p90Nanoseconds, p99Nanoseconds, p999Nanoseconds, maxNanoseconds, updatesPerSecond.

            Throughput workloads (all others): inputs are read (--input) or generated (minute bars, --seed) first, then one untimed warm-up run and --repeat timed runs of the same in-memory work (monotonic clock).
            JSON keys: workload, size, repeats, medianSeconds, minSeconds, maxSeconds, throughputPerSecond (work items per second at the median), checksum (a documented reduction of the outputs, identical in every run; sums are Neumaier-compensated over finite values).
            csv: OHLCVReader.read of one file (parse, validate, build columns); size = rows; checksum = sum of closes.
            rsi: RSI(14) batch over --size closes; checksum = sum of valid values.
            volume-ratio: volume ratio (window 20) over --size volumes; checksum = sum of finite values.
            rsi, volume-ratio and rolling-ols take the column of the --input files concatenated in the order given.
            rolling-ols: rolling OLS, window 60, intercept + 3 regressors: y[t] = r[t+3], xj[t] = r[t+3-j] with r[i] = log(c[i+1]/c[i]) over --size + 4 closes; throughput in windows (size - 59); checksum = sum of all finite coefficients.
            xirr: xirr(batch:threads:) over --size series (Actual/365F, guess 0.1); --input FILE with header series,date,amount (rows grouped by series, dates YYYY-MM-DD, signed amounts), else generated private-equity-like series of 24 monthly flows; checksum = sum of the rates found.
            backtest-rsi: the rsi strategy as `sentio backtest --strategy rsi --sizing all-in` runs it, on the first --count inputs cut to --size bars, in memory (indicators + decisions + simulation + statistics); throughput in bar-cells (symbols x bars); checksum = final equity.
            sma, rolling-std: SMA(20) and rolling standard deviation (window 20, ddof 1) over --size closes; checksum = sum of valid values.
            rsi-many, ema-many, atr-many: RSI(14), EMA(20), ATR(14) of the first --count inputs cut to --size bars, all series at once (SIMD lanes across series); size = bars per series, throughput in values (series x bars); checksum = sum of valid values.
            macd-many, bbands-many, stoch-many, adx-many: the TA-Lib functions MACD, BBANDS, STOCH, ADX with TA-Lib's defaults over each of the first --count inputs cut to --size bars (one series after another, TAFunction.compute); throughput in values (series x bars); checksum = sum of the valid values of every output.
            backtest-sentio: the sentio strategy as `sentio backtest` runs it (default options), end to end with the CSV load (files read concurrently), on whole files (--size must match their length if given); checksum = final equity.
            """
    )

    @Argument(help: ArgumentHelp("What to measure: \(BenchWorkload.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "WORKLOAD"))
    var workload: String

    @Option(help: ArgumentHelp("Number of symbols: the first N of the 12-symbol universe (signals), the first N inputs (backtest-rsi, backtest-sentio).", valueName: "N"))
    var count: Int = 12

    @Option(help: ArgumentHelp("signals: bars per symbol, warm-up included (default: 20000).", valueName: "N"))
    var bars: Int?

    @Option(help: ArgumentHelp("signals: bars per symbol fed before timing starts (default: the model's warm-up plus one regression window, 265 with default parameters).", valueName: "N"))
    var warmup: Int?

    @Option(help: ArgumentHelp("signals: read bars from these CSV files or directories instead of generating minute bars.", valueName: "PATH"))
    var data: [String] = []

    @Option(help: ArgumentHelp("Seed of the generated market (unsigned integer).", valueName: "S"))
    var seed: UInt64 = 42

    @Option(help: ArgumentHelp("Output format: table or json.", valueName: "table|json"))
    var format: OutputFormat = .table

    @OptionGroup(title: "Model parameters (signals workload)")
    var model: SignalModelOptions

    @Option(help: ArgumentHelp(
        "Throughput workloads: work per run (defaults: csv 1000000 rows, rsi and volume-ratio 10000000 values, rolling-ols 1000000 rows, xirr 100000 series, backtest-rsi and backtest-sentio 1000000 bars per symbol).",
        valueName: "N"))
    var size: Int?

    @Option(name: .customLong("repeat"), help: ArgumentHelp(
        "Throughput workloads: timed runs after one untimed warm-up run (default: 5).", valueName: "R"))
    var repeats: Int?

    @Option(help: ArgumentHelp(
        "Throughput workloads: read inputs from this file or directory instead of generating them (OHLCV CSV; xirr: a series,date,amount CSV); repeat for several files, used in the order given.",
        valueName: "PATH"))
    var input: [String] = []

    @Option(help: ArgumentHelp(
        "xirr: worker threads of the batch solver (default: the active processor count).", valueName: "N"))
    var threads: Int?

    @Option(help: ArgumentHelp(
        "csv, rsi, volume-ratio, rolling-ols, xirr: also write the per-element outputs of the warm-up run (not timed) to this file as raw little-endian float64, to check agreement with another implementation.",
        valueName: "FILE"))
    var dump: String?

    func validate() throws {
        try format.require([.table, .json])
        guard let kind = BenchWorkload(rawValue: workload) else {
            throw ValidationError("unknown workload '\(workload)'; workloads: \(BenchWorkload.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard BenchWorkload.available.contains(kind) else {
            throw ValidationError("workload '\(workload)' is not yet available; available: \(BenchWorkload.available.map(\.rawValue).joined(separator: ", "))")
        }
        if kind.isThroughput {
            try validateThroughput(kind)
            return
        }
        for (flag, given) in [("--size", size != nil), ("--repeat", repeats != nil), ("--input", !input.isEmpty), ("--dump", dump != nil), ("--threads", threads != nil)] where given {
            throw ValidationError("\(flag) applies to the throughput workloads, not to signals (use --bars and --data)")
        }
        guard (1...12).contains(count) else { throw ValidationError("--count must be in 1...12, got \(count)") }
        guard signalBars >= 2 else { throw ValidationError("--bars must be at least 2, got \(signalBars)") }
        if let warmup, warmup < 0 || warmup >= signalBars {
            throw ValidationError("--warmup must be in 0..<--bars (\(signalBars)), got \(warmup)")
        }
    }

    /// Bars per symbol of the signals workload.
    var signalBars: Int { bars ?? 20_000 }

    func run() throws {
        switch BenchWorkload(rawValue: workload)! {
        case .signals:
            let result = try SignalsBenchmark(
                config: try model.resolve(), symbols: count, bars: signalBars, warmup: warmup, data: data, seed: seed
            ).run()
            print(format == .json ? BenchCommand.json(result.report) : result.table)
        case let kind:
            let report = try runThroughput(kind)
            print(format == .json ? report.json : throughputTable(report, kind))
        }
    }

    /// The report as JSON, keys in the documented order.
    static func json(_ report: BenchReport) -> String {
        func number(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : x.description }
        let fields: [(String, String)] = [
            ("symbols", String(report.symbols)), ("bars", String(report.bars)), ("updates", String(report.updates)),
            ("p50Nanoseconds", number(report.p50Nanoseconds)), ("p90Nanoseconds", number(report.p90Nanoseconds)),
            ("p99Nanoseconds", number(report.p99Nanoseconds)), ("p999Nanoseconds", number(report.p999Nanoseconds)),
            ("maxNanoseconds", number(report.maxNanoseconds)), ("updatesPerSecond", number(report.updatesPerSecond)),
        ]
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}"
    }
}

// MARK: - The signals workload

/// Per-update latency of the streaming signal model over several symbols.
final class SignalsBenchmark {
    var config: SignalModelConfig
    var symbols: Int
    var bars: Int
    var warmup: Int?
    var data: [String]
    var seed: UInt64

    init(config: SignalModelConfig, symbols: Int, bars: Int, warmup: Int?, data: [String], seed: UInt64) {
        self.config = config
        self.symbols = symbols
        self.bars = bars
        self.warmup = warmup
        self.data = data
        self.seed = seed
    }

    struct Result {
        var report: BenchReport
        var table: String
    }

    /// The bars, the common length and the warm-up length.
    func prepare() throws -> (series: [OHLCVSeries], barCount: Int, warm: Int) {
        let series: [OHLCVSeries]
        if data.isEmpty {
            let market = try MarketGenerator(config: MarketConfig(
                symbols: MarketConfig.firstSymbols(symbols), bars: bars, frequency: .minute, seed: seed))
            series = market.generate()
        } else {
            series = Array(try OHLCVReader.readAll(paths: data).prefix(symbols)).map { $0.prefix(bars) }
        }
        let barCount = series.map(\.count).min() ?? 0
        let warm = warmup ?? Swift.min(config.firstSignalIndex + 1 + config.regressionWindow, barCount - 1)
        guard barCount > warm else {
            throw UsageError("need more than \(warm) bars per symbol (warm-up), the shortest input has \(barCount)")
        }
        return (series, barCount, warm)
    }

    func run() throws -> Result {
        let (series, barCount, warm) = try prepare()
        let feeds: [[Bar]] = series.map { s in (0..<barCount).map { s[bar: $0] } }
        let symbolCount = feeds.count
        let ticks = barCount - warm
        let updates = ticks * symbolCount

        // Pass 1: every update timed on its own.
        var engine = try SignalEngine(config: config)
        let indices = series.map { engine.register(symbol: $0.symbol) }
        var checksum = 0.0
        for i in 0..<warm { for s in 0..<symbolCount { checksum += try engine.update(symbolIndex: indices[s], bar: feeds[s][i]).aiSignal } }
        var latencies = [UInt64](repeating: 0, count: updates)
        try latencies.withUnsafeMutableBufferPointer { out in
            var k = 0
            for i in warm..<barCount {
                for s in 0..<symbolCount {
                    let bar = feeds[s][i]
                    let start = monotonicNanoseconds()
                    let signal = try engine.update(symbolIndex: indices[s], bar: bar)
                    let end = monotonicNanoseconds()
                    out[k] = end &- start
                    k += 1
                    checksum += signal.aiSignal
                }
            }
        }

        // Pass 2: whole ticks (all symbols) timed; gives the tick latency and the throughput.
        var tickEngine = try SignalEngine(config: config)
        let tickIndices = series.map { tickEngine.register(symbol: $0.symbol) }
        for i in 0..<warm { for s in 0..<symbolCount { checksum += try tickEngine.update(symbolIndex: tickIndices[s], bar: feeds[s][i]).aiSignal } }
        var tickLatencies = [UInt64](repeating: 0, count: ticks)
        var total: UInt64 = 0
        try tickLatencies.withUnsafeMutableBufferPointer { out in
            for i in warm..<barCount {
                let start = monotonicNanoseconds()
                for s in 0..<symbolCount {
                    checksum += try tickEngine.update(symbolIndex: tickIndices[s], bar: feeds[s][i]).aiSignal
                }
                let elapsed = monotonicNanoseconds() &- start
                out[i - warm] = elapsed
                total &+= elapsed
            }
        }
        latencies.sort()
        tickLatencies.sort()
        let clockOverhead = measureClockOverhead()

        let perSecond = Double(updates) / (Double(total) / 1e9)
        let report = BenchReport(
            symbols: symbolCount, bars: barCount, updates: updates,
            p50Nanoseconds: percentile(latencies, 0.5), p90Nanoseconds: percentile(latencies, 0.9),
            p99Nanoseconds: percentile(latencies, 0.99), p999Nanoseconds: percentile(latencies, 0.999),
            maxNanoseconds: Double(latencies.last ?? 0), updatesPerSecond: perSecond.rounded())

        func ns(_ x: Double) -> String { String(Int(x.rounded())) }
        let source = data.isEmpty ? "generated minute bars, seed \(seed)" : "bars from \(data.joined(separator: " "))"
        var table = """
            sentio bench signals: \(symbolCount) symbols x \(barCount) bars (\(source)); warm-up \(warm) bars per symbol; \(updates) timed updates
            per symbol-bar update (ns): p50 \(ns(report.p50Nanoseconds))  p90 \(ns(report.p90Nanoseconds))  p99 \(ns(report.p99Nanoseconds))  p99.9 \(ns(report.p999Nanoseconds))  max \(ns(report.maxNanoseconds))
            full \(symbolCount)-symbol tick (ns): p50 \(ns(percentile(tickLatencies, 0.5)))  p90 \(ns(percentile(tickLatencies, 0.9)))  p99 \(ns(percentile(tickLatencies, 0.99)))  p99.9 \(ns(percentile(tickLatencies, 0.999)))  max \(ns(Double(tickLatencies.last ?? 0)))  (\(ticks) ticks)
            updates per second: \(Int(perSecond.rounded())) (untimed-per-update pass: updates / total tick time)
            clock overhead: \(clockOverhead) ns per reading (median of back-to-back clock_gettime calls; included in the per-update figures)
            """
        let p99 = report.p99Nanoseconds, tick99 = percentile(tickLatencies, 0.99)
        table += "\ntargets: p99 <= 1000 ns per update: \(p99 <= 1000 ? "met" : "missed"); "
            + "full 12-symbol tick p99 < 15000 ns: \(symbolCount == 12 ? (tick99 < 15000 ? "met" : "missed") : "n/a (\(symbolCount) symbols)")"
        table += "\n(checksum \(checksum.isFinite ? "ok" : "non-finite"))"
        return Result(report: report, table: table)
    }

    /// Nearest-rank percentile of sorted values.
    func percentile(_ sorted: [UInt64], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return Double(sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1])
    }

    func measureClockOverhead() -> UInt64 {
        var samples = [UInt64](repeating: 0, count: 10_001)
        for i in samples.indices {
            let a = monotonicNanoseconds()
            let b = monotonicNanoseconds()
            samples[i] = b &- a
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}

/// Nanoseconds of the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
