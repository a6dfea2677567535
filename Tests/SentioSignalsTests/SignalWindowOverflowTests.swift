import Foundation
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioSignals

/// Issue 11, class 3, in the streaming signal model: its volume ratio recovers from volume spikes (exact to
/// 1e-12 against exact integer arithmetic), and a window that cannot be represented is an error naming the bar.
@Suite("Signal model windows (issue 11, class 3)")
struct SignalWindowOverflowTests {
    /// 300 seeded random series with volume spikes of 1e6…1e300: every signal's volume ratio is within 1e-12
    /// (relative) of the exact `v·n/Σv` (NaN only for an all-zero window); streaming equals batch.
    @Test func volumeRatioFeatureIsExactAfterSpikes() throws {
        var rng = SplitMix64(seed: 0x11_03_10)
        var failures = 0
        for seed in 0..<300 {
            var config = SignalModelConfig()
            config.volumeWindow = Int.random(in: 2...30, using: &rng)
            config.regressionWindow = 24
            config.horizon = 2
            var series = randomSeries(symbol: "S\(seed)", bars: 200, seed: UInt64(seed) &+ 7_000)
            for i in series.volume.indices where Int.random(in: 0..<25, using: &rng) == 0 {
                series.volume[i] = (pow(10, Double.random(in: 6...300, using: &rng)) * Double.random(in: 1..<10, using: &rng)).rounded()
            }
            let signals = try SignalModel.evaluate(series, config: config)
            var state = SignalModelState(symbol: series.symbol, config: config)
            let n = config.volumeWindow
            var exact = ExactWindow(offset: ExactInteger.offset(for: series.volume), trackSquares: false)
            for t in 0..<series.count {
                let streamed = try state.update(series[bar: t])
                #expect(streamed.volumeRatio.bitPattern == signals[t].volumeRatio.bitPattern)
                #expect(streamed.aiSignal.bitPattern == signals[t].aiSignal.bitPattern)
                exact.add(series.volume[t])
                if exact.count > n { exact.removeOldest() }
                guard t >= n - 1 else { continue }
                let value = signals[t].volumeRatio
                if exact.exactSum.isZero {
                    #expect(value.isNaN)
                    continue
                }
                let ratio = Scaled(series.volume[t] * Double(n)) / exact.exactSum
                if !(value.isFinite && Scaled.distance(value, ratio).isAtMost(ratio.magnitude * Scaled(1e-12))) {
                    failures += 1
                    if failures <= 5 { Issue.record("seed \(seed) bar \(t): volume ratio \(value), exact \(ratio.double)") }
                }
            }
        }
        #expect(failures == 0)
    }

    /// Two volumes of 1e308 in one volume window: the bar whose window sum overflows is an error naming it; the
    /// state stays usable and later bars (after the window has moved on) are exact again.
    @Test func overflowingVolumeWindowIsAnErrorNamingTheBar() throws {
        var config = SignalModelConfig()
        config.volumeWindow = 3
        var series = randomSeries(symbol: "OVF", bars: 400, seed: 99)
        series.volume[200] = 1e308
        series.volume[201] = 1e308
        #expect(throws: SignalInputError.self) { _ = try SignalModel.evaluate(series, config: config) }
        var state = SignalModelState(symbol: "OVF", config: config)
        var failedBars: [Int] = []
        for t in 0..<series.count {
            do {
                let signal = try state.update(series[bar: t])
                if t > 205 {
                    let window = series.volume[(t - 2)...t]
                    expectClose(signal.volumeRatio, series.volume[t] * 3 / window.reduce(0, +), relative: 1e-14)
                }
            } catch {
                failedBars.append(t)
                guard case let .unrepresentable(symbol, barIndex, timestamp, detail) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(symbol == "OVF" && barIndex == t && timestamp == series.timestamps[t])
                #expect(detail.contains("volume ratio (window 3)") && detail.contains("bars \(t - 2)…\(t)"))
                #expect(error.description.contains("bar \(t)"))
            }
        }
        #expect(failedBars == [201, 202])  // the two windows holding both volumes
        #expect(state.barsSeen == series.count)
    }
}
