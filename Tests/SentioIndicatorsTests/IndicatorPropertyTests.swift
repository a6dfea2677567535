import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

/// A seeded random walk of positive prices with OHLCV bars (high ≥ max(open, close), etc.): SentioTestSupport's
/// walk `.volatile`, as columns.
func randomBars(count: Int, seed: UInt64) -> (open: [Double], high: [Double], low: [Double], close: [Double], volume: [Double]) {
    let s = randomSeries(symbol: "R", count: count, start: 0, step: 1, seed: seed, walk: .volatile)
    return (s.open, s.high, s.low, s.close, s.volume)
}


/// One indicator, seen three ways: batch, streaming, and its lookback.
struct IndicatorCase: CustomTestStringConvertible, Sendable {
    let name: String
    let lookback: Int
    let batch: @Sendable (_ high: [Double], _ low: [Double], _ close: [Double], _ volume: [Double]) throws -> IndicatorSeries
    let streaming: @Sendable (_ high: [Double], _ low: [Double], _ close: [Double], _ volume: [Double]) throws -> [Double?]
    var testDescription: String { name }
}

func streamAll<S>(_ state: S, _ count: Int, _ step: (inout S, Int) throws -> Double?) rethrows -> [Double?] {
    var s = state
    return try (0..<count).map { try step(&s, $0) }
}

let indicatorCases: [IndicatorCase] = [
    IndicatorCase(name: "RSI(14)", lookback: 14, batch: { _, _, c, _ in relativeStrengthIndex(c, period: 14) },
                  streaming: { _, _, c, _ in streamAll(RelativeStrengthIndex(period: 14), c.count) { $0.update(c[$1]) } }),
    IndicatorCase(name: "RSI(2)", lookback: 2, batch: { _, _, c, _ in relativeStrengthIndex(c, period: 2) },
                  streaming: { _, _, c, _ in streamAll(RelativeStrengthIndex(period: 2), c.count) { $0.update(c[$1]) } }),
    IndicatorCase(name: "SMA(20)", lookback: 19, batch: { _, _, c, _ in try simpleMovingAverage(c, period: 20) },
                  streaming: { _, _, c, _ in try streamAll(SimpleMovingAverage(period: 20), c.count) { try $0.update(c[$1]) } }),
    IndicatorCase(name: "EMA(20)", lookback: 19, batch: { _, _, c, _ in exponentialMovingAverage(c, period: 20) },
                  streaming: { _, _, c, _ in streamAll(ExponentialMovingAverage(period: 20), c.count) { $0.update(c[$1]) } }),
    IndicatorCase(name: "ATR(14)", lookback: 14, batch: { h, l, c, _ in try averageTrueRange(high: h, low: l, close: c, period: 14) },
                  streaming: { h, l, c, _ in try streamAll(AverageTrueRange(period: 14), c.count) { try $0.update(high: h[$1], low: l[$1], close: c[$1]) } }),
    IndicatorCase(name: "VolumeRatio(20)", lookback: 19, batch: { _, _, _, v in try volumeRatio(v, window: 20) },
                  streaming: { _, _, _, v in try streamAll(VolumeRatio(window: 20), v.count) { try $0.update(v[$1]) } }),
    IndicatorCase(name: "RollingMean(7)", lookback: 6, batch: { _, _, c, _ in rollingMean(c, window: 7) },
                  streaming: { _, _, c, _ in streamAll(RollingMean(window: 7), c.count) { $0.update(c[$1]) } }),
    IndicatorCase(name: "RollingStd(20)", lookback: 19, batch: { _, _, c, _ in try rollingStandardDeviation(c, window: 20) },
                  streaming: { _, _, c, _ in try streamAll(RollingStandardDeviation(window: 20), c.count) { try $0.update(c[$1]) } }),
    IndicatorCase(name: "RollingStd(5, ddof 0)", lookback: 4, batch: { _, _, c, _ in try rollingStandardDeviation(c, window: 5, ddof: 0) },
                  streaming: { _, _, c, _ in try streamAll(RollingStandardDeviation(window: 5, ddof: 0), c.count) { try $0.update(c[$1]) } }),
    IndicatorCase(name: "ZScore(20)", lookback: 19, batch: { _, _, c, _ in rollingZScore(c, window: 20) },
                  streaming: { _, _, c, _ in streamAll(RollingZScore(window: 20), c.count) { $0.update(c[$1]) } }),
]

@Suite("Indicator properties")
struct IndicatorPropertyTests {
    @Test("batch equals streaming bit for bit", arguments: indicatorCases)
    func batchEqualsStreaming(_ indicator: IndicatorCase) throws {
        for seed in UInt64(1)...5 {
            let b = randomBars(count: 1_000, seed: seed)
            let batch = try indicator.batch(b.high, b.low, b.close, b.volume)
            let stream = try indicator.streaming(b.high, b.low, b.close, b.volume)
            #expect(batch.firstValidIndex == indicator.lookback)
            #expect(stream.firstIndex { $0 != nil } == indicator.lookback, "streaming warm-up")
            var mismatches = 0
            for i in 0..<b.close.count {
                if let s = stream[i] {
                    if s.bitPattern != batch.values[i].bitPattern { mismatches += 1 }
                } else if !batch.values[i].isNaN || i >= indicator.lookback {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "seed \(seed)")
            #expect(batch.validValues.allSatisfy { $0.isFinite }, "finite on random data, seed \(seed)")
        }
    }

    @Test("no look-ahead: values on a prefix equal the prefix of the values", arguments: indicatorCases)
    func prefixInvariance(_ indicator: IndicatorCase) throws {
        let b = randomBars(count: 600, seed: 42)
        let full = try indicator.batch(b.high, b.low, b.close, b.volume)
        for m in [0, 1, indicator.lookback, indicator.lookback + 1, 137, 599] {
            let prefix = try indicator.batch(Array(b.high[..<m]), Array(b.low[..<m]), Array(b.close[..<m]), Array(b.volume[..<m]))
            #expect(prefix.values.count == m)
            #expect(prefix.firstValidIndex == min(indicator.lookback, m))
            let expected = IndicatorSeries(values: Array(full.values[..<m]), firstValidIndex: full.firstValidIndex)
            #expect(prefix == expected, "prefix length \(m)")
        }
    }

    @Test("inputs shorter than the lookback give an all-invalid series", arguments: indicatorCases)
    func shortInputs(_ indicator: IndicatorCase) throws {
        let b = randomBars(count: indicator.lookback, seed: 7)
        for m in 0...indicator.lookback {
            let s = try indicator.batch(Array(b.high[..<m]), Array(b.low[..<m]), Array(b.close[..<m]), Array(b.volume[..<m]))
            #expect(s.values.count == m)
            #expect(s.firstValidIndex == m)
            #expect(s.values.allSatisfy { $0.isNaN })
            #expect(s.validValues.isEmpty)
        }
    }

    @Test func rsiIsBetween0And100AndMonotoneSeriesSaturate() {
        let b = randomBars(count: 2_000, seed: 3)
        #expect(relativeStrengthIndex(b.close).validValues.allSatisfy { $0 >= 0 && $0 <= 100 })
        let up = (0..<50).map { 100.0 + Double($0) }
        #expect(relativeStrengthIndex(up).validValues.allSatisfy { $0 == 100 })
        let down = (0..<50).map { 100.0 - Double($0) }
        #expect(relativeStrengthIndex(down).validValues.allSatisfy { $0 == 0 })
        let flat = [Double](repeating: 10, count: 30)
        #expect(relativeStrengthIndex(flat).validValues.allSatisfy { $0 == 50 })
    }

    @Test func smaAndEmaAgreeWithNaiveFormulas() throws {
        let b = randomBars(count: 300, seed: 11)
        let x = b.close, n = 10
        let sma = try simpleMovingAverage(x, period: n), ema = exponentialMovingAverage(x, period: n)
        let k = 2.0 / Double(n + 1)
        var e = x[0..<n].reduce(0, +) / Double(n)
        for t in (n - 1)..<x.count {
            expectClose(sma.values[t], x[(t - n + 1)...t].reduce(0, +) / Double(n), relative: 1e-12)
            if t >= n { e = k * x[t] + (1 - k) * e }
            expectClose(ema.values[t], e, relative: 1e-12)
        }
    }

    @Test func atrAgreesWithNaiveFormula() throws {
        let b = randomBars(count: 300, seed: 12)
        let n = 5
        let atr = try averageTrueRange(high: b.high, low: b.low, close: b.close, period: n)
        var tr: [Double] = []
        for t in 1..<b.close.count {
            let range: Double = b.high[t] - b.low[t]
            let fromHigh: Double = abs(b.high[t] - b.close[t - 1])
            let fromLow: Double = abs(b.low[t] - b.close[t - 1])
            tr.append(max(range, fromHigh, fromLow))
        }
        var a = tr[0..<n].reduce(0, +) / Double(n)
        expectClose(atr.values[n], a, relative: 1e-13)
        for t in (n + 1)..<b.close.count {
            a = (a * Double(n - 1) + tr[t - 1]) / Double(n)
            expectClose(atr.values[t], a, relative: 1e-12)
        }
    }

    @Test func volumeRatioZeroWindowIsNaN() throws {
        var volume = [Double](repeating: 100, count: 10) + [Double](repeating: 0, count: 10) + [50, 0, 0]
        volume += [Double](repeating: 0, count: 5)
        let ratio = try volumeRatio(volume, window: 4)
        // Windows ending at 13...19 hold only zeros.
        for t in 13...19 { #expect(ratio.values[t].isNaN, "index \(t)") }
        #expect(ratio.values[10] == 0)  // zero volume in a traded window
        #expect(ratio.values[20] == 4)  // 50 / mean(0, 0, 0, 50)
        #expect(ratio.values[21] == 0)
        for t in 24..<volume.count { #expect(ratio.values[t].isNaN) }
        var stream = VolumeRatio(window: 4)
        for t in volume.indices {
            let v = try stream.update(volume[t])
            #expect(t < 3 ? v == nil : v!.bitPattern == ratio.values[t].bitPattern)
        }
    }

    @Test func zScoreOfConstantWindowIsNaN() {
        let x = [Double](repeating: 3, count: 10) + [4]
        let z = rollingZScore(x, window: 5)
        for t in 4..<10 { #expect(z.values[t].isNaN) }
        // Last window [3, 3, 3, 3, 4]: mean 3.2, sample std √0.2.
        expectClose(z.values[10], 0.8 / 0.2.squareRoot(), relative: 1e-12)
    }

    /// 10⁶ points with a large level and a small spread (the hard case for running sums):
    /// the streaming standard deviation must agree with a two-pass per-window recomputation.
    @Test func rollingStdDoesNotDriftOverAMillionPoints() throws {
        var rng = SplitMix64(seed: 2024)
        let count = 1_000_000, window = 50
        var x = [Double](repeating: 0, count: count)
        var level = 1e6
        for i in 0..<count {
            level += rng.nextGaussian()
            x[i] = level + 0.01 * rng.nextGaussian()
        }
        let std = try rollingStandardDeviation(x, window: window)
        let mean = rollingMean(x, window: window)
        var worstStd = 0.0, worstMean = 0.0
        for t in stride(from: window - 1, to: count, by: 9_973) + [count - 1] {
            let w = x[(t - window + 1)...t]
            let mu = w.reduce(0, +) / Double(window)
            var ss = 0.0
            for v in w { ss += (v - mu) * (v - mu) }
            let s = (ss / Double(window - 1)).squareRoot()
            worstStd = max(worstStd, relativeDifference(std.values[t], s))
            worstMean = max(worstMean, relativeDifference(mean.values[t], mu))
        }
        #expect(worstStd < 1e-8, "worst relative error of rolling std \(worstStd)")
        #expect(worstMean < 1e-13, "worst relative error of rolling mean \(worstMean)")
    }
}
