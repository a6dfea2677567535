/// Scores of probability forecasts of binary outcomes, and rank correlation.
///
/// All functions take parallel arrays (`probabilities[i]` forecasts `outcomes[i]`) and return `nil` when the
/// figure is undefined (no observations; a constant series for a correlation) rather than a number.
public enum ForecastMetrics {
    /// The number of equal-width confidence bins of the expected calibration error and the reliability table.
    public static let calibrationBinCount = 10

    /// The fraction of outcomes that are true; `nil` without observations.
    public static func hitRate(_ outcomes: [Bool]) -> Double? {
        outcomes.isEmpty ? nil : Double(outcomes.count(where: { $0 })) / Double(outcomes.count)
    }

    /// Brier score `mean((pᵢ − yᵢ)²)`, `yᵢ` = 1 for a true outcome; `nil` without observations.
    public static func brierScore(probabilities: [Double], outcomes: [Bool]) -> Double? {
        precondition(probabilities.count == outcomes.count)
        guard !outcomes.isEmpty else { return nil }
        var sum = 0.0
        for (p, y) in zip(probabilities, outcomes) {
            let d = p - (y ? 1 : 0)
            sum += d * d
        }
        return sum / Double(outcomes.count)
    }

    /// The bin of a probability: `min(B − 1, ⌊p·B⌋)` with `B` = ``calibrationBinCount`` (bin `b` is
    /// `[b/B, (b+1)/B)`, the last bin includes 1).
    public static func calibrationBin(_ p: Double) -> Int {
        Swift.min(calibrationBinCount - 1, Swift.max(0, Int(p * Double(calibrationBinCount))))
    }

    /// The reliability table: one row per non-empty bin, in bin order.
    public static func reliability(probabilities: [Double], outcomes: [Bool]) -> [ReliabilityBin] {
        precondition(probabilities.count == outcomes.count)
        let n = calibrationBinCount
        var count = [Int](repeating: 0, count: n)
        var sumP = [Double](repeating: 0, count: n)
        var hits = [Int](repeating: 0, count: n)
        for (p, y) in zip(probabilities, outcomes) {
            let b = calibrationBin(p)
            count[b] += 1
            sumP[b] += p
            if y { hits[b] += 1 }
        }
        var rows: [ReliabilityBin] = []
        for b in 0..<n where count[b] > 0 {
            let total = Double(count[b])
            let lower = Double(b) / Double(n)
            let upper = Double(b + 1) / Double(n)
            rows.append(ReliabilityBin(
                bin: b, lower: lower, upper: upper, meanConfidence: sumP[b] / total,
                observedFrequency: Double(hits[b]) / total, count: count[b]))
        }
        return rows
    }

    /// Expected calibration error `Σ_b (n_b / N)·|mean confidence_b − observed frequency_b|` over the
    /// ``calibrationBinCount`` equal-width bins; `nil` without observations.
    public static func expectedCalibrationError(probabilities: [Double], outcomes: [Bool]) -> Double? {
        guard !outcomes.isEmpty else { return nil }
        let total = Double(outcomes.count)
        return reliability(probabilities: probabilities, outcomes: outcomes).reduce(0) {
            $0 + Double($1.count) / total * abs($1.meanConfidence - $1.observedFrequency)
        }
    }

    /// The expected calibration error that a *perfectly calibrated* forecast shows on `count` *independent*
    /// outcomes from sampling alone: `0.5·√(2/(π n))` ≈ `0.4/√n` (the mean absolute deviation of the observed
    /// frequency of `n` outcomes of probability 1/2 from 1/2, normal approximation; one bin, the worst case over
    /// the probability). An ECE near or below this number cannot tell calibration from noise; `nil` for `n ≤ 0`.
    ///
    /// Signals' outcomes are rarely independent: signals less than `h` bars apart share part of their `h`-bar
    /// path, and symbols that move together (a bull and a bear fund on one index) resolve together, so the
    /// real sampling error is larger. On 200 draws of the synthetic sample universe (about 1,400 signals each,
    /// this figure 0.011) a forecaster that states the generator's own rates scores a median ECE of 0.027 and
    /// exceeds 0.05 on 11 % of draws (`Tests/Fixtures/evaluate/oracle_calibration.py`; catalog article
    /// `Evaluation.md`).
    public static func calibrationSamplingError(count n: Int) -> Double? {
        n > 0 ? 0.5 * (2 / (Double.pi * Double(n))).squareRoot() : nil
    }

    /// Ranks `1…n` with ties given their average rank.
    public static func averageRanks(_ x: [Double]) -> [Double] {
        let order = x.indices.sorted { x[$0] < x[$1] }
        var ranks = [Double](repeating: 0, count: x.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count && x[order[j + 1]] == x[order[i]] { j += 1 }
            let rank = Double(i + j) / 2 + 1
            for k in i...j { ranks[order[k]] = rank }
            i = j + 1
        }
        return ranks
    }

    /// Pearson correlation; `nil` for fewer than 2 pairs or a constant series.
    public static func pearson(_ x: [Double], _ y: [Double]) -> Double? {
        precondition(x.count == y.count)
        guard x.count >= 2 else { return nil }
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n
        let my = y.reduce(0, +) / n
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for (a, b) in zip(x, y) {
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
            sxy += (a - mx) * (b - my)
        }
        guard sxx > 0, syy > 0 else { return nil }
        return Swift.min(1, Swift.max(-1, sxy / (sxx * syy).squareRoot()))
    }

    /// Spearman rank correlation (Pearson correlation of the average ranks; the information coefficient);
    /// `nil` for fewer than 2 pairs or a constant series. Inputs must be finite.
    public static func spearman(_ x: [Double], _ y: [Double]) -> Double? {
        pearson(averageRanks(x), averageRanks(y))
    }
}

/// One row of a reliability table.
public struct ReliabilityBin: Sendable, Equatable {
    /// Bin index `0…9`.
    public var bin: Int
    /// The bin's confidence range `[lower, upper)` (the last bin includes 1).
    public var lower: Double
    public var upper: Double
    /// Mean forecast probability of the bin's signals.
    public var meanConfidence: Double
    /// Fraction of the bin's signals that were right.
    public var observedFrequency: Double
    /// Signals in the bin.
    public var count: Int

    public init(bin: Int, lower: Double, upper: Double, meanConfidence: Double, observedFrequency: Double, count: Int) {
        self.bin = bin
        self.lower = lower
        self.upper = upper
        self.meanConfidence = meanConfidence
        self.observedFrequency = observedFrequency
        self.count = count
    }
}
