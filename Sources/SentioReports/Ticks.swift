import Foundation
import SentioCore

/// Axis ticks at "nice" values (1, 2 or 5 × 10ⁿ apart) covering `[low, high]`.
///
/// Heckbert's nice-numbers algorithm (Graphics Gems, 1990, "Nice numbers for graph labels"): the step is the
/// nice number nearest `(high − low) / (count − 1)`, and the range is widened outward to whole steps.
/// - Returns: the ticks in increasing order (at least two), the step, and the widened range.
public func niceTicks(low: Double, high: Double, count: Int = 5) -> (ticks: [Double], step: Double) {
    precondition(count >= 2)
    var low = low, high = high
    if !low.isFinite || !high.isFinite { low = 0; high = 1 }
    if high < low { swap(&low, &high) }
    if high == low {
        let pad = low == 0 ? 1 : abs(low) * 0.05
        low -= pad; high += pad
    }
    let step = niceNumber((high - low) / Double(count - 1), round: true)
    let first = (low / step).rounded(.down) * step
    let last = (high / step).rounded(.up) * step
    var ticks: [Double] = []
    var k = 0
    while true {
        let t = first + Double(k) * step
        if t > last + step * 1e-9 { break }
        ticks.append(abs(t) < step * 1e-9 ? 0 : t)
        k += 1
    }
    return (ticks, step)
}

/// The nice number (1, 2, 5 or 10 × 10ⁿ) nearest `x` (`round`) or at least `x`.
func niceNumber(_ x: Double, round: Bool) -> Double {
    let exponent = (log10(x)).rounded(.down)
    let power = pow(10, exponent)
    let fraction = x / power
    let nice: Double
    if round {
        nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10
    } else {
        nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
    }
    return nice * power
}

/// Decimals needed to write multiples of `step` exactly: the fewest `d` with `step × 10ᵈ` a whole number
/// (0.25 → 2, 2.5 → 1, 50 → 0), at most 10.
func decimals(forStep step: Double) -> Int {
    guard step.isFinite, step > 0 else { return 0 }
    for d in 0...10 {
        let scaled = step * pow(10, Double(d))
        if abs(scaled - scaled.rounded()) <= 1e-9 * max(1, scaled) { return d }
    }
    return 10
}

/// A date-axis tick: its instant (UTC epoch seconds) and label.
public struct DateTick: Sendable, Equatable {
    public var time: Int64
    public var label: String
}

private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/// Ticks for a UTC time axis from `start` to `end` (epoch seconds), at most `maxCount`, on calendar
/// boundaries: whole years (1, 2, 5, 10 …), months (1, 2, 3, 6), days (1, 2, 7, 14) or hours (1, 2, 3, 6, 12).
/// Labels: `2024` for years, `Mar 2024` for months, `5 Mar` for days, `10:00` for hours.
public func dateTicks(start: Int64, end: Int64, maxCount: Int = 8) -> [DateTick] {
    precondition(maxCount >= 2)
    guard end > start else { return [DateTick(time: start, label: CivilDate(epochSeconds: start).description)] }
    let span = Double(end - start)
    let day = 86_400.0
    // Hours.
    for hours in [1, 2, 3, 6, 12] where span / (Double(hours) * 3600) <= Double(maxCount) {
        let step = Int64(hours * 3600)
        var t = floorDivide(start + step - 1, step) * step
        var out: [DateTick] = []
        while t <= end {
            let secondOfDay = Int(t - floorDivide(t, 86_400) * 86_400)
            let h = secondOfDay / 3600
            let label = secondOfDay == 0 ? dayLabel(CivilDate(epochSeconds: t)) : (h < 10 ? "0\(h):00" : "\(h):00")
            out.append(DateTick(time: t, label: label))
            t += step
        }
        return out
    }
    // Days.
    for days in [1, 2, 7, 14] where span / (Double(days) * day) <= Double(maxCount) {
        var d = CivilDate(epochSeconds: start)
        if d.epochSeconds < start { d = CivilDate(daysSinceEpoch: d.daysSinceEpoch + 1) }
        if days == 7 || days == 14 {  // Mondays
            while d.weekday != 1 { d = CivilDate(daysSinceEpoch: d.daysSinceEpoch + 1) }
        }
        var out: [DateTick] = []
        while d.epochSeconds <= end {
            out.append(DateTick(time: d.epochSeconds, label: dayLabel(d)))
            d = CivilDate(daysSinceEpoch: d.daysSinceEpoch + days)
        }
        return out
    }
    // Months.
    for months in [1, 2, 3, 6] where span / (Double(months) * 30.44 * day) <= Double(maxCount) {
        let s = CivilDate(epochSeconds: start)
        var d = CivilDate(year: s.year, month: 1, day: 1)!
        while d.epochSeconds < start || (d.month - 1) % months != 0 { d = d.addingMonths(1) }
        var out: [DateTick] = []
        while d.epochSeconds <= end {
            out.append(DateTick(time: d.epochSeconds, label: "\(monthNames[d.month - 1]) \(d.year)"))
            d = d.addingMonths(months)
        }
        return out
    }
    // Years.
    var years = 1
    while span / (Double(years) * 365.25 * day) > Double(maxCount) {
        years = Int(niceNumber(Double(years) + 0.5, round: false))
    }
    let s = CivilDate(epochSeconds: start)
    var year = s.year
    if CivilDate(year: year, month: 1, day: 1)!.epochSeconds < start { year += 1 }
    while year % years != 0 { year += 1 }
    var out: [DateTick] = []
    while let d = CivilDate(year: year, month: 1, day: 1), d.epochSeconds <= end {
        out.append(DateTick(time: d.epochSeconds, label: "\(year)"))
        year += years
    }
    return out
}

private func dayLabel(_ d: CivilDate) -> String { "\(d.day) \(monthNames[d.month - 1])" }
