import SentioCore

/// True range of a bar, TA-Lib's `TA_TRANGE`: `max(high − low, |high − prevClose|, |low − prevClose|)`.
@inlinable
public func trueRange(high: Double, low: Double, previousClose: Double) -> Double {
    var greatest = high - low
    let fromHigh = abs(previousClose - high)
    if fromHigh > greatest { greatest = fromHigh }
    let fromLow = abs(previousClose - low)
    if fromLow > greatest { greatest = fromLow }
    return greatest
}

/// Streaming average true range, TA-Lib's `TA_ATR`.
///
/// True range `TRₜ` (``trueRange(high:low:previousClose:)``) exists from bar 1. The first ATR, at
/// index `n`, is the mean of `TR₁ … TRₙ`; afterwards Wilder smoothing
/// `ATRₜ = (ATRₜ₋₁·(n − 1) + TRₜ)/n`, in TA-Lib's order of operations.
///
/// **Accuracy.** The seed sum of `n ≤ 4096` non-negative true ranges errs by at most `(n − 1)·u`
/// relative (`u = 2⁻⁵³`, below 1e-12); longer seeds are summed with compensation. The Wilder step is
/// a contraction, so its rounding does not accumulate. Where TA-Lib's `ATR·(n − 1)` would overflow
/// although the result does not, the step is taken as `ATR + (TR − ATR)/n` instead.
public struct AverageTrueRange: Sendable, Codable {
    /// Smoothing period `n`.
    public let period: Int
    @usableFromInline let periodValue: Double
    @usableFromInline var barIndex = 0
    @usableFromInline var previousClose = 0.0
    @usableFromInline var average = 0.0
    @usableFromInline var seedCompensation = 0.0

    /// - Parameter period: period `n ≥ 1` (TA-Lib default 14).
    public init(period: Int = 14) {
        precondition(period >= 1, "ATR period must be at least 1")
        self.period = period
        periodValue = Double(period)
    }

    /// Bars consumed before the first value: `period`.
    public var lookback: Int { period }

    /// Seeds longer than this are summed with compensation.
    @usableFromInline static let plainSeedLimit = 4096

    /// Feeds the next bar; returns the ATR, or `nil` during the first `period` bars.
    ///
    /// - Throws: `WindowOverflowError` when a true range or the seed's sum of true ranges exceeds
    ///   the largest double.
    @inlinable
    public mutating func update(high: Double, low: Double, close: Double) throws(WindowOverflowError) -> Double? {
        let index = barIndex
        barIndex += 1
        let previous = previousClose
        previousClose = close
        if index == 0 { return nil }
        let range = trueRange(high: high, low: low, previousClose: previous)
        if !range.isFinite && high.isFinite && low.isFinite && previous.isFinite {
            throw overflow(index, index, "true range")
        }
        if index > period { return smooth(range) }
        // Running sum of the seed TRs (TA-Lib's order), with Neumaier's compensation term on the side.
        let t = average + range
        seedCompensation += abs(average) >= abs(range) ? (average - t) + range : (range - t) + average
        average = t
        guard index == period else { return nil }
        if period > Self.plainSeedLimit { average += seedCompensation }
        guard average.isFinite || !range.isFinite else { throw overflow(index, 1, "sum of the seed's true ranges") }
        average /= periodValue
        return average
    }

    /// One Wilder smoothing step after the seed, shared by ``update(high:low:close:)`` and the batch kernels:
    /// `atr *= n−1; atr += TR; atr /= n` (TA-Lib's order), or the overflow-free form when that overflows.
    @inlinable @inline(__always)
    mutating func smooth(_ range: Double) -> Double {
        var next = Self.wilderStep(average, range, period: periodValue)
        if !next.isFinite { next = overflowFreeStep(range) }
        average = next
        return average
    }

    /// TA-Lib's Wilder step `atr *= n−1; atr += TR; atr /= n`, in that order (not finite where it overflows).
    @inlinable @inline(__always)
    static func wilderStep(_ average: Double, _ range: Double, period periodValue: Double) -> Double {
        var next = average
        next *= periodValue - 1
        next += range
        next /= periodValue
        return next
    }

    /// Out of line so that the optimizer keeps the (never taken in practice) branch instead of computing this
    /// second division at every step to select between the two (measured: the many-series ATR spent its time on it).
    @usableFromInline @inline(never)
    func overflowFreeStep(_ range: Double) -> Double { average + (range - average) / periodValue }

    @usableFromInline
    func overflow(_ index: Int, _ start: Int, _ quantity: String) -> WindowOverflowError {
        WindowOverflowError(statistic: "ATR(\(period))", barIndex: index, windowStart: start, quantity: quantity)
    }
}

/// Average true range over a bar series (TA-Lib `TA_ATR`), by running ``AverageTrueRange``.
///
/// - Precondition: the three arrays have the same length.
/// - Returns: values valid from index `period`.
/// - Throws: `WindowOverflowError` naming the first bar whose true range or seed sum overflows.
public func averageTrueRange(
    high: [Double], low: [Double], close: [Double], period: Int = 14
) throws(WindowOverflowError) -> IndicatorSeries {
    precondition(high.count == low.count && low.count == close.count, "high, low and close must have the same length")
    return try high.withUnsafeBufferPointer { h throws(WindowOverflowError) in
        try low.withUnsafeBufferPointer { l throws(WindowOverflowError) in
            try close.withUnsafeBufferPointer { c throws(WindowOverflowError) in
                try collectSeries(count: c.count, lookback: period, state: AverageTrueRange(period: period)) {
                    (state: inout AverageTrueRange, i: Int) throws(WindowOverflowError) in
                    try state.update(high: h[i], low: l[i], close: c[i])
                }
            }
        }
    }
}

/// ATR of an `OHLCVSeries` (TA-Lib `TA_ATR`).
public func averageTrueRange(_ bars: OHLCVSeries, period: Int = 14) throws(WindowOverflowError) -> IndicatorSeries {
    try averageTrueRange(high: bars.high, low: bars.low, close: bars.close, period: period)
}
