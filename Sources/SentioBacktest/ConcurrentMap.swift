import Dispatch

/// `(0..<count).map(body)` with the iterations spread over the machine's cores (per-symbol work in
/// `Strategy.prepare` is independent). Results keep their order; the first error (by index) is rethrown.
func concurrentMap<T>(_ count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
    guard count > 1 else { return try (0..<count).map(body) }
    // Each iteration writes only its own slot, so the unsynchronized buffer is race-free.
    nonisolated(unsafe) let slots = UnsafeMutableBufferPointer<Result<T, any Error>?>.allocate(capacity: count)
    slots.initialize(repeating: nil)
    defer {
        slots.deinitialize()
        slots.deallocate()
    }
    DispatchQueue.concurrentPerform(iterations: count) { i in
        slots[i] = Result { try body(i) }
    }
    return try slots.map { try $0!.get() }
}
