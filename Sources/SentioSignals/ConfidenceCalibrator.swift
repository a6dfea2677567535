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
/// right ones. When a signal resolves (`h` bars after it was made) its bin is updated and that direction's
/// probabilities are refitted:
///
/// 1. the direction's base rate `q = (right + 1) / (resolved + 2)`;
/// 2. each bin's shrunk frequency `pᵦ = (rightᵦ + κ q) / (resolvedᵦ + κ)` with weight `resolvedᵦ + κ`
///    (`κ` = *calibrationPriorWeight*: an empty or sparse bin falls back to the base rate);
/// 3. pool-adjacent-violators over the bins (weighted), so the probability never decreases with the score.
///
/// Until *calibrationMinimumSignals* signals (both directions together) have resolved, every query returns the
/// overall base rate `(right + 1) / (resolved + 2)` (0.5 before any has resolved).
///
/// Cost: a query is O(1); a resolution O(B) (at most one per bar); no allocation after `init`.
public struct ConfidenceCalibrator: Sendable, Codable, Equatable {
    /// Bins per direction.
    public let binCount: Int
    /// Scores are clamped to `[−scoreRange, scoreRange]`.
    public let scoreRange: Double
    /// Resolved signals needed before the bins are used.
    public let minimumSignals: Int
    /// Pseudo-count of the base-rate prior in each bin.
    public let priorWeight: Double
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
    public init(binCount: Int, scoreRange: Double, minimumSignals: Int, priorWeight: Double) {
        self.binCount = binCount
        self.scoreRange = scoreRange
        self.minimumSignals = minimumSignals
        self.priorWeight = priorWeight
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
            minimumSignals: config.calibrationMinimumSignals, priorWeight: config.calibrationPriorWeight)
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

    /// True once ``minimumSignals`` signals have resolved (before, queries return the base rate).
    public var isCalibrated: Bool { totalResolved >= minimumSignals }

    /// The overall base rate `(right + 1) / (resolved + 2)`.
    public var baseRate: Double { Double(rightCount[0] + rightCount[1] + 1) / Double(totalResolved + 2) }

    /// The probability that a signal in `direction` (0 = BUY, 1 = SELL) with directional score `d` is right.
    @inlinable
    public func probability(direction: Int, directionalScore d: Double) -> Double {
        isCalibrated ? fitted[direction * binCount + bin(directionalScore: d)] : baseRate
    }

    /// Records the outcome of a signal of `direction` that fell in `bin`, and refits that direction.
    public mutating func record(direction: Int, bin: Int, isRight: Bool) {
        let slot = direction * binCount + bin
        resolved[slot] += 1
        resolvedCount[direction] += 1
        if isRight {
            right[slot] += 1
            rightCount[direction] += 1
        }
        refit(direction: direction)
    }

    /// Shrinks each bin toward the direction's base rate, then makes the bins non-decreasing (weighted PAV).
    @usableFromInline
    mutating func refit(direction: Int) {
        let offset = direction * binCount
        let q = Double(rightCount[direction] + 1) / Double(resolvedCount[direction] + 2)
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
