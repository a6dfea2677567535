/// A fixed-capacity FIFO of `Double`, allocated once, overwritten in place.
///
/// Streaming indicators keep their window here so that an update never allocates.
public struct RingBuffer: Sendable, Codable {
    @usableFromInline var storage: [Double]
    @usableFromInline var head = 0  // index of the oldest element
    @usableFromInline var _count = 0
    @inlinable public var count: Int { _count }

    public init(capacity: Int) {
        // The upper limit turns an impossible request into a trap here rather than an allocation whose byte count
        // overflows (front ends reject periods above SentioIndicators' `maximumIndicatorPeriod` first).
        precondition(capacity > 0 && capacity <= Int.max / MemoryLayout<Double>.stride / 2, "ring buffer capacity \(capacity) out of range")
        storage = [Double](repeating: 0, count: capacity)
    }

    @inlinable public var capacity: Int { storage.count }
    @inlinable public var isFull: Bool { count == storage.count }

    /// Appends `x`; when full, drops and returns the oldest element.
    @inlinable @inline(__always)
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

    /// The oldest element (`self[0]`) without the index arithmetic. Precondition: not empty.
    @inlinable public var oldest: Double {
        assert(count > 0, "ring buffer is empty")
        return storage[head]
    }

    /// The newest element.
    @inlinable public var last: Double? { count == 0 ? nil : self[count - 1] }

    public mutating func removeAll() {
        head = 0
        _count = 0
    }
}
