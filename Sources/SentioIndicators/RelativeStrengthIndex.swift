import SentioCore

/// Streaming Wilder relative strength index, TA-Lib's `TA_RSI` definition.
///
/// With `Δₜ = closeₜ − closeₜ₋₁`, gains `Gₜ = max(Δₜ, 0)` and losses `Lₜ = max(−Δₜ, 0)`:
/// - seed (bar `n = period`): `avgG = (G₁ + … + Gₙ)/n`, `avgL = (L₁ + … + Lₙ)/n`;
/// - afterwards Wilder smoothing: `avg = (avg·(n − 1) + x)/n`.
///
/// Evaluated in TA-Lib 0.8's order of operations — `G = max(Δ, 0)`, `L = G − Δ`,
/// `avg *= n−1; avg += x; avg *= (1/n)` with `1/n` computed once — so that values match
/// TA-Lib 0.8.1 (`talib.RSI`) bit for bit (tested on GOOG);
/// - `RSI = 100 · avgG / (avgG + avgL)`.
///
/// The first value is at bar index `period` (lookback = `period`); TA-Lib's unstable period is 0.
///
/// **Flat market.** When `avgG + avgL == 0` (no price change over the whole seed, or since the
/// series started) the RSI is undefined; Sentio returns **50** (neutral). TA-Lib returns 0 there (and
/// also whenever `avgG + avgL` falls below its absolute `TA_IS_ZERO` threshold), which reads as
/// "maximally oversold" and would fire mean-reversion signals on a halted instrument. Outside that
/// case Sentio's values equal TA-Lib's bit for bit.
///
/// **No overflow.** Closes are multiplied by 2⁻¹⁶ on entry. Scaling by a power of two is exact and
/// commutes with rounding, and the RSI is a ratio, so values are bit-identical to TA-Lib's; but no
/// change, seed sum or `avg·(n − 1)` can overflow for finite closes (TA-Lib's would, and print NaN),
/// unless a period above 16,000 meets closes near 1.8e308.
///
/// Inputs must be finite: a NaN close propagates NaN to every later value (as in TA-Lib).
public struct RelativeStrengthIndex: Sendable, Codable {
    /// The smoothing period `n`.
    public let period: Int
    @usableFromInline let periodValue: Double
    @usableFromInline let inversePeriod: Double
    @usableFromInline var barIndex = 0
    @usableFromInline var previousClose = 0.0
    @usableFromInline var averageGain = 0.0
    @usableFromInline var averageLoss = 0.0

    /// - Parameter period: smoothing period `n ≥ 1` (TA-Lib default 14).
    public init(period: Int = 14) {
        precondition(period >= 1, "RSI period must be at least 1")
        self.period = period
        periodValue = Double(period)
        inversePeriod = 1.0 / Double(period)
    }

    /// Bars consumed before the first value: `period`.
    public var lookback: Int { period }

    /// Factor applied to every close before differencing: 2⁻¹⁶ (see "No overflow").
    public static let inputScale = 0x1p-16

    /// RSI value returned when `avgGain + avgLoss == 0` (see the type's documentation).
    public static let flatMarketValue = 50.0

    /// Feeds the next close; returns the RSI at this bar, or `nil` during the warm-up (the first
    /// `period` bars).
    @inlinable
    public mutating func update(_ unscaledClose: Double) -> Double? {
        let close = unscaledClose * Self.inputScale
        let index = barIndex
        barIndex += 1
        if index == 0 {
            previousClose = close
            return nil
        }
        let change = close - previousClose
        previousClose = close
        if index > period { return smooth(change) }
        // Seed: sums of the first `period` gains and losses, then their means.
        // TA-Lib 0.8's branch-free split: gain = max(Δ, 0), loss = gain − Δ.
        let gain = change > 0 ? change : 0
        averageGain += gain
        averageLoss += gain - change
        guard index == period else { return nil }
        averageLoss *= inversePeriod
        averageGain *= inversePeriod
        return currentValue
    }

    /// One Wilder smoothing step after the seed, the recurrence shared by ``update(_:)`` and the
    /// batch function: `avg *= n−1; avg += x; avg *= 1/n` (TA-Lib's order).
    @inlinable @inline(__always)
    mutating func smooth(_ change: Double) -> Double {
        let gain = change > 0 ? change : 0
        averageLoss *= periodValue - 1
        averageGain *= periodValue - 1
        averageGain += gain
        averageLoss += gain - change
        averageLoss *= inversePeriod
        averageGain *= inversePeriod
        return currentValue
    }

    /// `100·avgG/(avgG + avgL)`, or the flat-market value.
    @inlinable @inline(__always)
    var currentValue: Double {
        let total = averageGain + averageLoss
        return total == 0 ? Self.flatMarketValue : 100.0 * (averageGain / total)
    }

    /// Forgets all history.
    public mutating func reset() { self = RelativeStrengthIndex(period: period) }
}

/// Wilder RSI over a whole close series (TA-Lib `TA_RSI`), by running ``RelativeStrengthIndex``.
///
/// - Parameters:
///   - close: closing prices, oldest first.
///   - period: smoothing period `n ≥ 1` (default 14).
/// - Returns: values valid from index `period`; see ``RelativeStrengthIndex`` for the formula and
///   the flat-market convention (50).
public func relativeStrengthIndex(_ close: [Double], period: Int = 14) -> IndicatorSeries {
    let count = close.count
    let values = makeDoubleArray(count: count) { out in
        close.withUnsafeBufferPointer { input in
            var state = RelativeStrengthIndex(period: period)  // a local, so it lives in registers
            // Warm-up and seed through `update`, then the stable zone through the same `smooth`
            // step `update` uses, without its per-bar phase test.
            let seedEnd = min(period + 1, count)
            for i in 0..<seedEnd { out[i] = state.update(input[i]) ?? .nan }
            guard count > seedEnd else { return }
            var previous = input[seedEnd - 1] * RelativeStrengthIndex.inputScale
            for i in seedEnd..<count {
                let x = input[i] * RelativeStrengthIndex.inputScale
                out[i] = state.smooth(x - previous)
                previous = x
            }
        }
    }
    return IndicatorSeries(values: values, firstValidIndex: period)
}
