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
    let values = makeDoubleArray(count: count) { out in
        for i in 0..<count { out[i] = update(i) ?? .nan }
    }
    return IndicatorSeries(values: values, firstValidIndex: lookback)
}
