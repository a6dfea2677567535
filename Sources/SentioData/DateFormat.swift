import Foundation
import SentioCore

/// A date pattern in a strftime-like notation, for timestamp columns that are not ISO-8601 (`--date-format`).
///
/// Directives (each reads digits from the cell; literal characters must match exactly):
///
/// | directive | reads | range |
/// | --- | --- | --- |
/// | `%Y` | a four-digit year | 0001–9999 |
/// | `%y` | a two-digit year: 69–99 → 1969–1999, 00–68 → 2000–2068 (POSIX `strptime`) | |
/// | `%m` | a month, one or two digits (`1` or `01`) | 1–12 |
/// | `%d` | a day of the month, one or two digits | 1–31, checked against the month |
/// | `%b`, `%B` | an English month name or its three-letter abbreviation, any case (`Jan`, `january`) | |
/// | `%H`, `%M`, `%S` | hour, minute, second, one or two digits | 0–23, 0–59, 0–59 |
/// | `%z` | a UTC offset: `Z`, `±HH`, `±HHMM` or `±HH:MM` | |
/// | `%%` | a literal `%` | |
///
/// Without `%H` the time is midnight. A cell matches when the whole cell is consumed. The result is UTC epoch
/// seconds (the written time minus the `%z` offset, or as written when there is none: see
/// ``LocalTimeZone`` for `--timezone`).
public struct DateFormat: Sendable, Equatable, CustomStringConvertible {
    enum Token: Sendable, Equatable {
        case year4, year2, month, monthName, day, hour, minute, second, offset
        case literal(UInt8)
    }

    let tokens: [Token]
    /// The pattern as given.
    public let pattern: String

    /// Why a pattern or a cell was refused.
    public struct Failure: Error, Sendable, Equatable {
        public var reason: String
    }

    /// Compiles `pattern`.
    /// - Throws: ``Failure`` for an unknown directive, a pattern without a year, month and day, a directive given
    ///   twice, or a non-ASCII literal.
    public init(_ pattern: String) throws(Failure) {
        self.pattern = pattern
        var tokens: [Token] = []
        var bytes = Array(pattern.utf8)[...]
        while let c = bytes.popFirst() {
            if c != UInt8(ascii: "%") {
                guard c < 0x80 else { throw Failure(reason: "only ASCII characters may appear between directives") }
                tokens.append(.literal(c))
                continue
            }
            guard let d = bytes.popFirst() else { throw Failure(reason: "the pattern ends with a lone '%'") }
            switch d {
            case UInt8(ascii: "Y"): tokens.append(.year4)
            case UInt8(ascii: "y"): tokens.append(.year2)
            case UInt8(ascii: "m"): tokens.append(.month)
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "h"): tokens.append(.monthName)
            case UInt8(ascii: "d"), UInt8(ascii: "e"): tokens.append(.day)
            case UInt8(ascii: "H"): tokens.append(.hour)
            case UInt8(ascii: "M"): tokens.append(.minute)
            case UInt8(ascii: "S"): tokens.append(.second)
            case UInt8(ascii: "z"): tokens.append(.offset)
            case UInt8(ascii: "%"): tokens.append(.literal(UInt8(ascii: "%")))
            default:
                throw Failure(reason: "unknown directive '%\(Character(Unicode.Scalar(d)))' (known: %Y %y %m %d %b %B %H %M %S %z %%)")
            }
        }
        func count(_ match: (Token) -> Bool) -> Int { tokens.filter(match).count }
        let years = count { $0 == .year4 || $0 == .year2 }, months = count { $0 == .month || $0 == .monthName }
        guard years == 1, months == 1, count({ $0 == .day }) == 1 else {
            throw Failure(reason: "the pattern needs exactly one year (%Y or %y), one month (%m or %b) and one day (%d)")
        }
        for t in [Token.hour, .minute, .second, .offset] where count({ $0 == t }) > 1 {
            throw Failure(reason: "a directive appears twice")
        }
        if count({ $0 == .minute }) == 1 && count({ $0 == .hour }) == 0 {
            throw Failure(reason: "%M needs %H")
        }
        self.tokens = tokens
    }

    public var description: String { pattern }

    /// Whether the pattern reads a time of day.
    public var hasTime: Bool { tokens.contains(.hour) }
    /// Whether the pattern reads a UTC offset.
    public var hasOffset: Bool { tokens.contains(.offset) }

    static let monthNames = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                             "october", "november", "december"]

    /// A parsed cell: UTC epoch seconds (the written time when there is no offset) and whether an offset was read.
    public struct Parsed: Sendable, Equatable {
        public var seconds: Int64
        public var hasOffset: Bool
        public var hasTime: Bool
    }

    /// Parses `count` bytes at `p`.
    public func parse(_ p: UnsafePointer<UInt8>, count n: Int) -> Result<Parsed, Failure> {
        var i = 0
        var year = -1, month = -1, day = -1, hour = 0, minute = 0, second = 0, offset = 0
        var hasOffset = false
        func number(maxDigits: Int, minDigits: Int) -> Int? {
            var v = 0, k = 0
            while k < maxDigits, i < n, p[i] &- 48 < 10 {
                v = v * 10 + Int(p[i] &- 48)
                i += 1
                k += 1
            }
            return k >= minDigits ? v : nil
        }
        let mismatch = Failure(reason: "does not match --date-format '\(pattern)'")
        for token in tokens {
            switch token {
            case .literal(let c):
                guard i < n, p[i] == c else { return .failure(mismatch) }
                i += 1
            case .year4:
                guard let v = number(maxDigits: 4, minDigits: 4) else { return .failure(mismatch) }
                year = v
            case .year2:
                guard let v = number(maxDigits: 2, minDigits: 2) else { return .failure(mismatch) }
                year = v < 69 ? 2000 + v : 1900 + v
            case .month:
                guard let v = number(maxDigits: 2, minDigits: 1) else { return .failure(mismatch) }
                month = v
            case .day:
                guard let v = number(maxDigits: 2, minDigits: 1) else { return .failure(mismatch) }
                day = v
            case .hour:
                guard let v = number(maxDigits: 2, minDigits: 1) else { return .failure(mismatch) }
                hour = v
            case .minute:
                guard let v = number(maxDigits: 2, minDigits: 1) else { return .failure(mismatch) }
                minute = v
            case .second:
                guard let v = number(maxDigits: 2, minDigits: 1) else { return .failure(mismatch) }
                second = v
            case .monthName:
                var letters: [UInt8] = []
                while i < n, (p[i] | 0x20) >= UInt8(ascii: "a"), (p[i] | 0x20) <= UInt8(ascii: "z"), letters.count < 9 {
                    letters.append(p[i] | 0x20)
                    i += 1
                }
                let word = String(decoding: letters, as: UTF8.self)
                guard word.count >= 3,
                    let index = Self.monthNames.firstIndex(where: { $0 == word || $0.prefix(3) == word })
                else { return .failure(mismatch) }
                month = index + 1
            case .offset:
                guard i < n else { return .failure(mismatch) }
                hasOffset = true
                if p[i] == UInt8(ascii: "Z") || p[i] == UInt8(ascii: "z") { i += 1; continue }
                guard p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") else { return .failure(mismatch) }
                let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let h = number(maxDigits: 2, minDigits: 2) else { return .failure(mismatch) }
                var m = 0
                if i < n, p[i] == UInt8(ascii: ":") { i += 1 }
                if i < n, p[i] &- 48 < 10 {
                    guard let v = number(maxDigits: 2, minDigits: 2) else { return .failure(mismatch) }
                    m = v
                }
                guard h < 24, m < 60 else { return .failure(Failure(reason: "UTC offset out of range")) }
                offset = sign * (h * 3600 + m * 60)
            }
        }
        guard i == n else { return .failure(mismatch) }
        guard year >= 1 else { return .failure(Failure(reason: "outside the years 0001-9999 UTC")) }
        guard let date = CivilDate(year: year, month: month, day: day) else {
            return .failure(Failure(reason: "month or day out of range"))
        }
        guard hour < 24, minute < 60, second < 60 else {
            return .failure(Failure(reason: "hour, minute or second out of range"))
        }
        let seconds = date.epochSeconds + Int64(hour * 3600 + minute * 60 + second - offset)
        guard CivilDate.supportedEpochSeconds.contains(seconds) else {
            return .failure(Failure(reason: "outside the years 0001-9999 UTC"))
        }
        return .success(Parsed(seconds: seconds, hasOffset: hasOffset, hasTime: hasTime))
    }

    /// Parses `text`.
    public func parse(_ text: String) -> Result<Parsed, Failure> {
        var copy = text
        return copy.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return .failure(Failure(reason: "empty")) }
            return parse(base, count: buffer.count)
        }
    }

    /// Writes `epochSeconds` (UTC) in this pattern (`%z` as `+00:00`, `%b` as `Jan`, `%B` as `January`): the
    /// inverse of ``parse(_:)`` for the property tests and `sentio generate`.
    public func format(_ epochSeconds: Int64) -> String {
        let day = floorDivide(epochSeconds, 86_400)
        let date = CivilDate(epochSeconds: epochSeconds)
        let secondOfDay = Int(epochSeconds - day * 86_400)
        var out = ""
        var bytes = Array(pattern.utf8)[...]
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        while let c = bytes.popFirst() {
            guard c == UInt8(ascii: "%"), let d = bytes.popFirst() else {
                out.append(Character(Unicode.Scalar(c)))
                continue
            }
            switch d {
            case UInt8(ascii: "Y"): out += pad(date.year, 4)
            case UInt8(ascii: "y"): out += pad(date.year % 100, 2)
            case UInt8(ascii: "m"): out += pad(date.month, 2)
            case UInt8(ascii: "d"), UInt8(ascii: "e"): out += pad(date.day, 2)
            case UInt8(ascii: "b"), UInt8(ascii: "h"): out += Self.monthNames[date.month - 1].prefix(3).capitalized
            case UInt8(ascii: "B"): out += Self.monthNames[date.month - 1].capitalized
            case UInt8(ascii: "H"): out += pad(secondOfDay / 3600, 2)
            case UInt8(ascii: "M"): out += pad(secondOfDay / 60 % 60, 2)
            case UInt8(ascii: "S"): out += pad(secondOfDay % 60, 2)
            case UInt8(ascii: "z"): out += "+00:00"
            default: out.append("%")
            }
        }
        return out
    }
}

/// Exchange-local wall-clock times converted to UTC (`--timezone ZONE`), daylight saving time included.
///
/// A timestamp written with a time of day and without a UTC offset is read as the wall-clock time of the zone
/// (an IANA name such as `America/New_York`, from the system's time zone database through Foundation's
/// `TimeZone`). A wall-clock time that occurs twice (the hour repeated when DST ends) is the earlier instant,
/// unless that instant is not after the previous row's, then the later one (so a feed written in local time
/// through the change keeps its order). A wall-clock time that does not exist (the hour skipped when DST starts)
/// is an error. Dates without a time of day stay calendar days (00:00 UTC, Sentio's convention for daily bars),
/// and timestamps that carry an offset (`Z`, `-05:00`) are converted by their offset, not by the zone.
public struct LocalTimeZone: Sendable, Equatable {
    public let identifier: String
    let zone: TimeZone

    /// - Throws: ``DateFormat/Failure`` for a zone name the time zone database does not know.
    public init(_ identifier: String) throws(DateFormat.Failure) {
        guard let zone = TimeZone(identifier: identifier) else {
            throw DateFormat.Failure(reason: "unknown time zone '\(identifier)' (use an IANA name such as America/New_York)")
        }
        self.identifier = identifier
        self.zone = zone
    }

    /// The UTC offset of the zone at `epochSeconds`, in seconds.
    public func offset(at epochSeconds: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(epochSeconds)))
    }

    /// Why a wall-clock time has no single instant.
    public enum Problem: Error, Sendable, Equatable {
        /// Skipped by a DST change.
        case nonexistent
    }

    /// The UTC instant of wall-clock time `local` (epoch seconds as if the wall clock were UTC); `after` breaks a
    /// repeated hour (see the type's rules).
    public func utc(fromLocal local: Int64, after previous: Int64 = .min) -> Result<Int64, Problem> {
        // The offsets in force a day either side bracket every offset the wall-clock time can have.
        let before = offset(at: local - 86_400), later = offset(at: local + 86_400)
        var candidates: [Int64] = []
        for o in [before, later] {
            let u = local - Int64(o)
            if offset(at: u) == o && !candidates.contains(u) { candidates.append(u) }
        }
        if candidates.isEmpty {
            // An offset change not at a DST boundary a day away (rare zone history): try the offset at `local` itself.
            let o = offset(at: local)
            let u = local - Int64(o)
            if offset(at: u) == o { candidates.append(u) }
        }
        candidates.sort()
        guard let first = candidates.first else { return .failure(.nonexistent) }
        if first <= previous, let second = candidates.dropFirst().first { return .success(second) }
        return .success(first)
    }
}
