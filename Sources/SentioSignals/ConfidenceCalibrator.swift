#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The walk-forward calibrator behind ``Signal/confidence``: the probability that a BUY (SELL) signal is right,
/// learned only from signals whose outcome is already known.
///
/// **Rule.** A signal's *directional score* is `d = aiSignal` for a BUY and `d = −aiSignal` for a SELL. For each
/// direction the calibrator keeps `B` = *calibrationBins* equal-width bins over `[−R, R]` (`R` =
/// *calibrationScoreRange*; `d` outside is clamped into the end bins) with the count of resolved signals and of
/// right ones. Three levels of shrinkage, each toward the level above (hierarchical pseudo-counts):
///
/// 1. the overall rate `r = (right + a/2) / (resolved + a)` over both directions (`a` =
///    *calibrationOverallPriorWeight*: a prior of `a` signals right half of the time);
/// 2. each direction's rate `q = (right_dir + c·r) / (resolved_dir + c)` (`c` = *calibrationDirectionPriorWeight*);
/// 3. each bin's frequency `pᵦ = (rightᵦ + κ q) / (resolvedᵦ + κ)` with weight `resolvedᵦ + κ` (`κ` =
///    *calibrationPriorWeight*), then pool-adjacent-violators over the bins (weighted), so the probability never
///    decreases with the score.
///
/// When a signal resolves (`h` bars after it was made) its bin is updated and both directions are refitted (the
/// overall rate enters both). Until *calibrationMinimumSignals* signals (both directions together) have resolved,
/// every query returns the overall rate `r` (0.5 before any has resolved).
///
/// Why the pseudo-counts are large by default: the outcomes of signals made a few bars apart share most of their
/// `h`-bar path, so `n` resolved signals carry far less than `n` independent outcomes; the defaults were chosen by
/// the walk-forward procedure of the catalog article `Evaluation.md`.
///
/// Cost: a query is O(1); a resolution O(B) (at most one per bar); no allocation after `init`.
public struct ConfidenceCalibrator: Sendable, Codable, Equatable {
    /// Bins per direction.
    public let binCount: Int
    /// Scores are clamped to `[−scoreRange, scoreRange]`.
    public let scoreRange: Double
    /// Resolved signals needed before the direction and bin levels are used.
    public let minimumSignals: Int
    /// Pseudo-count `κ` of the direction-rate prior in each bin.
    public let priorWeight: Double
    /// Pseudo-count `a` of the prior 1/2 in the overall rate.
    public let overallPriorWeight: Double
    /// Pseudo-count `c` of the overall-rate prior in each direction's rate.
    public let directionPriorWeight: Double
    /// Resolved and right counts per (direction, bin): BUY bins first, then SELL bins.
    @usableFromInline var resolved: [Int]
    @usableFromInline var right: [Int]
    /// Fitted probability per (direction, bin).
    @usableFromInline var fitted: [Double]
    /// Pool-adjacent-violators scratch: block values, weights, sizes.
    @usableFromInline var blockValue: [Double]
    @usableFromInline var blockWeight: [Double]
    @usableFromInline var blockSize: [Int]
    /// Resolved and right signals per direction (0 = BUY, 1 = SELL).
    public private(set) var resolvedCount: [Int]
    public private(set) var rightCount: [Int]

    /// An empty calibrator.
    ///
    /// - Parameters:
    ///   - binCount: bins per direction `B` (at least 1).
    ///   - scoreRange: the bins cover directional scores in `[−scoreRange, scoreRange]` (greater than 0).
    ///   - minimumSignals: resolved signals before the direction and bin levels are used.
    ///   - priorWeight: `κ`, pseudo-count of the direction rate in each bin (greater than 0).
    ///   - overallPriorWeight: `a`, pseudo-count of the prior 1/2 in the overall rate (greater than 0).
    ///   - directionPriorWeight: `c`, pseudo-count of the overall rate in each direction's rate (at least 0).
    public init(
        binCount: Int, scoreRange: Double, minimumSignals: Int, priorWeight: Double, overallPriorWeight: Double = 2,
        directionPriorWeight: Double = 0
    ) {
        self.binCount = binCount
        self.scoreRange = scoreRange
        self.minimumSignals = minimumSignals
        self.priorWeight = priorWeight
        self.overallPriorWeight = overallPriorWeight
        self.directionPriorWeight = directionPriorWeight
        resolved = [Int](repeating: 0, count: 2 * binCount)
        right = [Int](repeating: 0, count: 2 * binCount)
        fitted = [Double](repeating: 0.5, count: 2 * binCount)
        blockValue = [Double](repeating: 0, count: binCount)
        blockWeight = [Double](repeating: 0, count: binCount)
        blockSize = [Int](repeating: 0, count: binCount)
        resolvedCount = [0, 0]
        rightCount = [0, 0]
    }

    /// The calibrator a config describes.
    public init(config: SignalModelConfig) {
        self.init(
            binCount: config.calibrationBins, scoreRange: config.calibrationScoreRange,
            minimumSignals: config.calibrationMinimumSignals, priorWeight: config.calibrationPriorWeight,
            overallPriorWeight: config.calibrationOverallPriorWeight, directionPriorWeight: config.calibrationDirectionPriorWeight)
    }

    /// The bin of a directional score (clamped into `0..<binCount`).
    @inlinable
    public func bin(directionalScore d: Double) -> Int {
        let x = (d + scoreRange) / (2 * scoreRange) * Double(binCount)
        if !(x >= 0) { return 0 }  // also NaN
        return Swift.min(binCount - 1, Int(x))
    }

    /// Resolved signals so far (both directions).
    public var totalResolved: Int { resolvedCount[0] + resolvedCount[1] }

    /// True once ``minimumSignals`` signals have resolved (before, queries return the overall rate).
    public var isCalibrated: Bool { totalResolved >= minimumSignals }

    /// The overall rate `r = (right + a/2) / (resolved + a)` (`a` = ``overallPriorWeight``).
    public var baseRate: Double {
        (Double(rightCount[0] + rightCount[1]) + overallPriorWeight / 2) / (Double(totalResolved) + overallPriorWeight)
    }

    /// The rate of `direction` (0 = BUY, 1 = SELL): `(right_dir + c·r) / (resolved_dir + c)`, or `r` for a
    /// direction without resolved signals and `c = 0`.
    public func directionRate(_ direction: Int) -> Double {
        let n = Double(resolvedCount[direction]) + directionPriorWeight
        return n > 0 ? (Double(rightCount[direction]) + directionPriorWeight * baseRate) / n : baseRate
    }

    /// The probability that a signal in `direction` (0 = BUY, 1 = SELL) with directional score `d` is right.
    @inlinable
    public func probability(direction: Int, directionalScore d: Double) -> Double {
        isCalibrated ? fitted[direction * binCount + bin(directionalScore: d)] : baseRate
    }

    /// Records the outcome of a signal of `direction` that fell in `bin`, and refits both directions.
    public mutating func record(direction: Int, bin: Int, isRight: Bool) {
        let slot = direction * binCount + bin
        resolved[slot] += 1
        resolvedCount[direction] += 1
        if isRight {
            right[slot] += 1
            rightCount[direction] += 1
        }
        refit(direction: 0)
        refit(direction: 1)
    }

    /// Shrinks each bin toward the direction's rate, then makes the bins non-decreasing (weighted PAV).
    @usableFromInline
    mutating func refit(direction: Int) {
        let offset = direction * binCount
        let q = directionRate(direction)
        var blocks = 0
        for b in 0..<binCount {
            let w = Double(resolved[offset + b]) + priorWeight
            var v = (Double(right[offset + b]) + priorWeight * q) / w
            var weight = w
            var size = 1
            while blocks > 0 && blockValue[blocks - 1] > v {
                let pw = blockWeight[blocks - 1]
                v = (blockValue[blocks - 1] * pw + v * weight) / (pw + weight)
                weight += pw
                size += blockSize[blocks - 1]
                blocks -= 1
            }
            blockValue[blocks] = v
            blockWeight[blocks] = weight
            blockSize[blocks] = size
            blocks += 1
        }
        var b = offset
        for i in 0..<blocks {
            let v = Swift.min(1, Swift.max(0, blockValue[i]))
            for _ in 0..<blockSize[i] {
                fitted[b] = v
                b += 1
            }
        }
    }
}
