import SentioCore

/// Streaming simple moving average, TA-Lib's `TA_SMA`.
///
/// `SMAₜ = (xₜ₋ₙ₊₁ + … + xₜ)/n`, first value at index `n − 1`. Kept as TA-Lib keeps it — a running
/// sum: add the new value, divide, then subtract the value that leaves next — so values match
/// TA-Lib bit for bit. (The rounding error of the running sum grows only like `√t·ε·|x|`, about
/// 1e-13 relative after 10⁷ bars of price data; use ``RollingMean`` for a periodically re-seeded mean.)
public struct SimpleMovingAverage: Sendable {
    /// Window length `n`.
    public let period: Int
    @usableFromInline let periodValue: Double
    @usableFromInline var window: RingBuffer
    @usableFromInline var runningSum = 0.0

    /// - Parameter period: window length `n ≥ 1`.
    public init(period: Int) {
        precondition(period >= 1, "SMA period must be at least 1")
        self.period = period
        periodValue = Double(period)
        window = RingBuffer(capacity: period)
    }

    /// Bars consumed before the first value: `period − 1`.
    public var lookback: Int { period - 1 }

    /// Feeds the next value; returns the mean of the last `period` values, or `nil` before
    /// `period` values have been seen.
    @inlinable
    public mutating func update(_ x: Double) -> Double? {
        runningSum += x
        window.push(x)
        guard window.isFull else { return nil }
        let mean = runningSum / periodValue
        runningSum -= window[0]  // the oldest value leaves with the next update
        return mean
    }
}

/// Simple moving average over a series (TA-Lib `TA_SMA`), by running ``SimpleMovingAverage``.
///
/// - Returns: values valid from index `period − 1`.
public func simpleMovingAverage(_ x: [Double], period: Int) -> IndicatorSeries {
    var state = SimpleMovingAverage(period: period)
    return x.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: period - 1) { state.update(input[$0]) }
    }
}

/// Streaming exponential moving average, TA-Lib's `TA_EMA` (default, non-Metastock seeding).
///
/// `k = 2/(n + 1)`; the first value, at index `n − 1`, is the simple mean of the first `n` values;
/// afterwards `EMAₜ = (xₜ − EMAₜ₋₁)·k + EMAₜ₋₁` (TA-Lib's arithmetic order, bit-identical to it).
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
    public mutating func update(_ x: Double) -> Double? {
        if seen >= period {
            average = ((x - average) * smoothing) + average
            return average
        }
        seen += 1
        seedSum += x
        guard seen == period else { return nil }
        average = seedSum / Double(period)
        return average
    }
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
