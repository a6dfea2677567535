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
/// `ATRₜ = (ATRₜ₋₁·(n − 1) + TRₜ)/n`, in TA-Lib's order of operations (bit-identical to it).
public struct AverageTrueRange: Sendable {
    /// Smoothing period `n`.
    public let period: Int
    @usableFromInline let periodValue: Double
    @usableFromInline var barIndex = 0
    @usableFromInline var previousClose = 0.0
    @usableFromInline var average = 0.0

    /// - Parameter period: period `n ≥ 1` (TA-Lib default 14).
    public init(period: Int = 14) {
        precondition(period >= 1, "ATR period must be at least 1")
        self.period = period
        periodValue = Double(period)
    }

    /// Bars consumed before the first value: `period`.
    public var lookback: Int { period }

    /// Feeds the next bar; returns the ATR, or `nil` during the first `period` bars.
    @inlinable
    public mutating func update(high: Double, low: Double, close: Double) -> Double? {
        let index = barIndex
        barIndex += 1
        defer { previousClose = close }
        if index == 0 { return nil }
        let range = trueRange(high: high, low: low, previousClose: previousClose)
        if index > period {
            average *= periodValue - 1
            average += range
            average /= periodValue
            return average
        }
        average += range  // running sum of the seed TRs
        guard index == period else { return nil }
        average /= periodValue
        return average
    }
}

/// Average true range over a bar series (TA-Lib `TA_ATR`), by running ``AverageTrueRange``.
///
/// - Precondition: the three arrays have the same length.
/// - Returns: values valid from index `period`.
public func averageTrueRange(high: [Double], low: [Double], close: [Double], period: Int = 14) -> IndicatorSeries {
    precondition(high.count == low.count && low.count == close.count, "high, low and close must have the same length")
    var state = AverageTrueRange(period: period)
    return high.withUnsafeBufferPointer { h in
        low.withUnsafeBufferPointer { l in
            close.withUnsafeBufferPointer { c in
                collectSeries(count: c.count, lookback: period) { state.update(high: h[$0], low: l[$0], close: c[$0]) }
            }
        }
    }
}

/// ATR of an ``OHLCVSeries`` (TA-Lib `TA_ATR`).
public func averageTrueRange(_ bars: OHLCVSeries, period: Int = 14) -> IndicatorSeries {
    averageTrueRange(high: bars.high, low: bars.low, close: bars.close, period: period)
}
