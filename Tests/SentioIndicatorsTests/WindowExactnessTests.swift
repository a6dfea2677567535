import Foundation
import SentioCore
@testable import SentioIndicators
import SentioTestSupport
import Testing

// Issue 11, class 3: every windowed statistic, for any finite input, is within 1e-12 (relative to the
// window's magnitude, as documented per statistic) of the exact windowed computation — checked against exact
// integer arithmetic (Tests/SentioTestSupport/ExactSum.swift) on seeded random series with spikes of
// 1e6…1e300 at random positions; a window that cannot be represented is a WindowOverflowError naming the bar.

let u = 0x1p-53
let tau = 1e-12

/// A random series of `count` values: a base level (a positive random walk, or signed noise) with spikes of
/// magnitude 10^U(6, 300) (random sign unless `positive`) at random positions, and sometimes runs of zeros.
func spikySeries(_ rng: inout SplitMix64, count: Int, positive: Bool, maxSpikeExponent: Double = 300) -> [Double] {
    var xs = [Double](repeating: 0, count: count)
    let spikeProbability = Double.random(in: 0.005...0.1, using: &rng)
    let signedBase = !positive && Bool.random(using: &rng)
    let baseScale = pow(10, Double.random(in: -3...4, using: &rng))
    var level = baseScale * Double.random(in: 1...10, using: &rng)
    let zeroRuns = positive && Int.random(in: 0..<4, using: &rng) == 0
    var i = 0
    while i < count {
        if zeroRuns && Int.random(in: 0..<40, using: &rng) == 0 {
            let run = Int.random(in: 1...30, using: &rng)
            for j in i..<min(count, i + run) { xs[j] = 0 }
            i += run
            continue
        }
        if Double.random(in: 0..<1, using: &rng) < spikeProbability {
            let magnitude = pow(10, Double.random(in: 6...maxSpikeExponent, using: &rng)) * Double.random(in: 1..<10, using: &rng)
            xs[i] = positive || Bool.random(using: &rng) ? magnitude : -magnitude
        } else if signedBase {
            xs[i] = baseScale * rng.nextGaussian()
        } else {
            level = abs(level * (1 + 0.02 * rng.nextGaussian()))
            // Round like market data sometimes does, sometimes keep full precision.
            xs[i] = positive && Bool.random(using: &rng) ? (level * 100).rounded() / 100 : level
        }
        i += 1
    }
    return xs
}

/// `|actual − exact| ≤ bound`, in an unbounded exponent range.
func within(_ actual: Double, _ exact: Scaled, _ bound: Scaled) -> Bool {
    guard actual.isFinite else { return false }
    return Scaled.distance(actual, exact).isAtMost(bound)
}

func scaled(_ x: Double) -> Scaled { Scaled(x) }

@Suite("Windowed statistics vs exact arithmetic (issue 11, class 3)")
struct WindowExactnessTests {
    /// SMA: each value within 1e-12·Σ|x|/n of Σx/n; overflow of Σx is an error naming the bar; batch equals
    /// streaming bit for bit (including the error).
    @Test func smaIsWithinToleranceOfExactMeanOnSpikySeries() throws {
        var rng = SplitMix64(seed: 0x11_03_01)
        var checked = 0, failures = 0
        for series in 0..<2_000 {
            let n = Int.random(in: 1...40, using: &rng)
            let xs = spikySeries(&rng, count: Int.random(in: 50...250, using: &rng), positive: Bool.random(using: &rng))
            var exact = ExactWindow(offset: ExactInteger.offset(for: xs), trackSquares: false)
            var state = SimpleMovingAverage(period: n)
            var streamed: [Double] = []
            for (t, x) in xs.enumerated() {
                exact.add(x)
                if exact.count > n { exact.removeOldest() }
                let value = try state.update(x)
                streamed.append(value ?? .nan)
                guard let value else {
                    #expect(t < n - 1)
                    continue
                }
                let mean = exact.exactSum / scaled(Double(n))
                let bound = exact.exactAbsoluteSum * scaled(tau / Double(n))
                if !within(value, mean, Scaled(mantissa: bound.mantissa, exponent: bound.exponent)) {
                    failures += 1
                    if failures <= 5 { Issue.record("series \(series) n \(n) bar \(t): SMA \(value), exact \(mean.double)") }
                }
                checked += 1
            }
            let batch = try simpleMovingAverage(xs, period: n)
            #expect(IndicatorSeries(values: streamed, firstValidIndex: n - 1) == batch, "series \(series): batch ≠ streaming")
        }
        #expect(failures == 0)
        #expect(checked > 200_000)
    }

    /// Volume ratio: within 1e-12 relative of v·n/Σv (non-negative volumes, spikes, zero runs); NaN exactly
    /// when the window is all zeros.
    @Test func volumeRatioIsWithinToleranceOfExactRatio() throws {
        var rng = SplitMix64(seed: 0x11_03_02)
        var failures = 0
        for series in 0..<2_000 {
            let n = Int.random(in: 1...40, using: &rng)
            let vs = spikySeries(&rng, count: Int.random(in: 50...250, using: &rng), positive: true).map { $0.rounded() }
            var exact = ExactWindow(offset: ExactInteger.offset(for: vs), trackSquares: false)
            var state = VolumeRatio(window: n)
            var streamed: [Double] = []
            for (t, v) in vs.enumerated() {
                exact.add(v)
                if exact.count > n { exact.removeOldest() }
                let value = try state.update(v)
                streamed.append(value ?? .nan)
                guard let value else { continue }
                if exact.exactSum.isZero {
                    if !value.isNaN { failures += 1; Issue.record("series \(series) bar \(t): all-zero window gave \(value)") }
                    continue
                }
                let ratio = scaled(v * Double(n)) / exact.exactSum
                let bound = ratio.magnitude * scaled(tau)
                if !within(value, ratio, bound) {
                    failures += 1
                    if failures <= 5 { Issue.record("series \(series) n \(n) bar \(t): ratio \(value), exact \(ratio.double)") }
                }
            }
            #expect(IndicatorSeries(values: streamed, firstValidIndex: n - 1) == (try volumeRatio(vs, window: n)))
        }
        #expect(failures == 0)
    }

    /// Rolling mean (Welford with error bound): within 1e-12·Σ|x|/n of the exact mean.
    @Test func rollingMeanIsWithinToleranceOfExactMean() throws {
        var rng = SplitMix64(seed: 0x11_03_03)
        var failures = 0
        for series in 0..<2_000 {
            let n = Int.random(in: 1...40, using: &rng)
            let xs = spikySeries(&rng, count: Int.random(in: 50...250, using: &rng), positive: false)
            var exact = ExactWindow(offset: ExactInteger.offset(for: xs), trackSquares: false)
            var state = RollingMean(window: n)
            for (t, x) in xs.enumerated() {
                exact.add(x)
                if exact.count > n { exact.removeOldest() }
                guard let value = state.update(x) else { continue }
                let mean = exact.exactSum / scaled(Double(n))
                let bound = exact.exactAbsoluteSum * scaled(tau / Double(n))
                if !within(value, mean, bound) {
                    failures += 1
                    if failures <= 5 { Issue.record("series \(series) n \(n) bar \(t): mean \(value), exact \(mean.double)") }
                }
            }
        }
        #expect(failures == 0)
    }

    /// Rolling standard deviation and z-score against exact `n·M2 = n·Σx² − (Σx)²`:
    /// `|s − s*| ≤ 1e-12·R` with `R = √(Σx²/(n − ddof))`, and `|z − z*| ≤ 1e-12·(1 + |z*|)·R/s*` (NaN exactly
    /// for a constant window).
    @Test func rollingStdAndZScoreAreWithinToleranceOfExactValues() throws {
        var rng = SplitMix64(seed: 0x11_03_04)
        var failures = 0, constantWindows = 0, checked = 0
        for series in 0..<1_000 {
            let n = Int.random(in: 2...30, using: &rng)
            let ddof = Int.random(in: 0...1, using: &rng)
            var xs = spikySeries(&rng, count: Int.random(in: 40...120, using: &rng), positive: Bool.random(using: &rng))
            if series % 5 == 0 {
                // Constant stretches (after a spike) must give z = NaN exactly and std 0.
                let c = xs[0]
                for i in stride(from: 10, to: xs.count, by: 1) where (i / 15) % 2 == 0 { xs[i] = c }
            }
            var exact = ExactWindow(offset: ExactInteger.offset(for: xs))
            var std = RollingStandardDeviation(window: n, ddof: ddof)
            var z = RollingZScore(window: n, ddof: ddof)
            for (t, x) in xs.enumerated() {
                exact.add(x)
                if exact.count > n { exact.removeOldest() }
                let s = try std.update(x)
                let zValue = z.update(x)
                guard let s, let zValue else { continue }
                checked += 1
                let d = Double(n - ddof)
                let nM2 = exact.countTimesM2
                let exactStd = (nM2 / scaled(Double(n) * d)).squareRoot()
                let r = (exact.exactSumOfSquares / scaled(d)).squareRoot()
                if !within(s, exactStd, r * scaled(tau)) {
                    failures += 1
                    if failures <= 5 { Issue.record("series \(series) n \(n) ddof \(ddof) bar \(t): std \(s), exact \(exactStd.double)") }
                }
                if nM2.isZero {
                    constantWindows += 1
                    if !zValue.isNaN { failures += 1; Issue.record("series \(series) bar \(t): constant window z \(zValue)") }
                    continue
                }
                let exactZ = exact.countTimesDeviation(x) * scaled((d / Double(n)).squareRoot()) / nM2.squareRoot()
                let zBound = (scaled(1 + abs(exactZ.double)) * r / exactStd) * scaled(tau)
                if !within(zValue, exactZ, zBound) {
                    failures += 1
                    if failures <= 5 { Issue.record("series \(series) n \(n) bar \(t): z \(zValue), exact \(exactZ.double)") }
                }
            }
        }
        #expect(failures == 0)
        #expect(constantWindows > 1_000)
        #expect(checked > 50_000)
    }

    /// ATR's seed: the first ATR is within 1e-12 (relative) of the exact mean of the seed's true ranges, for
    /// short (TA-Lib's plain sum) and long (compensated) seeds, with spikes.
    @Test func atrSeedIsWithinToleranceOfExactMean() throws {
        var rng = SplitMix64(seed: 0x11_03_05)
        var failures = 0
        for series in 0..<600 {
            let period = series % 100 == 0 ? Int.random(in: 4_097...6_000, using: &rng) : Int.random(in: 1...60, using: &rng)
            let close = spikySeries(&rng, count: period + 1, positive: true)
            let high = close.map { $0 * 1.01 }, low = close.map { $0 * 0.99 }
            let atr = try averageTrueRange(high: high, low: low, close: close, period: period)
            var ranges: [Double] = []
            for i in 1...period { ranges.append(trueRange(high: high[i], low: low[i], previousClose: close[i - 1])) }
            var exact = ExactWindow(offset: ExactInteger.offset(for: ranges), trackSquares: false)
            for r in ranges { exact.add(r) }
            let mean = exact.exactSum / scaled(Double(period))
            if !within(atr.values[period], mean, mean.magnitude * scaled(tau)) {
                failures += 1
                Issue.record("series \(series) period \(period): ATR seed \(atr.values[period]), exact \(mean.double)")
            }
        }
        #expect(failures == 0)
    }

    /// Rolling OLS: the state's window means and centered co-moments are within the documented tolerance of
    /// the exact values (`|mᵢ − mᵢ*| ≤ 1e-12·Σ|zᵢ|/W`, `|Cᵢⱼ − Cᵢⱼ*| ≤ 1e-12·(√(Cᵢᵢ*Qⱼ) + √(QᵢCⱼⱼ*))`) after
    /// every update, on series with spikes (up to 1e150, so that the moments stay representable).
    @Test func rollingRegressionMomentsAreWithinToleranceOfExactMoments() throws {
        var rng = SplitMix64(seed: 0x11_03_06)
        var failures = 0, checked = 0
        for series in 0..<400 {
            let k = Int.random(in: 1...2, using: &rng)
            let m = k + 1
            let window = Int.random(in: (k + 2)...30, using: &rng)
            let count = Int.random(in: 40...120, using: &rng)
            let columns = (0..<m).map { _ in spikySeries(&rng, count: count, positive: false, maxSpikeExponent: 150) }
            let offset = columns.map { ExactInteger.offset(for: $0) }.min()!
            var state = RollingRegression(window: window, regressorCount: k, reseedInterval: Int.random(in: 1...2_000, using: &rng))
            var exact = (0..<m).map { _ in ExactWindow(offset: offset) }
            var cross = [ExactInteger](repeating: ExactInteger(), count: m * m)
            for t in 0..<count {
                let z = (0..<m).map { columns[$0][t] }
                for i in 0..<m {
                    exact[i].add(z[i])
                    if exact[i].count > window { exact[i].removeOldest() }
                }
                for i in 0..<m {
                    for j in 0..<m {
                        cross[i * m + j] = cross[i * m + j] + ExactInteger(z[i], offset: offset) * ExactInteger(z[j], offset: offset)
                        if t >= window {
                            let oi = columns[i][t - window], oj = columns[j][t - window]
                            cross[i * m + j] = cross[i * m + j] - ExactInteger(oi, offset: offset) * ExactInteger(oj, offset: offset)
                        }
                    }
                }
                let status = state.update(y: z[k], regressors: Array(z[0..<k]))
                guard status != .warmingUp else { continue }
                #expect(status != .unrepresentable && status != .nonFiniteInput, "series \(series) row \(t)")
                checked += 1
                let L = state.layout
                let w = Double(window)
                // Exact W·Cᵢⱼ = W·Σzᵢzⱼ − ΣzᵢΣzⱼ.
                func exactC(_ i: Int, _ j: Int) -> Scaled {
                    (cross[i * m + j].times(window) - exact[i].sum * exact[j].sum).scaled(offset: 2 * offset) / scaled(w)
                }
                for i in 0..<m {
                    let mean = exact[i].exactSum / scaled(w)
                    if !within(state.storage[L.mean + i], mean, exact[i].exactAbsoluteSum * scaled(tau / w)) {
                        failures += 1
                        if failures <= 5 { Issue.record("series \(series) row \(t): mean \(i) \(state.storage[L.mean + i]) vs \(mean.double)") }
                    }
                    for j in i..<m {
                        let c = exactC(i, j)
                        let bound = (exactC(i, i) * exact[j].exactSumOfSquares).squareRoot().double
                            + (exact[i].exactSumOfSquares * exactC(j, j)).squareRoot().double
                        if !within(state.storage[L.comoments + i + j * m], c, scaled(bound * tau)) {
                            failures += 1
                            if failures <= 5 {
                                Issue.record("series \(series) W \(window) row \(t): C[\(i),\(j)] \(state.storage[L.comoments + i + j * m]) vs \(c.double)")
                            }
                        }
                    }
                }
            }
        }
        #expect(failures == 0)
        #expect(checked > 10_000)
    }

    /// Overflow: values of ±1e308 scattered among ordinary ones. The SMA and the volume ratio throw exactly at
    /// the bars whose exact window sum is not representable (naming that bar and its window), and otherwise
    /// stay within tolerance — also right after such a bar (the state stays usable).
    @Test func unrepresentableWindowSumsAreErrorsNamingTheBar() throws {
        var rng = SplitMix64(seed: 0x11_03_07)
        var errors = 0, failures = 0
        for series in 0..<1_000 {
            let n = Int.random(in: 2...12, using: &rng)
            let positive = series % 2 == 0
            let xs = (0..<80).map { _ -> Double in
                guard Int.random(in: 0..<6, using: &rng) == 0 else { return Double.random(in: 1...100, using: &rng).rounded() }
                let big = Bool.random(using: &rng) ? 9e307 : 1.7e308
                return positive || Bool.random(using: &rng) ? big : -big
            }
            var exact = ExactWindow(offset: ExactInteger.offset(for: xs), trackSquares: false)
            var sma = SimpleMovingAverage(period: n)
            var ratio = VolumeRatio(window: n)
            var firstError: Int?
            for (t, x) in xs.enumerated() {
                exact.add(x)
                if exact.count > n { exact.removeOldest() }
                let overflows = t >= n - 1 && !exact.exactSum.double.isFinite
                do {
                    let value = try sma.update(x)
                    if overflows {
                        failures += 1
                        if failures <= 5 { Issue.record("series \(series) bar \(t): no error, SMA \(String(describing: value))") }
                    }
                    if let value, !overflows {
                        let bound = exact.exactAbsoluteSum * scaled(tau / Double(n))
                        if !within(value, exact.exactSum / scaled(Double(n)), bound) {
                            failures += 1
                            if failures <= 5 { Issue.record("series \(series) bar \(t): SMA \(value) vs \((exact.exactSum / scaled(Double(n))).double)") }
                        }
                    }
                } catch {
                    errors += 1
                    firstError = firstError ?? t
                    #expect(overflows, "series \(series) bar \(t): unexpected \(error)")
                    #expect(error.barIndex == t && error.windowStart == t - n + 1 && error.quantity == "window sum")
                    #expect(error.description.contains("bar \(t)") && error.description.contains("SMA(\(n))"))
                }
                if positive {
                    do {
                        _ = try ratio.update(x)
                        #expect(!overflows, "series \(series) bar \(t): volume ratio without error")
                    } catch {
                        #expect(overflows && error.barIndex == t)
                    }
                }
            }
            // The batch function stops at the first such bar and names it.
            do {
                _ = try simpleMovingAverage(xs, period: n)
                #expect(firstError == nil)
            } catch {
                #expect(error.barIndex == firstError)
            }
        }
        #expect(failures == 0)
        #expect(errors > 500)
    }

    /// Rolling std: a standard deviation above the largest double is an error; the z-score is computed in
    /// the window's scale and stays finite.
    @Test func standardDeviationOverflowIsAnError() throws {
        var std = RollingStandardDeviation(window: 2, ddof: 1)
        var z = RollingZScore(window: 2)
        _ = try std.update(1.7e308)
        _ = z.update(1.7e308)
        #expect(throws: WindowOverflowError.self) { _ = try std.update(-1.7e308) }
        let zUpdate = z.update(-1.7e308)
        let zValue = try #require(zUpdate)
        expectClose(zValue, -0.5.squareRoot(), relative: 1e-15)
        // std of (−1.7e308, 1e300) is representable again.
        let sUpdate = try std.update(1e300)
        let s = try #require(sUpdate)
        expectClose(s, (1.7e308 + 1e300) / 2.0.squareRoot(), relative: 1e-15)
    }
}

@Suite("Issue 11 examples: rolling sums recover from a large value")
struct RollingSumRegressionTests {
    @Test func smaOfPeriodTwoRecoversAfter1e20() throws {
        let xs: [Double] = [1, 1e20] + [Double](repeating: 1, count: 30)
        let sma = try simpleMovingAverage(xs, period: 2)
        #expect(sma.values[1] == 5e19)
        #expect(sma.values[2] == 5e19)
        for t in 3..<xs.count { #expect(sma.values[t] == 1, "bar \(t): \(sma.values[t])") }
    }

    /// A volume of 1e17, 1e18 and 1e308 in a window of 20: once it has left, the ratio is the exact one again
    /// (before: 1.25 instead of 1.3333, empty, negative).
    @Test(arguments: [1e17, 1e18, 1e308])
    func volumeRatioRecoversAfterASpike(_ spike: Double) throws {
        var volumes = [Double](repeating: 300, count: 30)
        volumes[5] = spike
        for t in 30..<80 { volumes.append(t % 2 == 0 ? 400 : 200) }
        let ratio = try volumeRatio(volumes, window: 20)
        for t in 25..<volumes.count {
            let window = volumes[(t - 19)...t]
            let exact = volumes[t] * 20 / window.reduce(0, +)  // exact: small integers
            #expect(ratio.values[t] == exact, "bar \(t)")
        }
        for t in 19..<25 {
            #expect(ratio.values[t].isFinite && ratio.values[t] >= 0, "bar \(t)")
        }
    }

    @Test func twoVolumesOf1e308InOneWindowAreAnErrorNamingTheBar() {
        let volumes: [Double] = [1, 2, 1e308, 3, 1e308, 4]
        #expect(throws: WindowOverflowError(statistic: "volume ratio (window 3)", barIndex: 4, windowStart: 2, quantity: "window sum")) {
            _ = try volumeRatio(volumes, window: 3)
        }
        #expect(throws: WindowOverflowError(statistic: "SMA(3)", barIndex: 4, windowStart: 2, quantity: "window sum")) {
            _ = try simpleMovingAverage(volumes, period: 3)
        }
    }

    @Test func atrOverflowAndTALibOrderFallback() throws {
        // The seed's sum of true ranges overflows: an error naming the seed bar.
        let close: [Double] = [1, 1.5e308, 1, 1.5e308, 1]
        #expect(throws: WindowOverflowError.self) {
            _ = try averageTrueRange(high: close, low: close, close: close, period: 2)
        }
        // ATR·(n − 1) overflows in TA-Lib's order but the ATR does not: the step is taken as
        // ATR + (TR − ATR)/n instead, a finite value.
        let c2: [Double] = [1, 1, 1, 1, 1.7e308, 1, 1.7e308, 1, 1.7e308]
        let atr = try averageTrueRange(high: c2, low: c2, close: c2, period: 3)
        #expect(atr.values[3] == 0)
        #expect(atr.values[4...].allSatisfy { $0.isFinite && $0 > 5e307 })
        expectClose(atr.values[5], atr.values[4] + (1.7e308 - 1 - atr.values[4]) / 3, relative: 1e-15)
    }

    /// A true range that overflows (high 1.7e308, low −1.7e308), also after the seed, is an error naming the bar.
    @Test func trueRangeOverflowIsAnError() {
        let high: [Double] = [2, 2, 2, 2, 2, 1.7e308, 2]
        let low: [Double] = [1, 1, 1, 1, 1, -1.7e308, 1]
        let close: [Double] = [1.5, 1.5, 1.5, 1.5, 1.5, 1, 1.5]
        #expect(throws: WindowOverflowError(statistic: "ATR(2)", barIndex: 5, windowStart: 5, quantity: "true range")) {
            _ = try averageTrueRange(high: high, low: low, close: close, period: 2)
        }
    }

    /// RSI and EMA never overflow for finite inputs (they used to print NaN/empty cells): closes alternating
    /// between 1 and 1.7e308 give RSI values in [0, 100] and finite EMAs; ordinary data stays bit-identical
    /// (the TA-Lib golden tests).
    @Test func rsiAndEmaDoNotOverflow() throws {
        let close = (0..<60).map { $0 % 3 == 0 ? 1.7e308 : 1.0 }
        for period in [2, 14] {
            let rsi = relativeStrengthIndex(close, period: period)
            #expect(rsi.validValues.allSatisfy { $0 >= 0 && $0 <= 100 }, "RSI(\(period))")
            let ema = exponentialMovingAverage(close, period: period)
            #expect(ema.validValues.allSatisfy { $0.isFinite && $0 > 0 }, "EMA(\(period))")
        }
    }
}
