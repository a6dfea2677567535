import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioSignals

/// The hierarchical calibrator against a plain re-implementation, and its calibration on outcome streams whose
/// true probabilities are known.
@Suite struct CalibrationPropertyTests {
    /// Pool-adjacent-violators by repeatedly merging the first violating pair (no shared structure with the
    /// calibrator's stack-based pass).
    static func plainPAV(_ values: [Double], _ weights: [Double]) -> [Double] {
        var blocks = zip(values, weights).map { (value: $0, weight: $1, size: 1) }
        var merged = true
        while merged {
            merged = false
            for i in 0..<(blocks.count - 1) where blocks[i].value > blocks[i + 1].value {
                let a = blocks[i], b = blocks[i + 1]
                blocks[i] = ((a.value * a.weight + b.value * b.weight) / (a.weight + b.weight), a.weight + b.weight, a.size + b.size)
                blocks.remove(at: i + 1)
                merged = true
                break
            }
        }
        return blocks.flatMap { [Double](repeating: min(1, max(0, $0.value)), count: $0.size) }
    }

    /// After every resolution, every (direction, score) probability equals the documented formulas recomputed from
    /// the raw outcome list: r = (right + a/2)/(resolved + a), q = (right_dir + c r)/(resolved_dir + c), bins
    /// (right_b + κ q)/(resolved_b + κ), then PAV; r alone before the minimum. Random parameters and streams.
    @Test(arguments: [UInt64(51), 52, 53, 54, 55, 56])
    func matchesPlainFormulas(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let bins = Int.random(in: 1...8, using: &rng)
        let range = Double.random(in: 0.5...5, using: &rng)
        let minimum = Int.random(in: 0...40, using: &rng)
        let kappa = Double.random(in: 0.5...500, using: &rng)
        let a = Double.random(in: 0.5...2000, using: &rng)
        let c = seed == 51 ? 0 : Double.random(in: 0...2000, using: &rng)
        var calibrator = ConfidenceCalibrator(
            binCount: bins, scoreRange: range, minimumSignals: minimum, priorWeight: kappa, overallPriorWeight: a,
            directionPriorWeight: c)
        var outcomes: [(direction: Int, bin: Int, right: Bool)] = []
        let tilt = Double.random(in: -0.2...0.2, using: &rng)
        for _ in 0..<300 {
            let direction = Double.random(in: 0..<1, using: &rng) < 0.3 ? 0 : 1
            let d = 2 * rng.nextGaussian()
            let bin = calibrator.bin(directionalScore: d)
            let isRight = Double.random(in: 0..<1, using: &rng) < min(1, max(0, 0.45 + tilt * d))
            calibrator.record(direction: direction, bin: bin, isRight: isRight)
            outcomes.append((direction, bin, isRight))
            let total = Double(outcomes.count)
            let r = (Double(outcomes.count(where: \.right)) + a / 2) / (total + a)
            for dir in 0...1 {
                let mine = outcomes.filter { $0.direction == dir }
                let nDir = Double(mine.count) + c
                let q = nDir > 0 ? (Double(mine.count(where: \.right)) + c * r) / nDir : r
                let values = (0..<bins).map { b in
                    (Double(mine.count(where: { $0.bin == b && $0.right })) + kappa * q) / (Double(mine.count(where: { $0.bin == b })) + kappa)
                }
                let weights = (0..<bins).map { b in Double(mine.count(where: { $0.bin == b })) + kappa }
                let fitted = Self.plainPAV(values, weights)
                for b in 0..<bins {
                    let score = -range + (Double(b) + 0.5) * 2 * range / Double(bins)
                    let expected = outcomes.count < minimum ? r : fitted[b]
                    let got = calibrator.probability(direction: dir, directionalScore: score)
                    #expect(abs(got - expected) <= 1e-12 * max(1, abs(expected)), "dir \(dir) bin \(b) after \(outcomes.count)")
                }
            }
        }
    }

    /// Walk-forward ECE of the confidences of `count` signals whose true probability of being right is
    /// `truth(score)`, each resolving `delay` signals later (as the model's signals resolve h bars later).
    static func walkForwardECE(
        _ calibrator: inout ConfidenceCalibrator, count: Int, delay: Int, rng: inout SplitMix64, truth: (Double) -> Double
    ) -> Double {
        var p: [Double] = []
        var y: [Bool] = []
        var pending: [(bin: Int, right: Bool)] = []
        for i in 0..<count {
            if i >= delay {
                let old = pending[i - delay]
                calibrator.record(direction: 0, bin: old.bin, isRight: old.right)
            }
            let d = 1.5 * rng.nextGaussian()
            let isRight = Double.random(in: 0..<1, using: &rng) < truth(d)
            p.append(calibrator.probability(direction: 0, directionalScore: d))
            y.append(isRight)
            pending.append((calibrator.bin(directionalScore: d), isRight))
        }
        return ForecastMetrics.expectedCalibrationError(probabilities: p, outcomes: y)!
    }

    /// Known, score-dependent probabilities (0.3…0.7 over four bins), small pseudo-counts, 20,000 signals resolving
    /// 5 later: the walk-forward ECE is below 0.025 = the sampling bound 0.4·√(10/N) ≈ 0.009 (ten ECE bins at most)
    /// plus 0.016 for the bins' learning (their prior weight 5 against ≈ 5,000 outcomes each, and the first
    /// signals at the prior). Ignoring the score (confidence ≈ 0.5 everywhere) would give an ECE of about 0.13.
    @Test(arguments: [UInt64(61), 62, 63, 64])
    func calibratedOnKnownScoreDependentProbabilities(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var calibrator = ConfidenceCalibrator(
            binCount: 4, scoreRange: 2, minimumSignals: 0, priorWeight: 5, overallPriorWeight: 2, directionPriorWeight: 2)
        let truth = [0.3, 0.43, 0.57, 0.7]
        let ece = Self.walkForwardECE(&calibrator, count: 20_000, delay: 5, rng: &rng) { d in truth[min(3, max(0, Int((d + 2) / 1)))] }
        #expect(ece < 0.025, "ECE \(ece)")
    }

    /// The default calibrator on signals right with a constant probability p ∈ [0.4, 0.6] (the range of the
    /// directional hit rates measured on real series): the ECE is below the bound that follows from the sample
    /// size, bias + noise + sampling, where bias = mean over signals of a·|1/2 − p|/(nᵢ + a) (the prior's pull with
    /// nᵢ outcomes resolved; the direction and bin levels only average with the overall level), noise =
    /// 3 × 0.25/√a (the largest standard deviation of the prior-weighted frequency), and sampling = 3 × 0.4·√(10/N).
    @Test(arguments: [UInt64(71), 72, 73, 74, 75, 76])
    func defaultsCalibratedOnConstantProbabilities(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let p = Double.random(in: 0.4...0.6, using: &rng)
        let n = 3000, delay = 5
        var calibrator = ConfidenceCalibrator(config: SignalModelConfig())
        let a = calibrator.overallPriorWeight
        let ece = Self.walkForwardECE(&calibrator, count: n, delay: delay, rng: &rng) { _ in p }
        let bias = (0..<n).map { i in a * abs(0.5 - p) / (Double(max(0, i - delay + 1)) + a) }.reduce(0, +) / Double(n)
        let bound = bias + 3 * 0.25 / a.squareRoot() + 3 * 0.4 * (10 / Double(n)).squareRoot()
        #expect(ece <= bound, "p \(p): ECE \(ece) > \(bound)")
        #expect(calibrator.totalResolved == n - delay)
    }

    /// The sampling error of a perfectly calibrated forecast: the mean ECE of `n` outcomes of probability 1/2
    /// forecast at 1/2, over 4,000 seeded trials, is within 5 % of `0.5·√(2/(πn))`.
    @Test(arguments: [100, 400])
    func samplingErrorOfPerfectCalibration(n: Int) {
        var rng = SplitMix64(seed: UInt64(n))
        var sum = 0.0
        let trials = 4000
        for _ in 0..<trials {
            let y = (0..<n).map { _ in Double.random(in: 0..<1, using: &rng) < 0.5 }
            sum += ForecastMetrics.expectedCalibrationError(probabilities: [Double](repeating: 0.5, count: n), outcomes: y)!
        }
        let expected = ForecastMetrics.calibrationSamplingError(count: n)!
        #expect(abs(sum / Double(trials) - expected) < 0.05 * expected, "mean \(sum / Double(trials)) vs \(expected)")
        #expect(ForecastMetrics.calibrationSamplingError(count: 0) == nil)
    }

    @Test func newPriorWeightsAreValidated() {
        var c = SignalModelConfig()
        c.calibrationOverallPriorWeight = 0
        #expect(throws: SignalConfigError.self) { try c.validate() }
        c = SignalModelConfig()
        c.calibrationDirectionPriorWeight = -1
        #expect(throws: SignalConfigError.self) { try c.validate() }
        c = SignalModelConfig()
        c.calibrationDirectionPriorWeight = 0
        #expect(throws: Never.self) { try c.validate() }
        c.calibrationOverallPriorWeight = .nan
        #expect(throws: SignalConfigError.self) { try c.validate() }
    }
}
