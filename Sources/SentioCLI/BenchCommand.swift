import ArgumentParser
import Foundation
import Sentio
import SentioBench

extension BenchWorkload: ExpressibleByArgument {}

/// `sentio bench WORKLOAD`: latency and throughput benchmarks that users can run on their own machine; the
/// measurement is the library's (SentioBench: ``SignalsBenchmark``, ``ThroughputRequest``), this command parses
/// and prints.
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

    @Option(parsing: .unconditional, help: ArgumentHelp("Number of symbols: the first N of the 12-symbol universe (signals), the first N inputs (backtest-rsi, backtest-sentio).", valueName: "N"))
    var count: Int = 12

    @Option(parsing: .unconditional, help: ArgumentHelp("signals: bars per symbol, warm-up included (default: 20000).", valueName: "N"))
    var bars: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("signals: bars per symbol fed before timing starts (default: the model's warm-up plus one regression window, 265 with default parameters).", valueName: "N"))
    var warmup: Int?

    @Option(help: ArgumentHelp("signals: read bars from these CSV files or directories instead of generating minute bars.", valueName: "PATH"))
    var data: [String] = []

    @Option(name: .customLong("seed"), parsing: .unconditional, help: ArgumentHelp("Seed of the generated market (unsigned integer).", valueName: "S"))
    var seedArgument = UnsignedArgument(42)

    /// `--seed`, checked non-negative in `validate()`.
    var seed: UInt64 { seedArgument.value }

    @Option(help: ArgumentHelp("Output format: table or json.", valueName: "table|json"))
    var format: OutputFormat = .table

    @OptionGroup(title: "Model parameters (signals workload)")
    var model: SignalModelOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Throughput workloads: work per run (defaults: csv 1000000 rows, rsi and volume-ratio 10000000 values, rolling-ols 1000000 rows, xirr 100000 series, backtest-rsi and backtest-sentio 1000000 bars per symbol).",
        valueName: "N"))
    var size: Int?

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: ArgumentHelp(
        "Throughput workloads: timed runs after one untimed warm-up run (default: 5).", valueName: "R"))
    var repeats: Int?

    @Option(help: ArgumentHelp(
        "Throughput workloads: read inputs from this file or directory instead of generating them (OHLCV CSV; xirr: a series,date,amount CSV); repeat for several files, used in the order given.",
        valueName: "PATH"))
    var input: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "xirr: worker threads of the batch solver (default: the active processor count).", valueName: "N"))
    var threads: Int?

    @Option(help: ArgumentHelp(
        "csv, rsi, volume-ratio, rolling-ols, xirr: also write the per-element outputs of the warm-up run (not timed) to this file as raw little-endian float64, to check agreement with another implementation.",
        valueName: "FILE"))
    var dump: String?

    func validate() throws {
        try seedArgument.check("--seed")
        try format.require([.table, .json])
        guard let kind = BenchWorkload(rawValue: workload) else {
            throw ValidationError("unknown workload '\(workload)'; workloads: \(BenchWorkload.allCases.map(\.rawValue).joined(separator: ", "))")
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
            print(format == .json ? result.report.json : result.table)
        case let kind:
            let request = ThroughputRequest(
                workload: kind, size: size, repeats: repeats ?? 5, inputs: BenchInputs(paths: input, seed: seed),
                count: count, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount, dumpPath: dump)
            let report = try request.run()
            let source = input.isEmpty ? "generated, seed \(seed)" : input.joined(separator: " ")
            print(format == .json ? report.json : report.table(unit: kind.unit, source: source))
        }
    }

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
}
