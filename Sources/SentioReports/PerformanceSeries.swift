import SentioCore

/// The underwater curve: `100 × (vₜ / maxₛ≤ₜ vₛ − 1)`, in percent (0 at each new high, negative below).
/// Non-finite values give NaN and do not move the running peak.
public func drawdownPercent(_ values: [Double]) -> [Double] {
    var peak = -Double.infinity
    return values.map { v in
        guard v.isFinite else { return .nan }
        peak = max(peak, v)
        return peak > 0 ? 100 * (v / peak - 1) : .nan
    }
}

/// A wealth index from simple period returns: `w₀ = 1 + r₀`, `wₜ = wₜ₋₁ × (1 + rₜ)`. It moves like equity
/// without the jumps that deposits cause, so drawdowns of a DCA run measure performance, not deposits.
public func wealthIndex(periodReturns: [Double]) -> [Double] {
    var w = 1.0
    return periodReturns.map { r in
        if r.isFinite { w *= 1 + r }
        return w
    }
}

/// One calendar month's compounded return.
public struct MonthlyReturn: Sendable, Equatable {
    public var year: Int
    public var month: Int
    /// `100 × (∏(1 + rₜ) − 1)` over the periods whose time falls in the month (UTC).
    public var returnPercent: Double
}

/// Compounds period returns by calendar month (UTC). `times[t]` is the end of period `t`.
public func monthlyReturns(times: [Int64], periodReturns: [Double]) -> [MonthlyReturn] {
    precondition(times.count == periodReturns.count, "times and returns differ in length")
    var out: [MonthlyReturn] = []
    var growth = 1.0
    var current: (year: Int, month: Int)? = nil
    for (t, r) in zip(times, periodReturns) {
        let d = CivilDate(epochSeconds: t)
        if let c = current, c.year != d.year || c.month != d.month {
            out.append(MonthlyReturn(year: c.year, month: c.month, returnPercent: 100 * (growth - 1)))
            growth = 1
        }
        current = (d.year, d.month)
        if r.isFinite { growth *= 1 + r }
    }
    if let c = current { out.append(MonthlyReturn(year: c.year, month: c.month, returnPercent: 100 * (growth - 1))) }
    return out
}

/// Equal-weight buy-and-hold of a universe, valued on `timeline`.
///
/// Each of the N symbols receives `initialCapital / N` at its first close and holds it (fractional, no costs,
/// no rebalancing); until a symbol's first bar its share stays in cash, and on steps where a symbol has no
/// bar its last close is kept: `V(t) = Σᵢ (C/N) × closeᵢ(last bar ≤ t) / closeᵢ(first bar)`.
public func equalWeightBuyAndHold(series: [OHLCVSeries], timeline: [Int64], initialCapital: Double) -> [Double] {
    guard !series.isEmpty else { return timeline.map { _ in initialCapital } }
    let share = initialCapital / Double(series.count)
    var values = [Double](repeating: 0, count: timeline.count)
    for s in series {
        guard let firstClose = s.close.first, firstClose > 0 else {
            for k in values.indices { values[k] += share }
            continue
        }
        var bar = -1
        for (k, t) in timeline.enumerated() {
            while bar + 1 < s.count, s.timestamps[bar + 1] <= t { bar += 1 }
            values[k] += bar < 0 ? share : share * s.close[bar] / firstClose
        }
    }
    return values
}
