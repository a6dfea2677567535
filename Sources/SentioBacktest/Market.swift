import SentioCore

/// The bars of every symbol in a backtest, and one timeline over the union of their timestamps.
///
/// A symbol with no bar at a timeline step is neither traded nor re-marked at that step; its last
/// close keeps marking any position.
public struct Market: Sendable {
    /// One series per symbol, in the order given.
    public let series: [OHLCVSeries]
    /// The sorted union of all timestamps (UTC epoch seconds).
    public let timeline: [Int64]

    /// Symbol names, in order.
    public var symbols: [String] { series.map(\.symbol) }

    /// Builds the timeline and checks the data.
    ///
    /// - Throws: `BacktestError` when there is no symbol or bar, a symbol appears twice, timestamps are
    ///   not strictly increasing, or a price is not finite and positive (naming symbol and bar).
    public init(_ series: [OHLCVSeries]) throws {
        guard !series.isEmpty else { throw BacktestError("no data: the backtest needs at least one symbol") }
        var seen = Set<String>()
        for s in series {
            guard seen.insert(s.symbol).inserted else { throw BacktestError("symbol \(s.symbol) appears twice") }
            guard !s.isEmpty else { throw BacktestError("symbol \(s.symbol) has no bars") }
            if let problem = Market.firstProblem(s) { throw BacktestError(problem) }
        }
        self.series = series
        self.timeline = Market.mergedTimeline(series)
    }

    /// The first data problem of `s`, or `nil`. A branch-free pass over the columns decides whether the
    /// series is valid; only an invalid one is scanned again bar by bar to name the problem.
    static func firstProblem(_ s: OHLCVSeries) -> String? {
        let n = s.count
        var minimum = Double.infinity, sum = 0.0, disorder = 0
        s.open.withUnsafeBufferPointer { o in
            s.high.withUnsafeBufferPointer { h in
                s.low.withUnsafeBufferPointer { l in
                    s.close.withUnsafeBufferPointer { c in
                        s.timestamps.withUnsafeBufferPointer { t in
                            for i in 0..<n {
                                // Any NaN or infinity makes the sum non-finite (prices of a valid series are positive).
                                sum += o[i] + h[i] + l[i] + c[i]
                                minimum = Swift.min(minimum, Swift.min(Swift.min(o[i], h[i]), Swift.min(l[i], c[i])))
                            }
                            for i in 1..<Swift.max(1, n) { disorder &+= t[i] <= t[i - 1] ? 1 : 0 }
                        }
                    }
                }
            }
        }
        if sum.isFinite && minimum > 0 && disorder == 0 { return nil }
        for i in 0..<n {
            if i > 0 && s.timestamps[i] <= s.timestamps[i - 1] {
                return "symbol \(s.symbol), bar \(i): timestamps must be strictly increasing"
            }
            let prices = [s.open[i], s.high[i], s.low[i], s.close[i]]
            if !prices.allSatisfy({ $0.isFinite && $0 > 0 }) {
                return "symbol \(s.symbol), bar \(i) (\(iso8601(epochSeconds: s.timestamps[i]))): prices must be finite and positive"
            }
        }
        return nil
    }

    /// The sorted union of the series' (strictly increasing) timestamps, by a k-way merge: O(total x k)
    /// and no sort; when every series has the same timestamps, a copy of the first.
    static func mergedTimeline(_ series: [OHLCVSeries]) -> [Int64] {
        if series.dropFirst().allSatisfy({ $0.timestamps == series[0].timestamps }) { return series[0].timestamps }
        var cursors = [Int](repeating: 0, count: series.count)
        var merged = [Int64]()
        merged.reserveCapacity(series.map(\.count).max() ?? 0)
        while true {
            var next = Int64.max
            var any = false
            for k in series.indices where cursors[k] < series[k].count {
                next = Swift.min(next, series[k].timestamps[cursors[k]])
                any = true
            }
            guard any else { return merged }
            merged.append(next)
            for k in series.indices where cursors[k] < series[k].count && series[k].timestamps[cursors[k]] == next {
                cursors[k] += 1
            }
        }
    }

    /// The market restricted to timeline steps `0..<steps` (every symbol's bars up to that time):
    /// what a strategy may see at the close of step `steps − 1`. Used by look-ahead tests.
    public func prefix(steps: Int) throws -> Market {
        precondition(steps > 0 && steps <= timeline.count, "prefix length out of range")
        let end = timeline[steps - 1]
        let kept = series.compactMap { s -> OHLCVSeries? in
            var n = 0
            while n < s.count && s.timestamps[n] <= end { n += 1 }
            return n > 0 ? s.prefix(n) : nil
        }
        return try Market(kept)
    }
}
