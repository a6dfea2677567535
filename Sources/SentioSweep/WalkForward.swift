import SentioBacktest
import SentioCore

/// A walk-forward length: a number of timeline steps (`5000`) or a calendar duration (`36h`, `30d`, `2w`, `6m`, `2y`).
public enum WalkForwardLength: Sendable, Equatable {
    case bars(Int)
    case duration(count: Int, unit: Unit)

    public enum Unit: String, Sendable {
        case hour = "h", day = "d", week = "w", month = "m", year = "y"
    }

    /// Parses `N` (steps) or `N` followed by `h`, `d`, `w`, `m` (calendar months) or `y` (calendar years).
    public init(parsing text: String) throws(WalkForwardError) {
        let t = text.trimmingSpaces
        if let n = Int(t) {
            guard n >= 1 else { throw WalkForwardError("length '\(text)' must be at least 1 bar") }
            self = .bars(n)
            return
        }
        guard let last = t.last, let unit = Unit(rawValue: String(last)), let n = Int(t.dropLast()), n >= 1 else {
            throw WalkForwardError("length '\(text)' is neither a bar count (500) nor a duration (36h, 30d, 2w, 6m, 2y)")
        }
        self = .duration(count: n, unit: unit)
    }

    /// `t` advanced by `times` × this duration (UTC; months and years by the calendar, the day clamped to the
    /// month's length, the time of day kept).
    func advance(_ t: Int64, times: Int) -> Int64 {
        guard case let .duration(count, unit) = self else { return t }
        let n = count * times
        switch unit {
        case .hour: return t + Int64(n) * 3_600
        case .day: return t + Int64(n) * 86_400
        case .week: return t + Int64(n) * 604_800
        case .month, .year:
            let date = CivilDate(epochSeconds: t)
            let timeOfDay = t - date.epochSeconds
            return date.addingMonths(unit == .year ? 12 * n : n).epochSeconds + timeOfDay
        }
    }
}

/// `--walk-forward TRAIN:TEST`: rolling windows of TRAIN then TEST; each window moves forward by TEST.
///
/// Windows (timeline steps `0..<n`, times `t₀ … tₙ₋₁`), window k = 0, 1, …:
/// - in bars: train steps `[kT, kT + R)`, test steps `[kT + R, min(kT + R + T, n))` (R = TRAIN, T = TEST);
/// - in durations: train `[t₀ + k·TEST, t₀ + k·TEST + TRAIN)`, test from there for TEST (calendar arithmetic from
///   t₀, so windows do not drift);
/// - TRAIN and TEST are both bars or both durations. A window runs when its train and test periods each hold at
///   least one step; the last test period may be shorter than TEST (its length is in the output).
public struct WalkForwardSpec: Sendable, Equatable {
    public var train: WalkForwardLength
    public var test: WalkForwardLength
    public var trainText: String
    public var testText: String

    /// Parses `TRAIN:TEST`.
    public init(parsing text: String) throws(WalkForwardError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { throw WalkForwardError("expects TRAIN:TEST (e.g. 5000:1000 bars or 2y:6m), got '\(text)'") }
        train = try WalkForwardLength(parsing: parts[0])
        test = try WalkForwardLength(parsing: parts[1])
        switch (train, test) {
        case (.bars, .bars), (.duration, .duration): break
        default: throw WalkForwardError("TRAIN and TEST must both be bar counts or both durations, got '\(text)'")
        }
        trainText = parts[0].trimmingSpaces
        testText = parts[1].trimmingSpaces
    }

    /// The windows over `timeline` as step ranges.
    public func windows(_ timeline: [Int64]) -> [(train: Range<Int>, test: Range<Int>)] {
        let n = timeline.count
        var out: [(train: Range<Int>, test: Range<Int>)] = []
        switch (train, test) {
        case let (.bars(r), .bars(t)):
            var start = 0
            while start + r < n {
                out.append((start..<(start + r), (start + r)..<min(start + r + t, n)))
                start += t
            }
        default:
            guard let t0 = timeline.first else { return [] }
            func step(_ time: Int64) -> Int { lowerBound(timeline, time) }
            var k = 0
            while true {
                let trainStart = test.advance(t0, times: k)
                let trainEnd = train.advance(trainStart, times: 1)
                let testEnd = test.advance(trainEnd, times: 1)
                let a = step(trainStart), b = step(trainEnd), c = step(testEnd)
                if b >= n { break }
                if a < b && b < c { out.append((a..<b, b..<c)) }
                k += 1
            }
        }
        return out
    }
}

/// First index of `sorted` whose value is ≥ `value`.
func lowerBound(_ sorted: [Int64], _ value: Int64) -> Int {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if sorted[mid] < value { lo = mid + 1 } else { hi = mid }
    }
    return lo
}

/// A malformed `--walk-forward` or one that cannot run on the data.
public struct WalkForwardError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "--walk-forward: \(message)" }
}

extension Market {
    /// The bars whose timestamps fall within timeline steps `steps` (symbols without a bar there are left out).
    func slice(steps: Range<Int>) throws -> Market {
        let lo = timeline[steps.lowerBound], hi = timeline[steps.upperBound - 1]
        let kept = series.compactMap { s -> OHLCVSeries? in
            let a = lowerBound(s.timestamps, lo), b = lowerBound(s.timestamps, hi + 1)
            return a < b ? s.slice(a..<b) : nil
        }
        return try Market(kept)
    }
}

extension Sweep {
    /// The sweep over the whole market (the rows), then the walk-forward analysis of `spec`.
    ///
    /// In each window every combination runs on the train period; the first by the metric (`SweepMetric`'s order)
    /// runs on the test period, starting from the previous test run's final equity (the first from its own initial
    /// capital). Each run is a fresh backtest of its period: it starts flat, its indicators and signals warm up
    /// inside the period, and positions still open at the period's end are marked at their last close in the final
    /// equity — so the next window starts flat with that value in cash, as if they had been sold at that close
    /// without costs.
    ///
    /// - Throws: ``WalkForwardError`` for a shard, a `dca` strategy (it starts without capital), or data with no
    ///   complete window; ``SweepCombinationError`` for a failing run.
    public func runWalkForward(_ spec: WalkForwardSpec, on market: Market, runner: SweepRunner) throws -> SweepOutput {
        guard shard == nil else { throw WalkForwardError("cannot be sharded: run the walk-forward in one process") }
        guard jobs.allSatisfy({ $0.request.strategy != .dca }) else {
            throw WalkForwardError("does not apply to --strategy dca (it starts without capital, so no equity carries over)")
        }
        let windows = spec.windows(market.timeline)
        guard !windows.isEmpty else {
            throw WalkForwardError("\(spec.trainText):\(spec.testText) leaves no window in \(market.timeline.count) bars (\(iso8601(epochSeconds: market.timeline.first!)) .. \(iso8601(epochSeconds: market.timeline.last!)))")
        }
        let counter = ProgressCounter(total: jobs.count * (windows.count + 1) + windows.count, report: runner.progress)
        let rows = try runner.run(jobs, on: market, benchmark: benchmarkChoice(on: market), counter: counter)
        var results: [SweepWalkForwardWindow] = []
        var stitched: [SweepEquityPoint] = []
        var equity: Double?
        var initialCapital = 0.0
        for (k, w) in windows.enumerated() {
            let trainMarket = try market.slice(steps: w.train), testMarket = try market.slice(steps: w.test)
            let inSample = metric.sorted(try runner.run(jobs, on: trainMarket, benchmark: benchmarkChoice(on: trainMarket), counter: counter))
            let best = inSample[0]
            guard var job = jobs.first(where: { $0.index == best.index }) else { continue }
            if let equity { job.request.initialCapital = equity } else { initialCapital = job.request.configuration(symbolCount: testMarket.series.count).initialCapital }
            let (result, outOfSample) = try SweepRunner.result(of: job, on: testMarket, benchmark: benchmarkChoice(on: testMarket))
            counter.step()
            for (t, e) in zip(result.timestamps, result.equity) { stitched.append(SweepEquityPoint(time: t, equity: e)) }
            equity = result.finalEquity
            results.append(SweepWalkForwardWindow(
                window: k + 1, trainStart: market.timeline[w.train.lowerBound], trainEnd: market.timeline[w.train.upperBound - 1],
                testStart: market.timeline[w.test.lowerBound], testEnd: market.timeline[w.test.upperBound - 1],
                trainBars: w.train.count, testBars: w.test.count, best: best.index, parameters: best.parameters,
                inSample: best.statistics, outOfSample: outOfSample))
        }
        let final = equity ?? initialCapital
        guard initialCapital > 0, final.isFinite else {
            throw WalkForwardError("the out-of-sample runs start without capital: the stitched return is undefined")
        }
        let walkForward = SweepWalkForward(
            train: spec.trainText, test: spec.testText, windows: results,
            outOfSample: SweepStitchedEquity(
                initialCapital: initialCapital, finalEquity: final,
                totalReturnPercent: 100 * (final - initialCapital) / initialCapital, equity: stitched))
        return output(rows: rows, market: market, walkForward: walkForward)
    }
}
