import SentioCore

/// A sliding-window sum that does not drift: running add/subtract, recomputed exactly from the
/// window every `window` evictions. Also counts the non-zero values in the window.
@usableFromInline
struct RollingSum: Sendable {
    @usableFromInline var buffer: RingBuffer
    @usableFromInline var sum = 0.0
    @usableFromInline var nonZeroCount = 0
    @usableFromInline var evictionsSinceReseed = 0

    @usableFromInline init(window: Int) { buffer = RingBuffer(capacity: window) }

    @inlinable mutating func push(_ x: Double) {
        if x != 0 { nonZeroCount += 1 }
        if let old = buffer.push(x) {
            if old != 0 { nonZeroCount -= 1 }
            evictionsSinceReseed += 1
            if evictionsSinceReseed >= buffer.capacity {
                reseed()
                return
            }
            sum += x - old
        } else {
            sum += x
        }
    }

    @usableFromInline mutating func reseed() {
        var s = 0.0
        for i in 0..<buffer.count { s += buffer[i] }
        sum = s
        evictionsSinceReseed = 0
    }
}

/// Streaming volume ratio: `vₜ / mean(vₜ₋ₙ₊₁ … vₜ)` — the current bar is inside the window.
///
/// Same definition as pandas `volume / volume.rolling(n).mean()`. First value at index `n − 1`.
/// The window sum is a running sum re-computed exactly every `n` bars (no drift).
///
/// **Zero volume.** When every volume in the window is 0 the ratio is 0/0 and Sentio returns NaN
/// (as pandas does): "no trading in the window, ratio undefined". A zero volume inside an
/// otherwise traded window gives 0. Volumes must be finite and non-negative.
public struct VolumeRatio: Sendable {
    /// Window length `n`.
    public let window: Int
    @usableFromInline var rolling: RollingSum

    /// - Parameter window: window length `n ≥ 1` (default 20).
    public init(window: Int = 20) {
        precondition(window >= 1, "volume-ratio window must be at least 1")
        self.window = window
        rolling = RollingSum(window: window)
    }

    /// Bars consumed before the first value: `window − 1`.
    public var lookback: Int { window - 1 }

    /// Feeds the next volume; returns the ratio (NaN for an all-zero window), or `nil` before
    /// `window` volumes have been seen.
    @inlinable
    public mutating func update(_ volume: Double) -> Double? {
        rolling.push(volume)
        guard rolling.buffer.isFull else { return nil }
        guard rolling.nonZeroCount > 0 else { return .nan }
        return volume / (rolling.sum / Double(window))
    }
}

/// Volume ratio over a series (pandas `v / v.rolling(n).mean()`), by running ``VolumeRatio``.
///
/// - Returns: values valid from index `window − 1`; NaN where the whole window has zero volume.
public func volumeRatio(_ volume: [Double], window: Int = 20) -> IndicatorSeries {
    var state = VolumeRatio(window: window)
    return volume.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: window - 1) { state.update(input[$0]) }
    }
}

/// Streaming rolling mean over the last `window` values (pandas `rolling(window).mean()`).
///
/// Backed by SentioCore's ``RollingMoments`` (Welford add/remove, exact re-seed every `window`
/// values, so it does not drift). First value at index `window − 1`. Inputs must be finite.
public struct RollingMean: Sendable {
    @usableFromInline var moments: RollingMoments
    /// Window length.
    public var window: Int { moments.window }

    /// - Parameter window: window length ≥ 1.
    public init(window: Int) {
        precondition(window >= 1, "rolling window must be at least 1")
        moments = RollingMoments(window: window)
    }

    /// Bars consumed before the first value: `window − 1`.
    public var lookback: Int { window - 1 }

    /// Feeds the next value; returns the window mean, or `nil` until the window is full.
    @inlinable
    public mutating func update(_ x: Double) -> Double? {
        moments.push(x)
        return moments.isFull ? moments.mean : nil
    }
}

/// Rolling mean (pandas `Series.rolling(window).mean()`), by running ``RollingMean``.
public func rollingMean(_ x: [Double], window: Int) -> IndicatorSeries {
    var state = RollingMean(window: window)
    return x.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: window - 1) { state.update(input[$0]) }
    }
}

/// Streaming rolling standard deviation `√(Σ(xᵢ − x̄)² / (n − ddof))` over the last `n = window`
/// values (pandas `rolling(window).std(ddof=...)`, default `ddof = 1`, the sample deviation).
///
/// Backed by ``RollingMoments`` (no drift: exact re-seed every `window` values). First value at
/// index `window − 1`. Inputs must be finite.
public struct RollingStandardDeviation: Sendable {
    @usableFromInline var moments: RollingMoments
    /// Delta degrees of freedom: 1 = sample (pandas default), 0 = population.
    public let ddof: Int
    /// Window length.
    public var window: Int { moments.window }

    /// - Parameters:
    ///   - window: window length, greater than `ddof`.
    ///   - ddof: delta degrees of freedom (default 1).
    public init(window: Int, ddof: Int = 1) {
        precondition(window >= 1 && ddof >= 0 && window > ddof, "rolling std needs window > ddof ≥ 0")
        moments = RollingMoments(window: window)
        self.ddof = ddof
    }

    /// Bars consumed before the first value: `window − 1`.
    public var lookback: Int { window - 1 }

    /// Feeds the next value; returns the window's standard deviation, or `nil` until it is full.
    @inlinable
    public mutating func update(_ x: Double) -> Double? {
        moments.push(x)
        return moments.isFull ? moments.standardDeviation(ddof: ddof) : nil
    }
}

/// Rolling standard deviation (pandas `rolling(window).std(ddof=ddof)`), by running
/// ``RollingStandardDeviation``.
public func rollingStandardDeviation(_ x: [Double], window: Int, ddof: Int = 1) -> IndicatorSeries {
    var state = RollingStandardDeviation(window: window, ddof: ddof)
    return x.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: window - 1) { state.update(input[$0]) }
    }
}

/// Streaming rolling z-score `(xₜ − x̄)/s` where `x̄` and `s` are the mean and standard deviation
/// (with `ddof`, default 1) of the window `xₜ₋ₙ₊₁ … xₜ`, which includes the current value —
/// pandas `(x − x.rolling(n).mean()) / x.rolling(n).std()`.
///
/// When the window is constant (`s == 0`) the z-score is undefined and Sentio returns NaN.
public struct RollingZScore: Sendable {
    @usableFromInline var moments: RollingMoments
    /// Delta degrees of freedom of the standard deviation.
    public let ddof: Int
    /// Window length.
    public var window: Int { moments.window }

    /// - Parameters:
    ///   - window: window length, greater than `ddof`.
    ///   - ddof: delta degrees of freedom (default 1).
    public init(window: Int, ddof: Int = 1) {
        precondition(window >= 1 && ddof >= 0 && window > ddof, "rolling z-score needs window > ddof ≥ 0")
        moments = RollingMoments(window: window)
        self.ddof = ddof
    }

    /// Bars consumed before the first value: `window − 1`.
    public var lookback: Int { window - 1 }

    /// Feeds the next value; returns its z-score in the window (NaN for a constant window), or
    /// `nil` until the window is full.
    @inlinable
    public mutating func update(_ x: Double) -> Double? {
        moments.push(x)
        guard moments.isFull else { return nil }
        let s = moments.standardDeviation(ddof: ddof)
        return s > 0 ? (x - moments.mean) / s : .nan
    }
}

/// Rolling z-score, by running ``RollingZScore``.
public func rollingZScore(_ x: [Double], window: Int, ddof: Int = 1) -> IndicatorSeries {
    var state = RollingZScore(window: window, ddof: ddof)
    return x.withUnsafeBufferPointer { input in
        collectSeries(count: input.count, lookback: window - 1) { state.update(input[$0]) }
    }
}
