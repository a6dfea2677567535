import SentioCore

/// A day-count convention: how the time between two dates becomes a fraction of a year.
///
/// XIRR and XNPV discount a flow at date `d` by `(1 + r)^(-t)` with `t = yearFraction(from: t0, to: d)`,
/// where `t0` is the earliest date of the series. The conventions follow the ISDA 2006 Definitions,
/// section 4.16, and agree with pyxirr 0.10.8's `DayCount` variants of the same names (tested).
public enum DayCount: String, Sendable, Hashable, CaseIterable, Codable {
    /// Actual/365 Fixed: `days / 365`. Excel's `XIRR`/`XNPV` and pyxirr's default.
    case actual365Fixed = "act365f"
    /// Actual/360: `days / 360`.
    case actual360 = "act360"
    /// Actual/Actual ISDA: days falling in a leap year count over 366, the others over 365 (ISDA 4.16(b)).
    case actualActualISDA = "actact"
    /// 30/360 US (SIA, "30U/360"; pyxirr `THIRTY_U_360`): with D1, D2 the days of month,
    /// (1) if D1 and D2 are both the last day of February, D2 = 30; (2) if D1 is the last day of February,
    /// D1 = 30; (3) if D2 = 31 and D1 ≥ 30, D2 = 30; (4) if D1 = 31, D1 = 30; then
    /// `t = (360 (Y2 − Y1) + 30 (M2 − M1) + (D2 − D1)) / 360`.
    case thirty360US = "30-360"
    /// 30/360 Bond Basis (ISDA 2006 4.16(f), pyxirr `THIRTY_360_ISDA`): D1 = 31 → 30; D2 = 31 and D1 ≥ 30
    /// (after the first rule) → 30; no February rule.
    case thirty360BondBasis = "30-360-bond"

    /// The fraction of a year from `start` to `end` (negative when `end` is before `start`).
    public func yearFraction(from start: CivilDate, to end: CivilDate) -> Double {
        switch self {
        case .actual365Fixed:
            return Double(end.daysSinceEpoch - start.daysSinceEpoch) / 365
        case .actual360:
            return Double(end.daysSinceEpoch - start.daysSinceEpoch) / 360
        case .actualActualISDA:
            if end < start { return -yearFraction(from: end, to: start) }
            return Self.actualActualISDA(start, end)
        case .thirty360US:
            var d1 = start.day, d2 = end.day
            let startIsFebruaryEnd = Self.isLastDayOfFebruary(start)
            if startIsFebruaryEnd && Self.isLastDayOfFebruary(end) { d2 = 30 }
            if startIsFebruaryEnd { d1 = 30 }
            if d2 == 31 && d1 >= 30 { d2 = 30 }
            if d1 == 31 { d1 = 30 }
            return Self.thirty360(start, end, d1, d2)
        case .thirty360BondBasis:
            var d1 = start.day, d2 = end.day
            if d1 == 31 { d1 = 30 }
            if d2 == 31 && d1 >= 30 { d2 = 30 }
            return Self.thirty360(start, end, d1, d2)
        }
    }

    /// Human-readable name, as used in JSON output and documentation.
    public var displayName: String {
        switch self {
        case .actual365Fixed: return "Actual/365 Fixed"
        case .actual360: return "Actual/360"
        case .actualActualISDA: return "Actual/Actual ISDA"
        case .thirty360US: return "30/360 US"
        case .thirty360BondBasis: return "30/360 Bond Basis"
        }
    }

    private static func thirty360(_ a: CivilDate, _ b: CivilDate, _ d1: Int, _ d2: Int) -> Double {
        let years: Int = b.year - a.year
        let months: Int = b.month - a.month
        let days: Int = 360 * years + 30 * months + (d2 - d1)
        return Double(days) / 360
    }

    private static func isLastDayOfFebruary(_ d: CivilDate) -> Bool {
        d.month == 2 && d.day == CivilDate.daysInMonth(year: d.year, month: 2)
    }

    /// Whole years in between count 1 each; the partial first and last years count their days over
    /// that year's length (365 or 366).
    private static func actualActualISDA(_ start: CivilDate, _ end: CivilDate) -> Double {
        if start.year == end.year {
            return Double(end.daysSinceEpoch - start.daysSinceEpoch) / Double(daysInYear(start.year))
        }
        let startOfNextYear = CivilDate(year: start.year + 1, month: 1, day: 1)!.daysSinceEpoch
        let startOfEndYear = CivilDate(year: end.year, month: 1, day: 1)!.daysSinceEpoch
        let first = Double(startOfNextYear - start.daysSinceEpoch) / Double(daysInYear(start.year))
        let last = Double(end.daysSinceEpoch - startOfEndYear) / Double(daysInYear(end.year))
        return first + Double(end.year - start.year - 1) + last
    }

    private static func daysInYear(_ year: Int) -> Int { CivilDate.isLeapYear(year) ? 366 : 365 }
}
