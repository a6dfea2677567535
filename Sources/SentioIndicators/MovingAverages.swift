import SentioCore

/// Streaming simple moving average, TA-Lib's `TA_SMA`.
///
/// `SMAₜ = (xₜ₋ₙ₊₁ + … + xₜ)/n`, first value at index `n − 1`. Kept as TA-Lib keeps it — a running
/// sum: add the new value, divide, then subtract the value that leaves next — so values match
/// TA-Lib bit for bit wherever TA-Lib's running sum is accurate. The running sum carries a rigorous
/// rounding-error bound (a few flops per bar); when the bound exceeds the tolerance relative to the
/// window's `Σ|x|` — say after a value of 1e20 has passed through a window of 1s — the window is
/// summed again exactly. Each value is within 1e-12·Σ|xᵢ|/n of the exact mean of the window.
public struct SimpleMovingAverage: Sendable {
    /// Window length `n`.
    public let period: Int
    @usableFromInline let periodValue: Double
    @usableFromInline var rolling: RollingSum

    /// - Parameter period: window length `n ≥ 1`.
    public init(period: Int) {
        precondition(period >= 1, "SMA period must be at least 1")
        self.period = period
        periodValue = Double(period)
        rolling = RollingSum(window: period)
    }

    /// Bars consumed before the first value: `period − 1`.
    public var lookback: Int { period - 1 }

    /// Feeds the next value; returns the mean of the last `period` values, or `nil` before
    /// `period` values have been seen.
    ///
    /// - Throws: `WindowOverflowError` when the window's sum exceeds the largest double.
    @inlinable @inline(__always)
    public mutating func update(_ x: Double) throws(WindowOverflowError) -> Double? {
        rolling.add(x)
        guard rolling.buffer.isFull else { return nil }
        let mean = try rolling.checkedSum("SMA(\(period))") / periodValue
        rolling.evictOldest()  // the oldest value leaves with the next update
        return mean
    }
}

/// Simple moving average over a series (TA-Lib `TA_SMA`): ``SimpleMovingAverage``'s arithmetic over the
/// contiguous array.
///
/// Bit-identical to running ``SimpleMovingAverage`` value by value (the same running sum, error bound and
/// re-summation, in TA-Lib's order), with the window read from the input array itself (`x[t − n + 1]` leaves
/// after bar `t`; an exact re-summation reads `x[t − n + 1 … t]`).
///
/// - Returns: values valid from index `period − 1`.
/// - Throws: `WindowOverflowError` naming the first bar whose window sum overflows.
public func simpleMovingAverage(_ x: [Double], period: Int) throws(WindowOverflowError) -> IndicatorSeries {
    precondition(period >= 1, "SMA period must be at least 1")
    return try kernelSeries(x, firstValidIndex: period - 1) { input, out throws(WindowOverflowError) in
        try simpleMovingAverageKernel(input, period: period, into: out)
    }
}

/// The batch SMA: ``RollingSum/add(_:)``, ``RollingSum/checkedSum(_:)`` and ``RollingSum/evictOldest()`` on
/// the array.
func simpleMovingAverageKernel(
    _ input: UnsafeBufferPointer<Double>, period n: Int, into out: UnsafeMutableBufferPointer<Double>
) throws(WindowOverflowError) {
    let count = input.count
    guard count > 0 else { return }
    let u = WindowArithmetic.unitRoundoff, tolerance = WindowArithmetic.checkTolerance
    let x = input.baseAddress!, o = out.baseAddress!
    let periodValue = Double(n)
    var sum = 0.0, absoluteSum = 0.0, sumError = 0.0
    for i in 0..<min(n - 1, count) {
        let v = x[i]
        sum += v
        absoluteSum += abs(v)
        sumError += u * (abs(sum) + absoluteSum)
        o[i] = .nan
    }
    guard count >= n else { return }
    func recompute(_ i: Int, _ sum: Double) throws(WindowOverflowError) -> (sum: Double, absoluteSum: Double, sumError: Double) {
        try recomputedWindowSum(x, window: n, endingAt: i, runningSum: sum) { "SMA(\(n))" }
    }
    // One pass: the division is off the running sum's dependency chain (two adds per value, TA-Lib's order),
    // so it runs in the chain's shadow; a second, vectorized division pass was slower (figures: the Indicators
    // article, "Array kernels").
    for i in (n - 1)..<count {
        let v = x[i]
        sum += v
        absoluteSum += abs(v)
        sumError += u * (abs(sum) + absoluteSum)
        if !(sumError <= tolerance * (absoluteSum - sumError)) { (sum, absoluteSum, sumError) = try recompute(i, sum) }
        o[i] = sum / periodValue
        let old = x[i - n + 1]
        sum -= old
        absoluteSum -= abs(old)
        sumError += u * (abs(sum) + absoluteSum)
    }
}

/// Streaming exponential moving average, TA-Lib's `TA_EMA` (default, non-Metastock seeding).
///
/// `k = 2/(n + 1)`; the first value, at index `n − 1`, is the simple mean of the first `n` values;
/// afterwards `EMAₜ = (xₜ − EMAₜ₋₁)·k + EMAₜ₋₁` (TA-Lib's arithmetic order, bit-identical to it).
///
/// **No overflow, no underflow.** Where `xₜ − EMAₜ₋₁` or the seed sum could overflow (a magnitude of 2¹⁰²⁰ or
/// more), the step works on the values times 2⁻¹⁶ and scales the result back; everywhere else it works on the values
/// themselves, as TA-Lib does. Exact power-of-two scaling commutes with rounding away from the ends of the range,
/// so both forms give the same bits there — but scaling every step (as before) turned inputs near the smallest
/// doubles (1e-320) into zeros.
public struct ExponentialMovingAverage: Sendable {
    /// Period `n`.
    public let period: Int
    /// Smoothing factor `k = 2/(n + 1)`.
    public let smoothing: Double
    @usableFromInline var seen = 0
    /// The seed's running sum of the values, and of the values times 2⁻¹⁶ (used when the first overflows).
    @usableFromInline var seedSum = 0.0
    @usableFromInline var scaledSeedSum = 0.0
    @usableFromInline var average = 0.0

    /// - Parameter period: period `n ≥ 1`.
    public init(period: Int) {
        precondition(period >= 1, "EMA period must be at least 1")
        self.period = period
        smoothing = 2.0 / Double(period + 1)
    }

    /// Bars consumed before the first value: `period − 1`.
    public var lookback: Int { period - 1 }

    /// Feeds the next value; returns the EMA, or `nil` before `period` values have been seen.
    @inlinable
    public mutating func update(_ x: Double) -> Double? {
        if seen >= period {
            average = Self.step(x, average, smoothing)
            return average
        }
        seen += 1
        seedSum += x
        scaledSeedSum += x * Self.inputScale
        guard seen == period else { return nil }
        average = seedSum.isFinite || !scaledSeedSum.isFinite
            ? seedSum / Double(period) : scaledSeedSum / Double(period) * Self.outputScale
        return average
    }

    /// One step `(x − e)·k + e`, on the values themselves unless one of them is 2¹⁰²⁰ or more in magnitude (then
    /// on the values times 2⁻¹⁶, scaled back). The several-series kernel takes its steps with this function too.
    @inlinable @inline(__always)
    static func step(_ x: Double, _ e: Double, _ k: Double) -> Double {
        if abs(x) < largeMagnitude && abs(e) < largeMagnitude { return ((x - e) * k) + e }
        let xs = x * inputScale, es = e * inputScale
        return (((xs - es) * k) + es) * outputScale
    }

    /// Magnitudes from which `x − e` could overflow.
    @usableFromInline static let largeMagnitude = 0x1p1020
    @usableFromInline static let inputScale = 0x1p-16
    @usableFromInline static let outputScale = 0x1p16
}

/// Exponential moving average over a series (TA-Lib `TA_EMA`), by running ``ExponentialMovingAverage``.
///
/// - Returns: values valid from index `period − 1`.
public func exponentialMovingAverage(_ x: [Double], period: Int) -> IndicatorSeries {
    var state = ExponentialMovingAverage(period: period)
    return x.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: period - 1) { state.update(input[$0]) }
    }
}
