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

/// Simple moving average over a series (TA-Lib `TA_SMA`), by running ``SimpleMovingAverage``.
///
/// - Returns: values valid from index `period − 1`.
/// - Throws: `WindowOverflowError` naming the first bar whose window sum overflows.
public func simpleMovingAverage(_ x: [Double], period: Int) throws(WindowOverflowError) -> IndicatorSeries {
    try x.withUnsafeBufferPointer { input throws(WindowOverflowError) in
        try collectSeries(count: input.count, lookback: period - 1, state: SimpleMovingAverage(period: period)) {
            (state: inout SimpleMovingAverage, i: Int) throws(WindowOverflowError) in try state.update(input[i])
        }
    }
}

/// Streaming exponential moving average, TA-Lib's `TA_EMA` (default, non-Metastock seeding).
///
/// `k = 2/(n + 1)`; the first value, at index `n − 1`, is the simple mean of the first `n` values;
/// afterwards `EMAₜ = (xₜ − EMAₜ₋₁)·k + EMAₜ₋₁` (TA-Lib's arithmetic order, bit-identical to it).
///
/// **No overflow.** The state works on the inputs times 2⁻¹⁶ and scales the result back: exact power-of-two
/// scaling commutes with rounding, so values are bit-identical to TA-Lib's, but the seed sum and
/// `xₜ − EMAₜ₋₁` cannot overflow for finite inputs (unless a period above 16,000 meets values near 1.8e308).
public struct ExponentialMovingAverage: Sendable {
    /// Period `n`.
    public let period: Int
    /// Smoothing factor `k = 2/(n + 1)`.
    public let smoothing: Double
    @usableFromInline var seen = 0
    @usableFromInline var seedSum = 0.0
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
    public mutating func update(_ unscaled: Double) -> Double? {
        let x = unscaled * Self.inputScale
        if seen >= period {
            average = ((x - average) * smoothing) + average
            return average * Self.outputScale
        }
        seen += 1
        seedSum += x
        guard seen == period else { return nil }
        average = seedSum / Double(period)
        return average * Self.outputScale
    }

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
