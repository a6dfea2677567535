/// A fixed-capacity FIFO of `Double`, allocated once, overwritten in place.
///
/// Streaming indicators keep their window here so that an update never allocates.
public struct RingBuffer: Sendable {
    @usableFromInline var storage: [Double]
    @usableFromInline var head = 0  // index of the oldest element
    @usableFromInline var _count = 0
    @inlinable public var count: Int { _count }

    public init(capacity: Int) {
        precondition(capacity > 0, "ring buffer capacity must be positive")
        storage = [Double](repeating: 0, count: capacity)
    }

    @inlinable public var capacity: Int { storage.count }
    @inlinable public var isFull: Bool { count == storage.count }

    /// Appends `x`; when full, drops and returns the oldest element.
    @inlinable
    @discardableResult
    public mutating func push(_ x: Double) -> Double? {
        if count < storage.count {
            var tail = head + count
            if tail >= storage.count { tail -= storage.count }
            storage[tail] = x
            _count += 1
            return nil
        }
        let oldest = storage[head]
        storage[head] = x
        head += 1
        if head == storage.count { head = 0 }
        return oldest
    }

    /// Element `i`, 0 being the oldest.
    @inlinable
    public subscript(i: Int) -> Double {
        precondition(i >= 0 && i < count, "ring buffer index out of range")
        var k = head + i
        if k >= storage.count { k -= storage.count }
        return storage[k]
    }

    /// The newest element.
    @inlinable public var last: Double? { count == 0 ? nil : self[count - 1] }

    public mutating func removeAll() {
        head = 0
        _count = 0
    }
}

/// Mean and variance over a sliding window of the last `window` values, updated in O(1).
///
/// Each push replaces the oldest value with Welford's add/remove updates:
/// `mean' = mean + (x − x_old)/n`, `M2' = M2 + (x − x_old)(x − mean' + x_old − mean)`.
/// Running updates drift on long series (catastrophic cancellation when the level is large
/// compared with the spread), so every `window` pushes the moments are recomputed exactly by the
/// two-pass formula from the window's contents: O(1) amortized, and the error never accumulates
/// beyond one window's worth of updates. Batch functions use this same type, so batch and streaming
/// results are bit-identical.
public struct RollingMoments: Sendable {
    @usableFromInline var buffer: RingBuffer
    @usableFromInline var meanValue = 0.0
    @usableFromInline var m2 = 0.0
    @usableFromInline var updatesSinceReseed = 0

    public init(window: Int) {
        precondition(window > 0, "window must be positive")
        buffer = RingBuffer(capacity: window)
    }

    @inlinable public var window: Int { buffer.capacity }
    /// Values currently in the window.
    @inlinable public var count: Int { buffer.count }
    @inlinable public var isFull: Bool { buffer.isFull }

    /// Adds `x`, dropping the oldest value once the window is full.
    @inlinable
    public mutating func push(_ x: Double) {
        if let old = buffer.push(x) {
            let n = Double(buffer.count)
            let oldMean = meanValue
            meanValue += (x - old) / n
            m2 += (x - old) * (x - meanValue + old - oldMean)
            updatesSinceReseed += 1
            if updatesSinceReseed >= buffer.capacity { reseed() }
        } else {
            let n = Double(buffer.count)
            let delta = x - meanValue
            meanValue += delta / n
            m2 += delta * (x - meanValue)
        }
    }

    /// Recomputes mean and M2 exactly (two-pass) from the window.
    @usableFromInline
    mutating func reseed() {
        let n = buffer.count
        var s = 0.0
        for i in 0..<n { s += buffer[i] }
        let mu = s / Double(n)
        var ss = 0.0
        for i in 0..<n {
            let d = buffer[i] - mu
            ss += d * d
        }
        meanValue = mu
        m2 = ss
        updatesSinceReseed = 0
    }

    /// Mean of the values in the window.
    @inlinable public var mean: Double { meanValue }

    /// Variance with `ddof` delta degrees of freedom (0: population, 1: sample).
    @inlinable
    public func variance(ddof: Int = 1) -> Double {
        let d = Double(buffer.count - ddof)
        return d > 0 ? max(0, m2) / d : .nan
    }

    /// Standard deviation with `ddof` delta degrees of freedom.
    @inlinable
    public func standardDeviation(ddof: Int = 1) -> Double { variance(ddof: ddof).squareRoot() }

    public mutating func reset() {
        buffer.removeAll()
        meanValue = 0
        m2 = 0
        updatesSinceReseed = 0
    }
}
