import Foundation
import SentioCore
import SentioIndicators
import SentioTestSupport
import Testing

@testable import SentioSignals

/// The walk-forward confidence calibrator: never uses an unresolved outcome, stays in [0, 1], is monotone in the
/// directional score, and is the base rate before its minimum.
@Suite struct CalibrationTests {
    /// A config with a short warm-up so that random series give many resolved signals.
    static let fast: SignalModelConfig = {
        var c = SignalModelConfig()
        c.regressionWindow = 30
        c.horizon = 3
        c.shortMomentumPeriod = 3
        c.mediumMomentumPeriod = 8
        c.rsiPeriod = 7
        c.atrPeriod = 7
        c.volumeWindow = 8
        c.calibrationMinimumSignals = 10
        c.buyScoreThreshold = 0.5
        c.sellScoreThreshold = 0.5
        c.minimumConfidence = 0
        return c
    }()

    /// `fast` with small pseudo-counts and 4 bins, so that every level of the calibrator moves on 400 bars.
    static let fastSmallPrior: SignalModelConfig = {
        var c = fast
        c.calibrationBins = 4
        c.calibrationPriorWeight = 5
        c.calibrationOverallPriorWeight = 2
        c.calibrationDirectionPriorWeight = 10
        return c
    }()

    /// Replacing every bar after bar k by other random bars changes no confidence (nor any other field) at or
    /// before bar k: outcomes are used only once resolved.
    @Test(arguments: [UInt64(11), 12, 13, 14, 15, 16], [false, true])
    func futurePricesNeverChangePastConfidences(seed: UInt64, smallPrior: Bool) throws {
        let config = smallPrior ? Self.fastSmallPrior : Self.fast
        var rng = SplitMix64(seed: seed)
        let bars = 400
        let series = randomSeries(symbol: "X", bars: bars, seed: seed)
        let k = Int.random(in: 80..<(bars - 10), using: &rng)
        let other = randomSeries(symbol: "X", bars: bars, seed: seed &+ 1000)
        var changed = series.prefix(k + 1)
        let scale = series.close[k] / other.close[k]
        for i in (k + 1)..<bars {
            changed.append(
                timestamp: series.timestamps[i], open: other.open[i] * scale, high: other.high[i] * scale,
                low: other.low[i] * scale, close: other.close[i] * scale, volume: other.volume[i])
        }
        let a = try SignalModel.evaluate(series, config: config)
        let b = try SignalModel.evaluate(changed, config: config)
        #expect(Array(a[...k]) == Array(b[...k]))
        #expect(a.filter { $0.signalType != .hold }.count > 20, "the test needs resolved signals")
        // And the future did change something (the test can fail).
        #expect(Array(a[(k + 1)...]) != Array(b[(k + 1)...]))
    }

    /// Before the minimum, a signal's confidence is the overall rate (right + a/2)/(resolved + a) over the BUY/SELL
    /// signals made at bars ≤ t − h, recomputed here from the signals and prices (a = 2: the Laplace rule; and the
    /// default a).
    @Test(arguments: [UInt64(21), 22, 23], [2.0, SignalModelConfig().calibrationOverallPriorWeight])
    func baseRateBeforeMinimum(seed: UInt64, a: Double) throws {
        var config = Self.fast
        config.calibrationMinimumSignals = 1_000_000
        config.calibrationOverallPriorWeight = a
        let series = randomSeries(symbol: "X", bars: 300, seed: seed)
        let signals = try SignalModel.evaluate(series, config: config)
        let h = config.horizon
        for t in config.firstSignalIndex..<signals.count {
            var resolved = 0
            var right = 0
            for j in 0...max(0, t - h) where j <= t - h && signals[j].signalType != .hold {
                resolved += 1
                let r = log(series.close[j + h] / series.close[j])
                if signals[j].signalType == .buy ? r > 0 : r < 0 { right += 1 }
            }
            #expect(signals[t].confidence == (Double(right) + a / 2) / (Double(resolved) + a), "bar \(t)")
        }
    }

    /// Random outcome streams: every probability is in [0, 1] and non-decreasing in the directional score, for
    /// both directions, after every resolution.
    @Test(arguments: [UInt64(31), 32, 33, 34])
    func monotoneAndBounded(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let bins = Int.random(in: 1...16, using: &rng)
        var calibrator = ConfidenceCalibrator(
            binCount: bins, scoreRange: Double.random(in: 0.5...6, using: &rng), minimumSignals: Int.random(in: 0...20, using: &rng),
            priorWeight: Double.random(in: 0.01...50, using: &rng))
        let tilt = Double.random(in: -0.3...0.3, using: &rng)
        for _ in 0..<500 {
            let direction = Int.random(in: 0...1, using: &rng)
            let d = 3 * rng.nextGaussian()
            let p = min(1, max(0, 0.5 + tilt * d / 3))
            calibrator.record(
                direction: direction, bin: calibrator.bin(directionalScore: d), isRight: Double.random(in: 0..<1, using: &rng) < p)
            for dir in 0...1 {
                var previous = -Double.infinity
                for step in 0...80 {
                    let q = calibrator.probability(direction: dir, directionalScore: -8 + 0.2 * Double(step))
                    #expect((0...1).contains(q))
                    #expect(q >= previous)
                    previous = q
                }
            }
        }
    }

    /// With a strong true relation and many outcomes, the fitted bins approach the true frequencies.
    @Test func recoversKnownProbabilities() {
        var rng = SplitMix64(seed: 41)
        var calibrator = ConfidenceCalibrator(binCount: 4, scoreRange: 2, minimumSignals: 10, priorWeight: 5)
        let truth = [0.2, 0.4, 0.6, 0.8]
        for _ in 0..<40_000 {
            let b = Int.random(in: 0..<4, using: &rng)
            calibrator.record(direction: 0, bin: b, isRight: Double.random(in: 0..<1, using: &rng) < truth[b])
        }
        for (b, p) in truth.enumerated() {
            #expect(abs(calibrator.probability(direction: 0, directionalScore: -2 + Double(b) + 0.5) - p) < 0.02)
        }
    }

    /// Every integer period of the model has an upper limit (`maximumIndicatorPeriod`): beyond it the states
    /// would allocate windows whose byte counts overflow; at the limit the config is valid.
    @Test func periodsHaveAnUpperLimit() throws {
        let periods: [WritableKeyPath<SignalModelConfig, Int>] = [
            \.horizon, \.regressionWindow, \.shortMomentumPeriod, \.mediumMomentumPeriod, \.rsiPeriod, \.volumeWindow, \.atrPeriod,
        ]
        for path in periods {
            for huge in [maximumIndicatorPeriod + 1, 1 << 61, Int.max - 1, Int.max] {
                var c = SignalModelConfig()
                c[keyPath: path] = huge
                if path == \.shortMomentumPeriod { c.mediumMomentumPeriod = maximumIndicatorPeriod }
                #expect(throws: SignalConfigError.self, "\(path) = \(huge)") { try c.validate() }
            }
            // At the limit (the short momentum period just below it: it must stay below the medium one).
            var c = SignalModelConfig()
            c.mediumMomentumPeriod = maximumIndicatorPeriod
            c[keyPath: path] = path == \.shortMomentumPeriod ? maximumIndicatorPeriod - 1 : maximumIndicatorPeriod
            #expect(throws: Never.self, "\(path) at the limit") { try c.validate() }
        }
    }

    @Test func calibratorParametersAreValidated() {
        var c = SignalModelConfig()
        c.calibrationPriorWeight = 0
        #expect(throws: SignalConfigError.self) { try c.validate() }
        c = SignalModelConfig()
        c.calibrationBins = 0
        #expect(throws: SignalConfigError.self) { try c.validate() }
        c = SignalModelConfig()
        c.calibrationScoreRange = .infinity
        #expect(throws: SignalConfigError.self) { try c.validate() }
        c = SignalModelConfig()
        c.calibrationMinimumSignals = -1
        #expect(throws: SignalConfigError.self) { try c.validate() }
    }
}
