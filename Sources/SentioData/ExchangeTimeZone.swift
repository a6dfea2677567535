import SentioCore

/// The time zone whose calendar days delimit a trading day (for `Portfolio.dayPnL`, SentioAPI).
///
/// Computed without the system's time-zone database (so results do not depend on the installed tzdata):
/// ``newYork`` applies the US Eastern rule — UTC−5 (EST), UTC−4 (EDT) from 02:00 local on the second
/// Sunday of March to 02:00 local on the first Sunday of November (Energy Policy Act of 2005, in force
/// since 2007); for years before 2007 the 1987–2006 rule (first Sunday of April to last Sunday of
/// October) is applied. ``fixed(identifier:secondsFromGMT:)`` gives a zone without daylight saving (`UTC`).
public struct ExchangeTimeZone: Sendable {
    /// A name for messages and documentation (`America/New_York`, `UTC`).
    public var identifier: String
    private let offset: @Sendable (Int64) -> Int64

    /// US equity markets (NYSE, Nasdaq): `America/New_York`. The default.
    public static let newYork = ExchangeTimeZone(identifier: "America/New_York") { t in
        let year = CivilDate(epochSeconds: t).year
        let (start, end): (CivilDate, CivilDate)
        if year >= 2007 {
            start = sunday(year: year, month: 3, n: 2)
            end = sunday(year: year, month: 11, n: 1)
        } else {
            start = sunday(year: year, month: 4, n: 1)
            end = lastSunday(year: year, month: 10)
        }
        // 02:00 EST = 07:00 UTC (start); 02:00 EDT = 06:00 UTC (end).
        let dst = t >= start.epochSeconds + 7 * 3600 && t < end.epochSeconds + 6 * 3600
        return dst ? -4 * 3600 : -5 * 3600
    }

    /// UTC.
    public static let utc = fixed(identifier: "UTC", secondsFromGMT: 0)

    /// A zone with a constant offset (seconds east of UTC).
    public static func fixed(identifier: String, secondsFromGMT: Int) -> ExchangeTimeZone {
        ExchangeTimeZone(identifier: identifier) { _ in Int64(secondsFromGMT) }
    }

    init(identifier: String, offset: @escaping @Sendable (Int64) -> Int64) {
        self.identifier = identifier
        self.offset = offset
    }

    /// Seconds east of UTC at the instant `epochSeconds`.
    public func secondsFromGMT(at epochSeconds: Int64) -> Int64 { offset(epochSeconds) }

    /// The local calendar date of the instant `epochSeconds`.
    public func localDate(_ epochSeconds: Int64) -> CivilDate {
        CivilDate(epochSeconds: epochSeconds + offset(epochSeconds))
    }

    static func sunday(year: Int, month: Int, n: Int) -> CivilDate {
        let first = CivilDate(year: year, month: month, day: 1)!
        let firstSunday = 1 + (6 - first.weekday + 7) % 7
        return CivilDate(year: year, month: month, day: firstSunday + 7 * (n - 1))!
    }

    static func lastSunday(year: Int, month: Int) -> CivilDate {
        let days = CivilDate.daysInMonth(year: year, month: month)
        let last = CivilDate(year: year, month: month, day: days)!
        return CivilDate(year: year, month: month, day: days - (last.weekday + 1) % 7)!
    }
}
