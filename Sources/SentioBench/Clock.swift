#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds of the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`): the one clock of Sentio's
/// measurements (`sentio bench`, `sentio-dev`).
///
/// A reading costs about 20 ns on Linux x86-64 (vDSO); ``clockOverheadNanoseconds(samples:)`` measures it.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// The cost of one ``monotonicNanoseconds()`` reading: the median difference of `samples` back-to-back pairs.
public func clockOverheadNanoseconds(samples: Int = 10_001) -> UInt64 {
    var differences = [UInt64](repeating: 0, count: max(samples, 1))
    for i in differences.indices {
        let a = monotonicNanoseconds()
        let b = monotonicNanoseconds()
        differences[i] = b &- a
    }
    differences.sort()
    return differences[differences.count / 2]
}

/// The nearest-rank percentile of sorted values: the smallest value with at least `q` of the values at or below
/// it, `sorted[ceil(q·n) − 1]` (clamped to the first and last), for `q` in [0, 1]; `nil` for no values.
///
/// The one percentile definition of Sentio's measurements (latencies of `sentio bench signals`, `sentio-dev
/// live-bench`, `sentio-dev ws-load`). Nearest rank never interpolates, so every figure is a measured sample.
/// Reference: the nearest-rank method, e.g. NIST/SEMATECH e-Handbook §7.2.6.2 (definition 1).
public func nearestRankPercentile<C: RandomAccessCollection>(_ sorted: C, _ q: Double) -> C.Element?
where C.Index == Int {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((q * Double(sorted.count)).rounded(.up))
    return sorted[sorted.startIndex + Swift.min(Swift.max(rank, 1), sorted.count) - 1]
}

/// The median of sorted values (the mean of the two middle values for an even count); `nil` for no values.
public func median(sorted: [Double]) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}
