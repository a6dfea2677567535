/// Independent checks used by the fuzz targets: nothing here calls Sentio.

/// The correctly rounded sum of `values` (Shewchuk's non-overlapping partials, as Python's `math.fsum`):
/// each partial holds part of the exact sum, so the result is the exact sum rounded once. `nil` when the exact
/// sum is outside the range of `Double` (or an intermediate partial overflows).
public func exactlyRoundedSum<S: Sequence>(_ values: S) -> Double? where S.Element == Double {
    var partials: [Double] = []
    for var x in values {
        guard x.isFinite else { return nil }
        var kept = 0
        for var y in partials {
            if abs(x) < abs(y) { swap(&x, &y) }
            let high = x + y
            guard high.isFinite else { return nil }
            let low = y - (high - x)
            if low != 0 { partials[kept] = low; kept += 1 }
            x = high
        }
        partials.removeSubrange(kept...)
        partials.append(x)
    }
    // Sum the partials from the top, with the half-way correction of fsum.
    guard var n = partials.indices.last else { return 0 }
    var high = partials[n]
    var low = 0.0
    while n > 0 {
        n -= 1
        let x = high
        let y = partials[n]
        high = x + y
        let yr = high - x
        low = y - yr
        if low != 0 { break }
    }
    if n > 0, (low < 0 && partials[n - 1] < 0) || (low > 0 && partials[n - 1] > 0) {
        let y = low * 2
        let x = high + y
        if y == x - high { high = x }
    }
    return high.isFinite ? high : nil
}

/// Whether `value` is within `tolerance × scale` of `reference`.
public func isClose(_ value: Double, _ reference: Double, tolerance: Double, scale: Double) -> Bool {
    value.isFinite && abs(value - reference) <= tolerance * scale
}

/// Stops the fuzzer with a message: libFuzzer records the input that got here as a crash.
public func finding(_ message: String) -> Never {
    fatalError("fuzz finding: \(message)")
}
