import SentioCore
import SentioData
import SentioSignals

/// `sentio bench signals`: per-update latency of the streaming signal model over several symbols.
///
/// Builds one streaming signal-model state per symbol, feeds the warm-up bars untimed, then times every further
/// symbol-bar update with ``monotonicNanoseconds()`` (pass 1), and whole ticks of all symbols (pass 2, which gives
/// the throughput). Percentiles are nearest rank (``nearestRankPercentile(_:_:)``).
public final class SignalsBenchmark {
    public var config: SignalModelConfig
    public var symbols: Int
    public var bars: Int
    public var warmup: Int?
    public var data: [String]
    public var seed: UInt64

    public init(config: SignalModelConfig, symbols: Int, bars: Int, warmup: Int?, data: [String], seed: UInt64) {
        self.config = config
        self.symbols = symbols
        self.bars = bars
        self.warmup = warmup
        self.data = data
        self.seed = seed
    }

    /// The report and its human-readable table.
    public struct Result: Sendable {
        public var report: BenchReport
        public var table: String
    }

    /// The bars (generated minute bars, or the first `symbols` series of `data` cut to `bars`), their common
    /// length and the warm-up length (default: the model's first signal plus one regression window).
    ///
    /// - Throws: ``BenchInputError`` when the shortest series is not longer than the warm-up.
    public func prepare() throws -> (series: [OHLCVSeries], barCount: Int, warm: Int) {
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
            throw BenchInputError("need more than \(warm) bars per symbol (warm-up), the shortest input has \(barCount)")
        }
        return (series, barCount, warm)
    }

    /// Runs both passes (every update timed; whole ticks timed) and reports the percentiles.
    public func run() throws -> Result {
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
        func percentile(_ sorted: [UInt64], _ q: Double) -> Double { Double(nearestRankPercentile(sorted, q) ?? 0) }
        tickLatencies.sort()
        let clockOverhead = clockOverheadNanoseconds()

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
}
