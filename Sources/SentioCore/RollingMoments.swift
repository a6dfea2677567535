/// A windowed statistic whose exact value cannot be represented as a `Double`.
///
/// Raised, never replaced by NaN or an empty value, when for instance the sum of a window overflows
/// (two volumes of 1e308 in one window) or a standard deviation exceeds `Double.greatestFiniteMagnitude`.
/// `barIndex` is the 0-based index of the input value (bar) whose window it is; callers that know the
/// file and line of that bar add them (the CLI does).
public struct WindowOverflowError: UserInputError, Equatable {
    /// The statistic, e.g. `"SMA(20)"` or `"volume ratio (window 20)"`.
    public var statistic: String
    /// 0-based index of the bar whose window cannot be represented.
    public var barIndex: Int
    /// 0-based index of the window's first bar.
    public var windowStart: Int
    /// What overflows, e.g. `"window sum"`, `"standard deviation"`, `"true range"`.
    public var quantity: String

    public init(statistic: String, barIndex: Int, windowStart: Int, quantity: String) {
        self.statistic = statistic
        self.barIndex = barIndex
        self.windowStart = windowStart
        self.quantity = quantity
    }

    public var description: String {
        let bars = windowStart == barIndex ? "bar \(barIndex)" : "bars \(windowStart)…\(barIndex)"
        return "bar \(barIndex): \(statistic): the \(quantity) of \(bars) (0-based) exceeds the largest double "
            + "(1.8e308) and cannot be represented"
    }
}

/// The accuracy contract shared by Sentio's windowed statistics, and the exact window arithmetic
/// they fall back to.
///
/// Every windowed statistic (SMA, volume ratio, ATR's seed, rolling mean/std/z-score, rolling OLS
/// moments) is kept by a cheap running update together with a rigorous bound on the rounding error
/// that update has accumulated (`|fl(a ± b) − (a ± b)| ≤ u·|fl(a ± b)|`, `u = 2⁻⁵³`, a few flops per
/// bar). When the bound exceeds ``checkTolerance`` relative to the current window's magnitude, the
/// window is recomputed from its values with compensated (Neumaier / double-double) arithmetic, so
/// each value stays within ``tolerance`` of the exact windowed computation — whatever values have
/// entered and left the window before (the failure this guards against: 1, 1e20, 1, 1, … whose
/// running sum forgets the 1s forever).
public enum WindowArithmetic {
    /// Unit roundoff `u = 2⁻⁵³`.
    public static let unitRoundoff = 0x1p-53
    /// The documented accuracy: 1e-12 relative to the window's magnitude (see each statistic).
    public static let tolerance = 1e-12
    /// Bound that triggers an exact recomputation, below ``tolerance`` to leave room for the final
    /// rounding of the statistic: `2⁻⁴¹ ≈ 4.5e-13`.
    public static let checkTolerance = 0x1p-41

    /// `2^e` for any `e` in `−1074…1023`.
    @inlinable
    public static func powerOfTwo(_ e: Int) -> Double { Double(sign: .plus, exponent: e, significand: 1) }

    /// `v · 2^e` by two exact power-of-two multiplications (no intermediate overflow for `|e| ≤ 2100`).
    @inlinable
    public static func scale(_ v: Double, by e: Int) -> Double {
        let half = e / 2
        return v * powerOfTwo(half) * powerOfTwo(e - half)
    }

    /// Compensated (Neumaier) sum of `buffer[from…]` with a rigorous error bound.
    ///
    /// - Returns: `sum` — the sum rounded (error ≤ `bound`, which is `≈ 2u·|Σ| + 2n·u²·Σ|x|`) — or
    ///   `nil` when the exact sum is not representable; `absoluteSum` `Σ|x|` (saturated at the largest
    ///   finite double, so always a lower bound of the true `Σ|x|` minus its `n·u` rounding).
    public static func compensatedSum(
        _ buffer: RingBuffer, from start: Int = 0
    ) -> (sum: Double?, bound: Double, absoluteSum: Double) {
        compensatedSum(count: buffer.count - start) { buffer[start + $0] }
    }

    /// ``compensatedSum(_:from:)`` of contiguous values (oldest first): the same arithmetic in the same order,
    /// so the same result as for a ring buffer holding these values.
    @inlinable
    public static func compensatedSum(_ values: UnsafeBufferPointer<Double>) -> (sum: Double?, bound: Double, absoluteSum: Double) {
        compensatedSum(count: values.count) { values[$0] }
    }

    /// The compensated sum of `value(0..<n)` (see ``compensatedSum(_:from:)``).
    @inlinable @inline(__always)
    static func compensatedSum(
        count n: Int, _ value: (Int) -> Double
    ) -> (sum: Double?, bound: Double, absoluteSum: Double) {
        var largest = 0.0
        for i in 0..<n { largest = max(largest, abs(value(i))) }
        guard largest > 0 else { return (0, 0, 0) }
        // Scale the window so that its largest value is in [1, 2) and the sum cannot overflow:
        // power-of-two scaling is exact except for values 2¹⁰²² times smaller than the largest.
        let e = largest.exponent
        var s = 0.0, c = 0.0, a = 0.0
        for i in 0..<n {
            let v = scale(value(i), by: -e)
            let t = s + v
            c += abs(s) >= abs(v) ? (s - t) + v : (v - t) + s
            s = t
            a += abs(v)
        }
        let scaledSum = s + c
        let u = unitRoundoff
        let scaledBound = 2 * u * abs(scaledSum) + 2 * Double(n) * u * u * a + Double(n) * 0x1p-1074
        let sum = scale(scaledSum, by: e)
        let absoluteSum = min(scale(a * (1 - Double(n) * u), by: e), .greatestFiniteMagnitude)
        return (sum.isFinite ? sum : nil, scale(scaledBound, by: e), absoluteSum)
    }
}

/// Mean and variance over a sliding window of the last `window` values, updated in O(1).
///
/// Each push replaces the oldest value with Welford's add/remove updates:
/// `mean' = mean + (x − x_old)/n`, `M2' = M2 + (x − x_old)(x − mean' + x_old − mean)`, and keeps a
/// rigorous bound on the rounding error these updates have accumulated (a few flops per push). The
/// moments are recomputed from the window's values — two-pass in double-double, scaled by a power of
/// two so that no square overflows or underflows — on an absolute schedule (the pushes at 0-based
/// indices `k·window − 1`, `k ≥ 2`), and in between whenever the error bound exceeds
/// ``WindowArithmetic/checkTolerance`` of the window's magnitude (without shifting the schedule). So
/// the state right after a scheduled recompute depends only on the window's values, and batch
/// kernels can run the stretches between scheduled recomputes independently (in SIMD lanes, on
/// several threads) with results bit-identical to pushing value by value. While the window
/// holds a value of magnitude above 2²⁵⁰ (≈ 1.8e75) or a non-zero one below 2⁻²⁵⁰, every push
/// recomputes (O(window)), because squares of such values leave the double range.
///
/// **Accuracy** (for finite inputs, window `n`, `R = √(Σxᵢ²/(n − ddof))`, `s` the exact standard
/// deviation): `|mean − x̄| ≤ 1e-12·Σ|xᵢ|/n`; `|std − s| ≤ 1e-12·R` (`R` is the standard deviation's
/// sensitivity to relative perturbations of the inputs: the scale at which it is determined); and
/// ``zScore(of:ddof:)`` is within `1e-12·(1 + |z|)·R/s` (the propagated error; `NaN` exactly when
/// the window is constant). Batch functions use this same type, so batch and streaming results are
/// bit-identical.
public struct RollingMoments: Sendable {
    @usableFromInline var buffer: RingBuffer
    @usableFromInline var meanValue = 0.0
    /// `M2` in units of `2^(2·shift)`.
    @usableFromInline var m2 = 0.0
    /// Bound on `|meanValue − exact mean|`.
    @usableFromInline var meanError = 0.0
    /// Bound on `|m2 − exact M2|` (same units as `m2`).
    @usableFromInline var m2Error = 0.0
    /// Full-window pushes since the last scheduled recompute (only scheduled recomputes reset it).
    @usableFromInline var updatesSinceReseed = 0
    /// `fl(1/window)`: the full window's mean update multiplies by it.
    @usableFromInline let inverseWindow: Double
    /// Values in the window with magnitude above 2²⁵⁰ or non-zero below 2⁻²⁵⁰.
    @usableFromInline var extremeCount = 0
    /// Power-of-two scale of `m2` and `scaledMean` (0 unless the window holds extreme values).
    @usableFromInline var shift = 0
    /// The mean in units of `2^shift`.
    @usableFromInline var scaledMean = 0.0
    /// Whether the moments were just recomputed from the window (no update since).
    @usableFromInline var isFresh = false

    public init(window: Int) {
        precondition(window > 0, "window must be positive")
        buffer = RingBuffer(capacity: window)
        inverseWindow = 1 / Double(window)
    }

    @inlinable public var window: Int { buffer.capacity }
    /// Values currently in the window.
    @inlinable public var count: Int { buffer.count }
    @inlinable public var isFull: Bool { buffer.isFull }

    @inlinable @inline(__always)
    static func isExtreme(_ x: Double) -> Bool {
        let a = abs(x)
        return a > 0x1p250 || (a < 0x1p-250 && a != 0) || !a.isFinite
    }

    /// Adds `x`, dropping the oldest value once the window is full.
    ///
    /// Once the window is full, the pushes are counted and every `window`-th one (the pushes at 0-based
    /// indices `2·window − 1`, `3·window − 1`, …) recomputes the moments from the window — an absolute
    /// schedule: recomputes triggered by the error bound, extreme values or ``zScore(of:ddof:)`` do not
    /// shift it. So the state right after a scheduled recompute depends only on the window's values,
    /// and a batch kernel can process the stretches between scheduled recomputes independently.
    @inlinable
    public mutating func push(_ x: Double) {
        let old = buffer.push(x)
        if Self.isExtreme(x) { extremeCount += 1 }
        if let old, Self.isExtreme(old) { extremeCount -= 1 }
        isFresh = false
        guard let old else {
            grow(x)
            return
        }
        updatesSinceReseed += 1
        if updatesSinceReseed == buffer.capacity {
            updatesSinceReseed = 0
            recompute()
            return
        }
        if extremeCount > 0 || shift != 0 {
            recompute()
            return
        }
        let u = WindowArithmetic.unitRoundoff
        let oldMean = meanValue
        let delta = x - old
        meanValue += delta * inverseWindow
        let a = x - meanValue
        let b = old - oldMean
        m2 += delta * (a + b)
        // Rounding of the update (each operation errs by ≤ u·|result|; `delta·(1/n)` rounds twice, `delta`
        // once: ≤ 3u·|delta|/n ≤ 4u·|delta|·fl(1/n)) plus the effect of the means' own errors on the M2
        // increment (first order: |Δ|·(δ + δ')).
        let absDelta = abs(delta)
        let newMeanError = meanError + u * (abs(meanValue) + 4 * absDelta * inverseWindow)
        let absA = abs(a), absB = abs(b)
        m2Error += (absDelta + absA) * (meanError + newMeanError) + 4 * u * absDelta * (absA + absB) + u * abs(m2)
        meanError = newMeanError
        if !withinTolerance { recompute() }
    }

    /// A push while the window is still filling (Welford's add-only update).
    @usableFromInline
    mutating func grow(_ x: Double) {
        if extremeCount > 0 || shift != 0 {
            recompute()
            return
        }
        let u = WindowArithmetic.unitRoundoff
        let n = Double(buffer.count)
        let delta = x - meanValue
        meanValue += delta / n
        let a = x - meanValue
        m2 += delta * a
        // Rounding of the update plus the effect of the mean's own error on the M2 increment (first order:
        // |x − mean'|·δ).
        let newMeanError = meanError + u * (abs(meanValue) + 2 * abs(delta) / n)
        let absA = abs(a), absDelta = abs(delta)
        m2Error += (absDelta + absA) * (meanError + newMeanError) + 4 * u * absDelta * absA + u * abs(m2)
        meanError = newMeanError
        if buffer.isFull && !withinTolerance { recompute() }
    }

    /// Whether the accumulated error bounds meet the accuracy contract for the mean and the standard
    /// deviation (see the type's documentation), with margin. Multiplications only (no division), so that
    /// the check costs a few flops per push; a square that underflows fails the check (conservative).
    @inlinable
    var withinTolerance: Bool {
        Self.withinTolerance(
            count: Double(buffer.count), mean: meanValue, meanError: meanError, m2: m2, m2Error: m2Error)
    }

    /// ``withinTolerance`` of the given state (the batch kernels evaluate the same expression lane-wise).
    @inlinable @inline(__always)
    package static func withinTolerance(count n: Double, mean: Double, meanError: Double, m2: Double, m2Error: Double) -> Bool {
        let t = WindowArithmetic.checkTolerance
        let meanLow = abs(mean) - meanError
        let m2Low = max(0, m2 - m2Error)
        let positiveMeanLow = max(0, meanLow)
        let sumOfSquaresLow = m2Low + n * positiveMeanLow * positiveMeanLow
        let t2Q = (t * t) * sumOfSquaresLow
        let scaledMeanError = meanError * n
        // |mean − m̂| ≤ t·|mean| or n²·δ² ≤ t²·Q.
        let meanOK = meanError <= t * meanLow || scaledMeanError * scaledMeanError <= t2Q
        // |s − ŝ| ≤ min(E/√(d·M2), √(E/d)) must stay ≤ t·√(Q/d): E ≤ t²·Q, or E² ≤ t²·Q·M2 (the square not
        // underflowing).
        let squaredError = m2Error * m2Error
        let m2OK = m2Error == 0 || m2Error <= t2Q || (squaredError <= t2Q * max(0, m2) && squaredError >= 0x1p-1000)
        return meanOK && m2OK
    }

    /// Recomputes mean and M2 from the window: scaled two-pass in double-double arithmetic.
    @usableFromInline
    mutating func recompute() {
        isFresh = true
        let n = buffer.count
        let first = buffer[0]
        var largest = 0.0
        var constant = true
        for i in 0..<n {
            let v = buffer[i]
            largest = max(largest, abs(v))
            if v != first { constant = false }
        }
        if constant || largest == 0 {
            meanValue = first; scaledMean = first; m2 = 0; meanError = 0; m2Error = 0; shift = 0
            return
        }
        let e = largest.exponent
        let half = -e / 2
        let down1 = WindowArithmetic.powerOfTwo(half), down2 = WindowArithmetic.powerOfTwo(-e - half)
        // Pass 1: compensated sum of the scaled values, mean as a double-double (mh + ml).
        var s = 0.0, c = 0.0, a = 0.0
        for i in 0..<n {
            let v = buffer[i] * down1 * down2
            let t = s + v
            c += abs(s) >= abs(v) ? (s - t) + v : (v - t) + s
            s = t
            a += abs(v)
        }
        let count = Double(n)
        let (mh, ml) = Self.doubleDoubleMean(sum: s, compensation: c, count: count)
        // Pass 2: Σ (x − m)² with x − mh split exactly (TwoSum) and each square split exactly (FMA).
        var p = 0.0, pc = 0.0, q = 0.0, ss = 0.0
        for i in 0..<n {
            let v = buffer[i] * down1 * down2
            let dh = v - mh
            let bv = dh - v
            var dl = (v - (dh - bv)) + (-mh - bv)
            dl -= ml
            let square = dh * dh
            let low = (-square).addingProduct(dh, dh)
            let t = p + square
            pc += abs(p) >= square ? (p - t) + square : (square - t) + p
            p = t
            q += low + 2 * dh * dl + dl * dl
            ss += v * v
        }
        let r = Self.recomputed(
            exponent: e, count: count, absoluteSum: a, meanHigh: mh, meanLow: ml, p: p, pc: pc, q: q, ss: ss,
            scaled: extremeCount != 0)
        meanValue = r.mean; scaledMean = r.scaledMean; m2 = r.m2; meanError = r.meanError; m2Error = r.m2Error
        shift = r.shift
    }

    /// Pass 1 of ``recompute()``: the mean `mh + ml` (double-double) of `count` values whose compensated sum
    /// is `s + c`.
    @inlinable @inline(__always)
    package static func doubleDoubleMean(sum s: Double, compensation c: Double, count: Double) -> (high: Double, low: Double) {
        let sh = s + c
        let sl = c - (sh - s)
        let mh = sh / count
        let ml = (sh.addingProduct(-mh, count) + sl) / count  // the division's remainder is exact (FMA)
        return (mh, ml)
    }

    /// The end of ``recompute()``: the state from pass 2's sums of the window scaled by `2^−exponent`
    /// (`scaled`: keep `m2` and the mean in that scale, for windows with extreme values).
    @inlinable @inline(__always)
    package static func recomputed(
        exponent e: Int, count: Double, absoluteSum a: Double, meanHigh mh: Double, meanLow ml: Double,
        p: Double, pc: Double, q: Double, ss: Double, scaled: Bool
    ) -> (mean: Double, scaledMean: Double, m2: Double, meanError: Double, m2Error: Double, shift: Int) {
        let u = WindowArithmetic.unitRoundoff
        let scaledM2 = max(0, p + (pc + q))
        let scaledMeanValue = mh + ml
        let scaledMeanError = 2 * u * abs(scaledMeanValue) + 4 * u * u * a + 0x1p-1000
        let scaledM2Error = 8 * u * scaledM2 + 8 * count * u * u * ss + count * 0x1p-1000
        let mean = WindowArithmetic.scale(scaledMeanValue, by: e)
        let meanError = WindowArithmetic.scale(scaledMeanError, by: e) + u * abs(mean)
        if !scaled {
            let m2 = WindowArithmetic.scale(scaledM2, by: 2 * e)
            let m2Error = WindowArithmetic.scale(scaledM2Error, by: 2 * e) + u * m2 + 0x1p-1074
            return (mean, mean, m2, meanError, m2Error, 0)
        }
        return (mean, scaledMeanValue, scaledM2, meanError, scaledM2Error, e)
    }

    /// The state right after a scheduled recompute whose window is `values` (oldest first, `values.count`
    /// = `window`): what ``push(_:)`` leaves at 0-based index `k·window − 1` (`k ≥ 2`) of a series whose
    /// values `(k − 1)·window …` are `values`. The batch kernels start each stretch between scheduled
    /// recomputes from it.
    package init(window: Int, afterScheduledRecomputeOf values: UnsafeBufferPointer<Double>) {
        self.init(window: window)
        precondition(values.count == window, "a scheduled recompute sees a full window")
        for v in values {
            buffer.push(v)
            if Self.isExtreme(v) { extremeCount += 1 }
        }
        recompute()
    }

    /// Mean of the values in the window.
    @inlinable public var mean: Double { meanValue }

    /// Variance with `ddof` delta degrees of freedom (0: population, 1: sample); `+∞` when it exceeds
    /// the largest double.
    @inlinable
    public func variance(ddof: Int = 1) -> Double {
        let d = Double(buffer.count - ddof)
        guard d > 0 else { return .nan }
        let v = max(0, m2) / d
        return shift == 0 ? v : WindowArithmetic.scale(WindowArithmetic.scale(v, by: shift), by: shift)
    }

    /// Standard deviation with `ddof` delta degrees of freedom; `+∞` when it exceeds the largest double.
    @inlinable
    public func standardDeviation(ddof: Int = 1) -> Double {
        let d = Double(buffer.count - ddof)
        guard d > 0 else { return .nan }
        let s = (max(0, m2) / d).squareRoot()
        return shift == 0 ? s : WindowArithmetic.scale(s, by: shift)
    }

    /// The z-score `(x − mean)/std` of `x` in the window (`ddof` as in ``standardDeviation(ddof:)``),
    /// computed in the window's scale so that it never overflows; NaN exactly when the window is
    /// constant. Recomputes the window first when the running standard deviation is not known to
    /// within a factor of 1.4 (so a constant window is recognized exactly).
    @inlinable
    public mutating func zScore(of x: Double, ddof: Int = 1) -> Double {
        if !isFresh && !(m2Error <= 0.5 * m2) { recompute() }
        let d = Double(buffer.count - ddof)
        guard d > 0, m2 > 0 else { return .nan }
        let s = (m2 / d).squareRoot()
        if shift == 0 { return (x - meanValue) / s }
        return (WindowArithmetic.scale(x, by: -shift) - scaledMean) / s
    }

    public mutating func reset() {
        buffer.removeAll()
        meanValue = 0
        m2 = 0
        meanError = 0
        m2Error = 0
        updatesSinceReseed = 0
        extremeCount = 0
        shift = 0
        scaledMean = 0
        isFresh = false
    }
}
