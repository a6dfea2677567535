import SentioCore

// SentioIndicators: technical indicators and rolling statistics.
//
// Every indicator comes as a streaming state type (`update` one bar at a time, O(1), no allocation)
// and a batch function that runs that same `update` over a whole series, so batch and streaming
// results are bit-identical by construction. Batch results are `IndicatorSeries` (values plus the
// first valid index, TA-Lib's `outBegIdx`).

/// The longest window or period an indicator, the signal model or a front end accepts: 1,000,000 bars (about 10
/// years of minute bars of a US session). Every state allocates its window up front, so a limit turns an absurd
/// request (`--volume-window 2305843009213693952`) into an input error instead of a failed allocation.
public let maximumIndicatorPeriod = 1_000_000

/// Runs `update` over `input` and collects the results into an `IndicatorSeries` whose values
/// are NaN where `update` returned `nil` (the warm-up). The first error thrown by `update` stops the
/// run and is rethrown.
@inlinable
func collectSeries<E: Error>(
    count: Int, lookback: Int, _ update: (Int) throws(E) -> Double?
) throws(E) -> IndicatorSeries {
    try collectSeries(count: count, lookback: lookback, state: ()) { (_, i) throws(E) in try update(i) }
}

/// Runs `step` over indices `0..<count` on a local copy of `state` (so that the state can live in registers
/// instead of behind a closure's capture) and collects the results like
/// ``collectSeries(count:lookback:_:)``: NaN for `nil`, the first error stops the run and is rethrown.
@inlinable
func collectSeries<State, E: Error>(
    count: Int, lookback: Int, state initial: State, _ step: (inout State, Int) throws(E) -> Double?
) throws(E) -> IndicatorSeries {
    var failure: E?
    let values = makeDoubleArray(count: count) { out in
        var state = initial
        for i in 0..<count {
            do throws(E) {
                out[i] = try step(&state, i) ?? .nan
            } catch {
                failure = error
                for j in i..<count { out[j] = .nan }
                return
            }
        }
    }
    if let failure { throw failure }
    return IndicatorSeries(values: values, firstValidIndex: lookback)
}
