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
/// two so that no square overflows or underflows — every `window` pushes, and whenever the error
/// bound exceeds ``WindowArithmetic/checkTolerance`` of the window's magnitude. While the window
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
    @usableFromInline var updatesSinceReseed = 0
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
    @inlinable
    public mutating func push(_ x: Double) {
        let old = buffer.push(x)
        if Self.isExtreme(x) { extremeCount += 1 }
        if let old, Self.isExtreme(old) { extremeCount -= 1 }
        isFresh = false
        if extremeCount > 0 || shift != 0 {
            recompute()
            return
        }
        let u = WindowArithmetic.unitRoundoff
        let n = Double(buffer.count)
        let oldMean = meanValue
        let delta: Double, a: Double, b: Double
        if let old {
            delta = x - old
            meanValue += delta / n
            a = x - meanValue
            b = old - oldMean
            m2 += delta * (a + b)
            updatesSinceReseed += 1
        } else {
            delta = x - oldMean
            meanValue += delta / n
            a = x - meanValue
            b = 0
            m2 += delta * a
        }
        // Rounding of the update (each operation errs by ≤ u·|result|) plus the effect of the means'
        // own errors on the M2 increment (first order: |Δ|·(δ + δ'), and |x − mean'|·δ while growing).
        let newMeanError = meanError + u * (abs(meanValue) + 2 * abs(delta) / n)
        let absA = abs(a), absB = abs(b), absDelta = abs(delta)
        m2Error += (absDelta + absA) * (meanError + newMeanError) + 4 * u * absDelta * (absA + absB) + u * abs(m2)
        meanError = newMeanError
        if updatesSinceReseed >= buffer.capacity || (buffer.isFull && !withinTolerance) { recompute() }
    }

    /// Whether the accumulated error bounds meet the accuracy contract for the mean and the standard
    /// deviation (see the type's documentation), with margin.
    @inlinable
    var withinTolerance: Bool {
        let t = WindowArithmetic.checkTolerance
        let n = Double(buffer.count)
        let meanLow = abs(meanValue) - meanError
        let m2Low = max(0, m2 - m2Error)
        let sumOfSquaresLow = m2Low + n * max(0, meanLow) * max(0, meanLow)
        let meanOK = meanError <= t * meanLow || meanError * meanError * n * n <= t * t * sumOfSquaresLow
        guard meanOK else { return false }
        if m2Error == 0 { return true }
        // |s − ŝ| ≤ min(E/√(d·M2), √(E/d)) must stay ≤ t·√(Q/d): E ≤ t·√(Q·M2) or E ≤ t²·Q.
        let r = m2Error / sumOfSquaresLow
        return r <= t * t || r * r * sumOfSquaresLow <= t * t * max(0, m2)
    }

    /// Recomputes mean and M2 from the window: scaled two-pass in double-double arithmetic.
    @usableFromInline
    mutating func recompute() {
        updatesSinceReseed = 0
        isFresh = true
        let n = buffer.count
        let u = WindowArithmetic.unitRoundoff
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
        // Pass 1: compensated sum of the scaled values, mean as a double-double (mh + ml).
        var s = 0.0, c = 0.0, a = 0.0
        for i in 0..<n {
            let v = WindowArithmetic.scale(buffer[i], by: -e)
            let t = s + v
            c += abs(s) >= abs(v) ? (s - t) + v : (v - t) + s
            s = t
            a += abs(v)
        }
        let count = Double(n)
        let sh = s + c
        let sl = c - (sh - s)
        let mh = sh / count
        let ml = (sh.addingProduct(-mh, count) + sl) / count  // the division's remainder is exact (FMA)
        // Pass 2: Σ (x − m)² with x − mh split exactly (TwoSum) and each square split exactly (FMA).
        var p = 0.0, pc = 0.0, q = 0.0, ss = 0.0
        for i in 0..<n {
            let v = WindowArithmetic.scale(buffer[i], by: -e)
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
        let scaledM2 = max(0, p + (pc + q))
        let scaledMeanValue = mh + ml
        let scaledMeanError = 2 * u * abs(scaledMeanValue) + 4 * u * u * a + 0x1p-1000
        let scaledM2Error = 8 * u * scaledM2 + 8 * count * u * u * ss + count * 0x1p-1000
        meanValue = WindowArithmetic.scale(scaledMeanValue, by: e)
        if extremeCount == 0 {
            shift = 0
            scaledMean = meanValue
            m2 = WindowArithmetic.scale(scaledM2, by: 2 * e)
            meanError = WindowArithmetic.scale(scaledMeanError, by: e) + u * abs(meanValue)
            m2Error = WindowArithmetic.scale(scaledM2Error, by: 2 * e) + u * m2 + 0x1p-1074
        } else {
            shift = e
            scaledMean = scaledMeanValue
            m2 = scaledM2
            meanError = WindowArithmetic.scale(scaledMeanError, by: e) + u * abs(meanValue)
            m2Error = scaledM2Error
        }
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
