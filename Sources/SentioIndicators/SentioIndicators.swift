import SentioCore

// SentioIndicators: technical indicators and rolling statistics.
//
// Every indicator comes as a streaming state type (`update` one bar at a time, O(1), no allocation)
// and a batch function that runs that same `update` over a whole series, so batch and streaming
// results are bit-identical by construction. Batch results are `IndicatorSeries` (values plus the
// first valid index, TA-Lib's `outBegIdx`).

/// Runs `update` over `input` and collects the results into an ``IndicatorSeries`` whose values
/// are NaN where `update` returned `nil` (the warm-up).
@inlinable
func collectSeries(
    count: Int, lookback: Int, _ update: (Int) -> Double?
) -> IndicatorSeries {
    var values = [Double](repeating: .nan, count: count)
    values.withUnsafeMutableBufferPointer { out in
        for i in 0..<count {
            if let v = update(i) { out[i] = v }
        }
    }
    return IndicatorSeries(values: values, firstValidIndex: lookback)
}
