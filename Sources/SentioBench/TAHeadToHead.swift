import SentioCore
#if canImport(Glibc)
import Glibc
#endif
import SentioIndicators

/// The head-to-head timing of Sentio's TA-Lib functions (`sentio-dev ta-bench`): every function of
/// `TAFunction.all` with its defaults, in the two shapes of issue 34's speed goal, with the protocol of the
/// throughput workloads (inputs built untimed, one untimed warm-up run, the median of `repeats` timed runs of
/// `TAFunction.compute(_:)`, each run's outputs released after the clock is read). The harness in
/// Benchmarks/compare times TA-Lib on the same inputs and compares the checksums and bit sums.
public enum TAHeadToHead {
    /// The shape of a run: one long series, or several series one after another.
    public enum Shape: String, CaseIterable, Sendable {
        /// One series of `size` bars: the inputs' columns concatenated in input order, cut to `size`.
        case one
        /// The first `count` input series, each cut to `size` bars, computed one after another.
        case many
    }

    /// One function timed in one shape.
    public struct Row: Sendable {
        public var function: String
        public var shape: Shape
        /// The bar fields the function reads (TA-Lib's default inputs, in TA-Lib's argument order).
        public var inputs: [String]
        public var outputs: [String]
        /// Bars per run over all series (values of each output).
        public var bars: Int
        public var repeats: Int
        public var medianSeconds: Double
        public var minSeconds: Double
        public var maxSeconds: Double
        /// ``compensatedFiniteSum(_:)`` of the valid values of every output.
        public var checksum: Double
        /// Per output: the wrapping sum of the IEEE-754 bit patterns of every value (NaN included), over the series
        /// in order — equal sums on both sides are the bit-identity check of the harness (`ndarray.view(uint64).sum()`).
        public var bitSums: [UInt64]

        /// The row as one JSON object.
        public var json: String {
            func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
            func strings(_ xs: [String]) -> String { "[" + xs.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
            let fields: [(String, String)] = [
                ("function", "\"\(function)\""), ("shape", "\"\(shape.rawValue)\""), ("inputs", strings(inputs)),
                ("outputs", strings(outputs)), ("bars", String(bars)), ("repeats", String(repeats)),
                ("medianSeconds", number(medianSeconds)), ("minSeconds", number(minSeconds)),
                ("maxSeconds", number(maxSeconds)), ("checksum", number(checksum)),
                ("bitSums", "[" + bitSums.map { "\"\($0)\"" }.joined(separator: ", ") + "]"),
            ]
            return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
    }

    /// The inputs of both shapes, built once (untimed): ``measure(_:shape:repeats:threadClock:)`` times one function in one shape.
    public struct Session: Sendable {
        /// ``Shape/one``: one series; ``Shape/many``: `count` series.
        public let one: [OHLCVSeries], many: [OHLCVSeries]

        /// Reads (or generates) the inputs: `oneSize` bars of the concatenated columns, and `count` series of
        /// `manySize` bars each. A shape whose size is 0 is left empty.
        public init(inputs: BenchInputs, oneSize: Int, manySize: Int, count: Int) throws {
            one = oneSize > 0 ? [try TAHeadToHead.concatenated(inputs: inputs, size: oneSize)] : []
            many = manySize > 0 ? try ThroughputWorkloads.backtestSeries(inputs: inputs, symbols: count, size: manySize) : []
        }

        /// Times the function called `name` (TA-Lib's name, its defaults) in `shape`.
        public func measure(_ name: String, shape: Shape, repeats: Int, threadClock: Bool = false) throws -> Row {
            guard TAFunction.descriptor(named: name) != nil else { throw BenchInputError("unknown TA-Lib function '\(name)'") }
            let series = shape == .one ? one : many
            guard !series.isEmpty else { throw BenchInputError("shape \(shape.rawValue) has no inputs (size 0)") }
            return try TAHeadToHead.measure(try TAFunction(name), series, shape: shape, repeats: repeats, threadClock: threadClock)
        }
    }

    /// Times `functions` (TA-Lib names; empty: all of `TAFunction.all`) in `shapes` over `inputs`, every function in
    /// the first shape, then in the next.
    ///
    /// - Parameters:
    ///   - inputs: where the bars come from (read or generated).
    ///   - functions: TA-Lib names; empty: every function.
    ///   - shapes: the shapes to time, in order.
    ///   - oneSize: bars of ``Shape/one``.
    ///   - manySize: bars of each series of ``Shape/many``.
    ///   - count: series of ``Shape/many``.
    ///   - threadClock: time with the thread's CPU clock (see ``Session/measure(_:shape:repeats:threadClock:)``).
    ///   - repeats: timed runs per row (the median is reported).
    ///   - progress: called with each finished row.
    public static func run(
        inputs: BenchInputs, functions: [String], shapes: [Shape], oneSize: Int, manySize: Int, count: Int, repeats: Int,
        threadClock: Bool = false, progress: (Row) -> Void = { _ in }
    ) throws -> [Row] {
        let names = functions.isEmpty ? TAFunction.all.map(\.name) : functions
        let session = try Session(inputs: inputs, oneSize: shapes.contains(.one) ? oneSize : 0,
                                  manySize: shapes.contains(.many) ? manySize : 0, count: count)
        var rows: [Row] = []
        for shape in shapes {
            for name in names {
                let row = try session.measure(name, shape: shape, repeats: repeats, threadClock: threadClock)
                progress(row)
                rows.append(row)
            }
        }
        return rows
    }

    static func concatenated(inputs: BenchInputs, size: Int) throws -> OHLCVSeries {
        OHLCVSeries(
            symbol: "ALL", timestamps: (0..<Int64(size)).map { $0 },
            open: try inputs.concatenatedColumn(\.open, count: size), high: try inputs.concatenatedColumn(\.high, count: size),
            low: try inputs.concatenatedColumn(\.low, count: size), close: try inputs.concatenatedColumn(\.close, count: size),
            volume: try inputs.concatenatedColumn(\.volume, count: size))
    }

    /// With `threadClock`, the time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`: user and system time of this
    /// thread, page faults included, time waiting for a busy core excluded), for comparisons on a loaded machine.
    static func measure(_ function: TAFunction, _ series: [OHLCVSeries], shape: Shape, repeats: Int, threadClock: Bool = false) throws -> Row {
        func now() -> UInt64 {
            guard threadClock else { return monotonicNanoseconds() }
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
        }
        func once() throws -> [[IndicatorSeries]] { try series.map { try function.compute($0) } }
        let warmUp = try once()
        let k = function.outputCount
        var bitSums = [UInt64](repeating: 0, count: k)
        for outputs in warmUp {
            for j in 0..<k {
                bitSums[j] = outputs[j].values.withUnsafeBufferPointer { b in
                    b.reduce(bitSums[j]) { $0 &+ $1.bitPattern }
                }
            }
        }
        let checksum = compensatedFiniteSum(warmUp.lazy.flatMap { $0.lazy.flatMap(\.values) })
        var times: [Double] = []
        for _ in 0..<max(1, repeats) {
            let start = now()
            let output = try once()
            let end = now()
            times.append(Double(end &- start) / 1e9)
            withExtendedLifetime(output) {}
        }
        times.sort()
        return Row(
            function: function.descriptor.name, shape: shape, inputs: function.descriptor.inputs,
            outputs: function.descriptor.outputs, bars: series.reduce(0) { $0 + $1.count }, repeats: times.count,
            medianSeconds: median(sorted: times)!, minSeconds: times.first!, maxSeconds: times.last!, checksum: checksum,
            bitSums: bitSums)
    }
}
