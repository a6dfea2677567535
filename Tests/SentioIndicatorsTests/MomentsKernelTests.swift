import SentioCore
@testable import SentioIndicators
import SentioTestSupport
import Testing

/// The batch rolling mean / std / z-score (stretches between `RollingMoments`' scheduled recomputes in SIMD lanes)
/// must equal the streaming types bit for bit on any input, and `RollingMoments`' absolute schedule must make the
/// state after a scheduled recompute depend on the window alone.
@Suite("Moments kernel")
struct MomentsKernelTests {
    enum Shape: CaseIterable { case prices, returns, spiky, rangeEdges, constantRuns, mixed }

    /// Values of one shape: in the lanes' range (prices, returns with exact zeros), out of it (spikes of 1e300,
    /// 1e-300, 1e20 among 1s), at its edges (2^±100 and just beyond), constant stretches, or a mix.
    func values(_ shape: Shape, count: Int, _ rng: inout SplitMix64) -> [Double] {
        var xs: [Double] = []
        xs.reserveCapacity(count)
        var level = Double.random(in: 1...1_000, using: &rng)
        for i in 0..<count {
            switch shape {
            case .prices:
                level = max(0.01, level + Double.random(in: -1...1, using: &rng))
                xs.append((level * 100).rounded() / 100)
            case .returns:
                xs.append(Int.random(in: 0..<10, using: &rng) == 0 ? 0 : Double.random(in: -0.01...0.01, using: &rng))
            case .spiky:
                switch Int.random(in: 0..<12, using: &rng) {
                case 0: xs.append(1e20)
                case 1: xs.append([1e300, -1e300, 1.7e308, -1.7e308].randomElement(using: &rng)!)
                case 2: xs.append(1e-300)
                case 3: xs.append(0)
                case 4: xs.append(xs.last ?? 1)
                default: xs.append(Double.random(in: -1_000...1_000, using: &rng))
                }
            case .rangeEdges:
                let edges = [0x1p100, 0x1p101, 0x1p-100, 0x1p-101, 0x1.fffffffffffffp99, 0x1.0000000000001p-100, 1, 0]
                let v = Int.random(in: 0..<3, using: &rng) == 0 ? edges.randomElement(using: &rng)! : Double.random(in: 0.5...2, using: &rng)
                xs.append(Bool.random(using: &rng) ? v : -v)
            case .constantRuns:
                xs.append((i / 23) % 2 == 0 ? 42.125 : Double.random(in: 40...45, using: &rng))
            case .mixed:
                level += Double.random(in: -1...1, using: &rng)
                xs.append(Int.random(in: 0..<400, using: &rng) == 0 ? 1e20 : level)
            }
        }
        return xs
    }

    /// A length that ends near a lane-group or stretch boundary (or anywhere).
    func length(window n: Int, _ rng: inout SplitMix64) -> Int {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return max(0, (2 + 8 * Int.random(in: 0...3, using: &rng)) * n - 1 + Int.random(in: -2...2, using: &rng))
        case 1: return max(0, Int.random(in: 2...40, using: &rng) * n - 1 + Int.random(in: -1...1, using: &rng))
        default: return Int.random(in: 0...1_200, using: &rng)
        }
    }

    func streamed<S>(_ state: S, _ xs: [Double], _ update: (inout S, Double) throws(WindowOverflowError) -> Double?)
        -> Result<[Double], WindowOverflowError>
    {
        var state = state
        var out: [Double] = []
        for x in xs {
            do throws(WindowOverflowError) { out.append(try update(&state, x) ?? .nan) } catch { return .failure(error) }
        }
        return .success(out)
    }

    func batch<S: MomentsStatistic>(_ prototype: S, _ xs: [Double], window: Int, threads: Int = 1, groups: inout (lanes: Int, fallbacks: Int))
        -> Result<[Double], WindowOverflowError>
    {
        var out = [Double](repeating: 0, count: xs.count)
        do throws(WindowOverflowError) {
            let g = try xs.withUnsafeBufferPointer { input throws(WindowOverflowError) in
                try out.withUnsafeMutableBufferPointer { o throws(WindowOverflowError) in
                    try rollingMomentsKernel(prototype, input, window: window, into: o, threads: threads)
                }
            }
            groups.lanes += g.lanes
            groups.fallbacks += g.fallbacks
        } catch {
            return .failure(error)
        }
        return .success(out)
    }

    func bitIdentical(_ a: Result<[Double], WindowOverflowError>, _ b: Result<[Double], WindowOverflowError>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.bitPattern == $1.bitPattern }
        case (.failure(let x), .failure(let y)): x == y
        default: false
        }
    }

    /// 400 seeded cases: every shape, windows 1…64, ddof 0/1, lengths around lane-group boundaries. The kernel
    /// (and the public batch functions) equal the streaming types bit for bit, NaN and errors included; both the
    /// lanes and the streaming fallback run.
    @Test func batchMeanStdZScoreEqualStreamingBitForBit() {
        var rng = SplitMix64(seed: 0x17_0001)
        var groups = (lanes: 0, fallbacks: 0)
        var mismatches = 0, errors = 0
        for trial in 0..<400 {
            let shape = Shape.allCases[trial % Shape.allCases.count]
            let n = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 1...4, using: &rng) : Int.random(in: 1...64, using: &rng)
            let ddof = n == 1 ? 0 : Int.random(in: 0...1, using: &rng)
            var xs = values(shape, count: length(window: n, &rng), &rng)
            if shape == .spiky && xs.count > n {
                // A window of alternating ±1.7e308: its standard deviation overflows when n/(n − ddof) > 1.12.
                let start = Int.random(in: 0...(xs.count - n), using: &rng)
                for i in 0..<n { xs[start + i] = i % 2 == 0 ? 1.7e308 : -1.7e308 }
            }
            let meanBatch = batch(RollingMean(window: n), xs, window: n, groups: &groups)
            let meanStream = streamed(RollingMean(window: n), xs) { (s: inout RollingMean, x: Double) in s.update(x) }
            let stdBatch = batch(RollingStandardDeviation(window: n, ddof: ddof), xs, window: n, groups: &groups)
            let stdStream = streamed(RollingStandardDeviation(window: n, ddof: ddof), xs) {
                (s: inout RollingStandardDeviation, x: Double) throws(WindowOverflowError) in try s.update(x)
            }
            let zBatch = batch(RollingZScore(window: n, ddof: ddof), xs, window: n, groups: &groups)
            let zStream = streamed(RollingZScore(window: n, ddof: ddof), xs) { (s: inout RollingZScore, x: Double) in s.update(x) }
            for (name, b, s) in [("mean", meanBatch, meanStream), ("std", stdBatch, stdStream), ("z", zBatch, zStream)]
            where !bitIdentical(b, s) {
                mismatches += 1
                if mismatches <= 5 { Issue.record("trial \(trial) \(shape) window \(n) ddof \(ddof) count \(xs.count): \(name) differs") }
            }
            if case .failure = stdStream { errors += 1 }
            // The public functions are the kernel.
            if trial % 10 == 0 {
                #expect(rollingMean(xs, window: n).values.count == xs.count)
                let publicStd: Result<[Double], WindowOverflowError>
                do throws(WindowOverflowError) { publicStd = .success(try rollingStandardDeviation(xs, window: n, ddof: ddof).values) } catch {
                    publicStd = .failure(error)
                }
                #expect(bitIdentical(publicStd, stdStream), "trial \(trial): rollingStandardDeviation")
                #expect(bitIdentical(.success(rollingZScore(xs, window: n, ddof: ddof).values), zStream), "trial \(trial): rollingZScore")
                #expect(bitIdentical(.success(rollingMean(xs, window: n).values), meanStream), "trial \(trial): rollingMean")
            }
        }
        #expect(mismatches == 0)
        #expect(errors >= 5, "\(errors) std overflow errors drawn")
        #expect(groups.lanes > 5_000 && groups.fallbacks > 1_000, "lane groups \(groups.lanes), fallbacks \(groups.fallbacks)")
    }

    /// Two streams with different histories — one with spikes that force early recomputes (1e20 among small
    /// values; 1e300, which recomputes every push) — and the same values from index (k − 1)·n on agree bit for
    /// bit from the scheduled recompute at k·n − 1 on.
    @Test func stateAfterAScheduledRecomputeDependsOnlyOnTheWindow() {
        var rng = SplitMix64(seed: 0x17_0002)
        for trial in 0..<300 {
            let n = Int.random(in: 1...40, using: &rng)
            let k = Int.random(in: 2...8, using: &rng)
            var historyA = values(.spiky, count: (k - 1) * n, &rng)
            let historyB = values(.prices, count: (k - 1) * n, &rng)
            if historyA.count > 3 { historyA[historyA.count / 2] = 1e20 }
            let shared = values(trial % 2 == 0 ? .prices : .mixed, count: n * Int.random(in: 1...4, using: &rng), &rng)
            var a = RollingMoments(window: n), b = RollingMoments(window: n)
            var za = RollingMoments(window: n), zb = RollingMoments(window: n)
            for x in historyA { a.push(x); za.push(x); _ = za.isFull ? za.zScore(of: x) : 0 }
            for x in historyB { b.push(x); zb.push(x); _ = zb.isFull ? zb.zScore(of: x) : 0 }
            for (j, x) in shared.enumerated() {
                a.push(x); b.push(x); za.push(x); zb.push(x)
                let i = (k - 1) * n + j
                guard i >= k * n - 1 else { continue }
                let same = a.mean.bitPattern == b.mean.bitPattern
                    && a.variance(ddof: 0).bitPattern == b.variance(ddof: 0).bitPattern
                    && za.zScore(of: x).bitPattern == zb.zScore(of: x).bitPattern
                #expect(same, "trial \(trial) window \(n) index \(i)")
                if !same { break }
            }
        }
    }

    /// Inputs above the two-thread threshold: both halves agree with streaming, and an overflow in either half
    /// (or both) is the streaming state's first error.
    @Test func twoThreadKernelEqualsStreaming() {
        var rng = SplitMix64(seed: 0x17_0003)
        for (trial, n) in [20, 7, 64, 2].enumerated() {
            var xs = values(.prices, count: momentsParallelThreshold + Int.random(in: 0...5_000, using: &rng), &rng)
            for _ in 0..<20 { xs[Int.random(in: 0..<xs.count, using: &rng)] = 1e20 }
            var groups = (lanes: 0, fallbacks: 0)
            let stdStream = streamed(RollingStandardDeviation(window: n), xs) {
                (s: inout RollingStandardDeviation, x: Double) throws(WindowOverflowError) in try s.update(x)
            }
            #expect(bitIdentical(batch(RollingStandardDeviation(window: n), xs, window: n, threads: 2, groups: &groups), stdStream))
            let zStream = streamed(RollingZScore(window: n), xs) { (s: inout RollingZScore, x: Double) in s.update(x) }
            #expect(bitIdentical(batch(RollingZScore(window: n), xs, window: n, threads: 2, groups: &groups), zStream))
            #expect(groups.lanes > 100, "trial \(trial): \(groups)")
            // Overflows (window 2) late (second half), then also early (first half).
            for position in [xs.count - 1_000, 1_000] {
                xs[position] = 1.7e308
                xs[position + 1] = -1.7e308
                let stream = streamed(RollingStandardDeviation(window: 2), xs) {
                    (s: inout RollingStandardDeviation, x: Double) throws(WindowOverflowError) in try s.update(x)
                }
                guard case .failure(let error) = stream else {
                    Issue.record("trial \(trial): no overflow")
                    continue
                }
                #expect(error.barIndex == position + 1)
                #expect(bitIdentical(batch(RollingStandardDeviation(window: 2), xs, window: 2, threads: 2, groups: &groups), stream))
            }
        }
    }
}
