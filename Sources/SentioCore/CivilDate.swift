/// A proleptic-Gregorian calendar date, with conversions to and from days since 1970-01-01.
///
/// The conversions are Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms
/// (http://howardhinnant.github.io/date_algorithms.html): exact integer arithmetic, no Foundation,
/// no time zone. All Sentio timestamps are UTC.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Creates a date; returns `nil` when the month or day is out of range.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative before it).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    /// The date containing the UTC instant `epochSeconds`.
    public init(epochSeconds: Int64) {
        self.init(daysSinceEpoch: Int(floorDivide(epochSeconds, 86_400)))
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Midnight UTC of this date, in epoch seconds.
    public var epochSeconds: Int64 { Int64(daysSinceEpoch) * 86_400 }

    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Day of the week, 0 = Monday ... 6 = Sunday (ISO-8601 order).
    public var weekday: Int {
        let d = daysSinceEpoch
        // 1970-01-01 was a Thursday (3).
        return ((d % 7) + 7 + 3) % 7
    }

    /// The date `n` calendar months later, with the day clamped to the month's length.
    public func addingMonths(_ n: Int) -> CivilDate {
        let total = year * 12 + (month - 1) + n
        let y = floorDivide(Int64(total), 12)
        let m = total - Int(y) * 12 + 1
        let d = Swift.min(day, CivilDate.daysInMonth(year: Int(y), month: m))
        return CivilDate(year: Int(y), month: m, day: d)!
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let y = String(year), m = month < 10 ? "0\(month)" : "\(month)", d = day < 10 ? "0\(day)" : "\(day)"
        return "\(String(repeating: "0", count: Swift.max(0, 4 - y.count)))\(y)-\(m)-\(d)"
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The years Sentio reads and writes: 0001 to 9999 (four-digit ISO-8601 years). Every reader rejects a date
    /// or timestamp outside them (including epoch seconds), and `sentio generate` refuses to write one.
    public static let supportedYears: ClosedRange<Int> = 1...9999

    /// UTC epoch seconds from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z: the instants of ``supportedYears``.
    public static let supportedEpochSeconds: ClosedRange<Int64> =
        CivilDate(year: 1, month: 1, day: 1)!.epochSeconds...(CivilDate(year: 9999, month: 12, day: 31)!.epochSeconds + 86_399)

    /// Parses `YYYY-MM-DD` with a year in ``supportedYears``; returns `nil` for anything else.
    public init?(iso text: some StringProtocol) {
        let u = Array(text.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"),
            let y = Self.digits(u, 0, 4), let m = Self.digits(u, 5, 2), let d = Self.digits(u, 8, 2),
            Self.supportedYears.contains(y)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    private static func digits(_ u: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var v = 0
        for i in start..<(start + count) {
            let c = u[i] &- 48
            guard c < 10 else { return nil }
            v = v * 10 + Int(c)
        }
        return v
    }
}

/// Floor division (rounds toward negative infinity), for calendar arithmetic on instants before 1970.
@inlinable
public func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
}

/// Formats UTC epoch seconds as ISO-8601: `2025-10-20T10:30:00Z`.
public func iso8601(epochSeconds: Int64) -> String {
    let date = CivilDate(epochSeconds: epochSeconds)
    let secondsOfDay = Int(epochSeconds - floorDivide(epochSeconds, 86_400) * 86_400)
    let h = secondsOfDay / 3600, m = (secondsOfDay / 60) % 60, s = secondsOfDay % 60
    func two(_ x: Int) -> String { x < 10 ? "0\(x)" : "\(x)" }
    return "\(date)T\(two(h)):\(two(m)):\(two(s))Z"
}

/// Parses exactly `YYYY-MM-DDTHH:MM:SSZ` (years 0001–9999, what ``iso8601(epochSeconds:)`` writes) to UTC epoch
/// seconds; `nil` for anything else.
public func epochSeconds(iso8601 text: String) -> Int64? {
    let u = Array(text.utf8)
    guard u.count == 20, u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"),
        u[19] == UInt8(ascii: "Z"), let date = CivilDate(iso: text.prefix(10))
    else { return nil }
    func two(_ i: Int) -> Int? {
        let a = u[i] &- 48, b = u[i + 1] &- 48
        return a < 10 && b < 10 ? Int(a) * 10 + Int(b) : nil
    }
    guard let h = two(11), let m = two(14), let s = two(17), h < 24, m < 60, s < 60 else { return nil }
    return date.epochSeconds + Int64(h * 3600 + m * 60 + s)
}
