import Dispatch
import SentioCore

// The batch rolling mean / standard deviation / z-score: `RollingMoments`' arithmetic over a contiguous array,
// bit-identical to the streaming types, two windows at a time.
//
// `RollingMoments` recomputes the moments from the window on an absolute schedule — at the 0-based indices
// k·n − 1 (k ≥ 2) of a window of n — and the state right after such a recompute depends only on the window's
// values. So the series splits into stretches [k·n − 1, (k + 1)·n − 1) that are independent: one scheduled
// recompute followed by n − 1 Welford pushes. Two consecutive stretches advance together, one per SIMD lane,
// each lane doing the streaming push's operations in the same order (IEEE operations are lane-wise and
// correctly rounded). The recompute's exact squares use Dekker's product instead of an FMA — the same exact
// value — which is why the lanes run only on windows whose values are 0 or within 2⁻¹⁰⁰…2¹⁰⁰ in magnitude
// (no split can underflow there, and no extreme-value scaling is needed). A group of stretches where any
// lane leaves that range, or would recompute early (error bound over the tolerance, or a z-score of a
// nearly constant window), runs through the streaming state itself, started from the scheduled recompute.

/// Lanes of the batch moments kernel: two stretches between scheduled recomputes at once, one SSE2 register
/// per variable (measured: SIMD4 and SIMD8 spill to the stack with the baseline target's sixteen registers and
/// run slower — 167 and 180 instructions per value against 157, and 30 % more time for SIMD4).
typealias MomentsLanes = SIMD2<Double>
/// The lanes' bit patterns, and one integer per lane.
typealias MomentsLaneBits = SIMD2<UInt64>
typealias MomentsLaneInts = SIMD2<Int>

/// A windowed statistic read from `RollingMoments` after each push: its streaming type (which the kernel
/// runs where the lanes cannot) and the same readout lane-wise.
protocol MomentsStatistic: Sendable {
    var moments: RollingMoments { get set }
    /// The streaming update: push `x`, then the statistic (nil until the window is full).
    mutating func update(_ x: Double) throws(WindowOverflowError) -> Double?
    /// The statistic of the current state, whose latest value `x` has index `index` (the streaming update's
    /// readout, without the push).
    mutating func readout(_ x: Double, index: Int) throws(WindowOverflowError) -> Double
    /// Restarts the streaming state at `moments`, whose latest value has index `index`.
    mutating func restart(_ moments: RollingMoments, index: Int)
    /// The readout lane-wise; adds to `failed` the lanes whose streaming readout would first recompute.
    func readout(
        _ x: MomentsLanes, mean: MomentsLanes, m2: MomentsLanes, m2Error: MomentsLanes, fresh: Bool,
        failed: inout SIMDMask<MomentsLanes.MaskStorage>
    ) -> MomentsLanes
}

extension RollingMean: MomentsStatistic {
    mutating func readout(_ x: Double, index: Int) -> Double { moments.mean }
    mutating func restart(_ moments: RollingMoments, index: Int) { self.moments = moments }
    @inline(__always)
    func readout(
        _ x: MomentsLanes, mean: MomentsLanes, m2: MomentsLanes, m2Error: MomentsLanes, fresh: Bool,
        failed: inout SIMDMask<MomentsLanes.MaskStorage>
    ) -> MomentsLanes { mean }
}

extension RollingStandardDeviation: MomentsStatistic {
    mutating func restart(_ moments: RollingMoments, index: Int) {
        self.moments = moments
        barIndex = index
    }
    @inline(__always)
    func readout(
        _ x: MomentsLanes, mean: MomentsLanes, m2: MomentsLanes, m2Error: MomentsLanes, fresh: Bool,
        failed: inout SIMDMask<MomentsLanes.MaskStorage>
    ) -> MomentsLanes {
        // RollingMoments.standardDeviation(ddof:) with shift 0: (max(0, m2)/d).squareRoot(); no overflow in range.
        let zero = MomentsLanes(repeating: 0)
        let positive = zero.replacing(with: m2, where: m2 .>= zero)
        return laneSquareRoot(positive / MomentsLanes(repeating: Double(window - ddof)))
    }
}

extension RollingZScore: MomentsStatistic {
    mutating func readout(_ x: Double, index: Int) -> Double { moments.zScore(of: x, ddof: ddof) }
    mutating func restart(_ moments: RollingMoments, index: Int) { self.moments = moments }
    @inline(__always)
    func readout(
        _ x: MomentsLanes, mean: MomentsLanes, m2: MomentsLanes, m2Error: MomentsLanes, fresh: Bool,
        failed: inout SIMDMask<MomentsLanes.MaskStorage>
    ) -> MomentsLanes {
        // RollingMoments.zScore(of:ddof:) with shift 0; its recompute (bound above half of M2) fails the lane.
        if !fresh { failed .|= .!(m2Error .<= 0.5 * m2) }
        let zero = MomentsLanes(repeating: 0)
        let z = (x - mean) / laneSquareRoot(m2 / MomentsLanes(repeating: Double(window - ddof)))
        return z.replacing(with: .nan, where: .!(m2 .> zero))
    }
}

@inline(__always)
func laneAbs(_ v: MomentsLanes) -> MomentsLanes {
    let bits = unsafeBitCast(v, to: MomentsLaneBits.self) & MomentsLaneBits(repeating: 0x7FFF_FFFF_FFFF_FFFF)
    return unsafeBitCast(bits, to: MomentsLanes.self)
}

/// `squareRoot()` lane by lane (the generic SIMD version is not vectorized either, and keeps the division
/// before it from vectorizing).
@inline(__always)
func laneSquareRoot(_ v: MomentsLanes) -> MomentsLanes {
    var r = v
    for l in 0..<MomentsLanes.scalarCount { r[l] = v[l].squareRoot() }
    return r
}

/// `Swift.max(a, b)` lane-wise (`b >= a ? b : a`).
@inline(__always)
func laneMax(_ a: MomentsLanes, _ b: MomentsLanes) -> MomentsLanes { a.replacing(with: b, where: b .>= a) }

/// Inputs of at least this many values are split over two threads (at a stretch boundary).
let momentsParallelThreshold = 1 << 17

/// Runs the statistic `prototype` (a fresh streaming state) over `input` into `out`, bit-identical to feeding
/// it value by value (NaN before the window is full).
///
/// - Returns: how many groups of two stretches ran in lanes, and how many fell back to the streaming state.
/// - Throws: the streaming state's first `WindowOverflowError` (the lanes cannot overflow).
@discardableResult
func rollingMomentsKernel<S: MomentsStatistic>(
    _ prototype: S, _ input: UnsafeBufferPointer<Double>, window n: Int, into out: UnsafeMutableBufferPointer<Double>,
    threads: Int = 2
) throws(WindowOverflowError) -> (lanes: Int, fallbacks: Int) {
    let count = input.count
    guard count > 0 else { return (0, 0) }
    let x = input.baseAddress!, o = out.baseAddress!
    // Up to the first scheduled recompute (index 2n − 1): the streaming state.
    var head = prototype
    for i in 0..<min(count, 2 * n - 1) { o[i] = try head.update(x[i]) ?? .nan }
    // Stretches k = 2 ..< end (stretch k starts at the scheduled recompute k·n − 1).
    let end = (count + n) / n  // the first k with k·n − 1 ≥ count
    guard end > 2 else { return (0, 0) }
    let groupCount = (end - 2) / MomentsLanes.scalarCount
    if threads < 2 || count < momentsParallelThreshold || groupCount < 2 {
        return try momentsStretches(prototype, x, o, count: count, window: n, from: 2, to: end)
    }
    // Two parts of whole groups; each writes only its own outputs. The first part's error is the earlier one.
    let middle = 2 + (groupCount / 2) * MomentsLanes.scalarCount
    nonisolated(unsafe) let input = x, output = o
    nonisolated(unsafe) var results: [Result<(lanes: Int, fallbacks: Int), WindowOverflowError>?] = [nil, nil]
    results.withUnsafeMutableBufferPointer { slots in
        nonisolated(unsafe) let slots = slots
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            slots[part] = Result { () throws(WindowOverflowError) in
                try momentsStretches(
                    prototype, input, output, count: count, window: n, from: part == 0 ? 2 : middle,
                    to: part == 0 ? middle : end)
            }
        }
    }
    let first = try results[0]!.get(), second = try results[1]!.get()
    return (first.lanes + second.lanes, first.fallbacks + second.fallbacks)
}

/// Stretches `from ..< to` (those starting before `count`): groups of two in lanes, the rest (and groups the
/// lanes cannot take) through the streaming state started at the scheduled recompute.
func momentsStretches<S: MomentsStatistic>(
    _ prototype: S, _ x: UnsafePointer<Double>, _ o: UnsafeMutablePointer<Double>, count: Int, window n: Int,
    from: Int, to: Int
) throws(WindowOverflowError) -> (lanes: Int, fallbacks: Int) {
    /// The stretch after the scheduled recompute at index k·n − 1, through the streaming state.
    func stretch(_ k: Int) throws(WindowOverflowError) {
        let p = k * n - 1
        var state = prototype
        state.restart(RollingMoments(window: n, afterScheduledRecomputeOf: UnsafeBufferPointer(start: x + (p - n + 1), count: n)), index: p)
        o[p] = try state.readout(x[p], index: p)
        for i in (p + 1)..<min(count, p + n) { o[i] = try state.update(x[i]) ?? .nan }
    }
    let lanes = MomentsLanes.scalarCount
    let rows = UnsafeMutablePointer<MomentsLanes>.allocate(capacity: 2 * n)
    defer { rows.deallocate() }
    var k = from
    var groups = (lanes: 0, fallbacks: 0)
    while k + lanes <= to && (k + lanes) * n - 1 <= count {
        if momentsLanes(prototype, x, o, window: n, firstStretch: k, rows: rows) {
            groups.lanes += 1
        } else {
            groups.fallbacks += 1
            for j in k..<(k + lanes) { try stretch(j) }
        }
        k += lanes
    }
    while k < to && k * n - 1 < count {
        try stretch(k)
        k += 1
    }
    return groups
}

/// Stretches `k … k + 1` in lanes; false (outputs to be rewritten) when a lane cannot run there.
@inline(__always)
func momentsLanes<S: MomentsStatistic>(
    _ statistic: S, _ x: UnsafePointer<Double>, _ o: UnsafeMutablePointer<Double>, window n: Int, firstStretch k: Int,
    rows: UnsafeMutablePointer<MomentsLanes>
) -> Bool {
    typealias V = MomentsLanes
    let lanes = V.scalarCount
    // rows[j][l] = x[(k + l − 1)·n + j]: rows 0 ..< n are lane l's window at its recompute, rows n + t its
    // pushes (t < n − 1; the value leaving is rows[t]).
    let rowCount = 2 * n - 1
    let raw = UnsafeMutableRawPointer(rows).assumingMemoryBound(to: Double.self)
    for l in 0..<lanes {
        let source = x + (k + l - 1) * n
        for j in 0..<rowCount { raw[j * lanes + l] = source[j] }
    }
    // Range: every value 0 or within 2⁻¹⁰⁰ … 2¹⁰⁰ in magnitude.
    let zero = V(repeating: 0)
    var outside = SIMDMask<V.MaskStorage>(repeating: false)
    for j in 0..<rowCount {
        let a = laneAbs(rows[j])
        outside .|= (a .> V(repeating: 0x1p100)) .| ((a .< V(repeating: 0x1p-100)) .& (a .!= zero))
    }
    if any(outside) { return false }
    // The scheduled recompute (RollingMoments.recompute), lane-wise. Pass 0: largest magnitude, constancy.
    let first = rows[0]
    var largest = zero
    var varying = SIMDMask<V.MaskStorage>(repeating: false)
    for j in 0..<n {
        let v = rows[j]
        largest = laneMax(largest, laneAbs(v))
        varying .|= v .!= first
    }
    var down1 = V(repeating: 1), down2 = V(repeating: 1)
    var exponents = MomentsLaneInts(repeating: 0)
    for l in 0..<lanes where varying[l] && largest[l] != 0 {
        let e = largest[l].exponent
        let half = -e / 2
        exponents[l] = e
        down1[l] = WindowArithmetic.powerOfTwo(half)
        down2[l] = WindowArithmetic.powerOfTwo(-e - half)
    }
    // Pass 1: compensated sum of the scaled values.
    var s = zero, c = zero, a = zero
    for j in 0..<n {
        let v = rows[j] * down1 * down2
        let t = s + v
        let sBig = (s - t) + v, vBig = (v - t) + s
        c += vBig.replacing(with: sBig, where: laneAbs(s) .>= laneAbs(v))
        s = t
        a += laneAbs(v)
    }
    let count = Double(n)
    var mh = zero, ml = zero
    for l in 0..<lanes {
        let (high, low) = RollingMoments.doubleDoubleMean(sum: s[l], compensation: c[l], count: count)
        mh[l] = high
        ml[l] = low
    }
    // Pass 2: Σ (x − m)², the squares split exactly by Dekker's product (= the FMA's exact low part here).
    var p = zero, pc = zero, q = zero, ss = zero
    let splitter = V(repeating: 134_217_729)  // 2²⁷ + 1
    let two = V(repeating: 2)
    for j in 0..<n {
        let v = rows[j] * down1 * down2
        let dh = v - mh
        let bv = dh - v
        var dl = (v - (dh - bv)) + (-mh - bv)
        dl -= ml
        let square = dh * dh
        let gamma = splitter * dh
        let hi = gamma - (gamma - dh)
        let lo = dh - hi
        let low = lo * lo - (((square - hi * hi) - lo * hi) - hi * lo)
        let t = p + square
        let pBig = (p - t) + square, squareBig = (square - t) + p
        pc += squareBig.replacing(with: pBig, where: laneAbs(p) .>= square)
        p = t
        q += low + two * dh * dl + dl * dl
        ss += v * v
    }
    var mean = zero, m2 = zero, meanError = zero, m2Error = zero
    for l in 0..<lanes {
        if !varying[l] || largest[l] == 0 {
            mean[l] = first[l]
            continue
        }
        let r = RollingMoments.recomputed(
            exponent: exponents[l], count: count, absoluteSum: a[l], meanHigh: mh[l], meanLow: ml[l],
            p: p[l], pc: pc[l], q: q[l], ss: ss[l], scaled: false)
        mean[l] = r.mean; m2[l] = r.m2; meanError[l] = r.meanError; m2Error[l] = r.m2Error
    }
    var failed = SIMDMask<V.MaskStorage>(repeating: false)
    // Output at the recompute (index (k + l)·n − 1), then the n − 1 Welford pushes (RollingMoments.push).
    let base = o + (k * n - 1)
    var value = statistic.readout(rows[n - 1], mean: mean, m2: m2, m2Error: m2Error, fresh: true, failed: &failed)
    for l in 0..<lanes { base[l * n] = value[l] }
    let u = V(repeating: WindowArithmetic.unitRoundoff), fourU = V(repeating: 4 * WindowArithmetic.unitRoundoff)
    let four = V(repeating: 4)
    let inverse = V(repeating: 1 / count)
    let t = V(repeating: WindowArithmetic.checkTolerance)
    let t2 = t * t, countLanes = V(repeating: count), tinySquare = V(repeating: 0x1p-1000)
    for step in 0..<(n - 1) {
        let old = rows[step], new = rows[n + step]
        let oldMean = mean
        let delta = new - old
        mean += delta * inverse
        let da = new - mean
        let db = old - oldMean
        m2 += delta * (da + db)
        let absDelta = laneAbs(delta)
        let newMeanError = meanError + u * (laneAbs(mean) + four * absDelta * inverse)
        let absA = laneAbs(da), absB = laneAbs(db)
        let propagated: V = (absDelta + absA) * (meanError + newMeanError)
        let rounding: V = fourU * absDelta * (absA + absB)
        let m2Rounding: V = u * laneAbs(m2)
        m2Error += propagated + rounding + m2Rounding
        meanError = newMeanError
        // RollingMoments.withinTolerance, lane-wise.
        let meanLow = laneAbs(mean) - meanError
        let m2Low = laneMax(zero, m2 - m2Error)
        let positiveMeanLow = laneMax(zero, meanLow)
        let sumOfSquaresLow = m2Low + countLanes * positiveMeanLow * positiveMeanLow
        let t2Q = t2 * sumOfSquaresLow
        let scaledMeanError = meanError * countLanes
        let meanOK = (meanError .<= t * meanLow) .| (scaledMeanError * scaledMeanError .<= t2Q)
        let squaredError = m2Error * m2Error
        let m2OK = (m2Error .== zero) .| (m2Error .<= t2Q)
            .| ((squaredError .<= t2Q * laneMax(zero, m2)) .& (squaredError .>= tinySquare))
        failed .|= .!(meanOK .& m2OK)
        value = statistic.readout(new, mean: mean, m2: m2, m2Error: m2Error, fresh: false, failed: &failed)
        let target = base + (step + 1)
        for l in 0..<lanes { target[l * n] = value[l] }
    }
    return !any(failed)
}
