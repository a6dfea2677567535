import SentioCore

/// Parses the timestamp forms accepted in OHLCV files into UTC epoch seconds, straight from bytes.
///
/// Accepted forms:
/// - `YYYY-MM-DD` (midnight UTC),
/// - `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS` (a space or `T` between date and time; read as UTC),
/// - either of the above with a zone: `Z`, `±HH:MM`, `±HHMM` or `±HH` (converted to UTC),
/// - integer epoch seconds, optionally negative (`1672617600`).
///
/// The written date's year and the UTC instant must both lie in the years 0001–9999
/// (`CivilDate.supportedEpochSeconds`), also for epoch seconds and after applying a zone offset; anything else is
/// ``Failure/yearOutOfRange``.
///
/// Fractional seconds are accepted only when they are all zeros (`09:30:00.000`, as some exports write them);
/// a non-zero fraction is rejected because Sentio's bars have whole-second timestamps and silently truncating
/// could merge distinct bars.
public enum TimestampParser {
    /// Why a timestamp did not parse.
    public enum Failure: Error, Sendable, Equatable {
        case malformed
        case outOfRange
        case fractionalSeconds
        case yearOutOfRange

        public var reason: String {
            switch self {
            case .malformed:
                return "expected YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS], ISO-8601 with Z or ±HH:MM, or epoch seconds"
            case .outOfRange: return "month, day, hour, minute, second or offset out of range"
            case .fractionalSeconds: return "non-zero fractional seconds are not supported"
            case .yearOutOfRange: return "outside the years 0001-9999 UTC"
            }
        }
    }

    /// Parses `text`; returns the UTC epoch seconds.
    public static func parse(_ text: some StringProtocol) -> Result<Int64, Failure> {
        var copy = String(text)
        return copy.withUTF8 { parse($0.baseAddress!, count: $0.count) }
    }

    @inline(__always)
    static func digits(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int) -> Int? {
        var v = 0
        for k in start..<(start + n) {
            let d = p[k] &- 48
            if d >= 10 { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    /// Remembers the last date parsed, so rows of the same day (intraday data) skip the calendar arithmetic.
    public struct DateCache: Sendable {
        var key: (UInt64, UInt16) = (0, 0)
        var midnight: Int64 = 0
        var valid = false
        public init() {}
    }

    /// Parses `count` bytes at `p`.
    public static func parse(_ p: UnsafePointer<UInt8>, count n: Int) -> Result<Int64, Failure> {
        var cache = DateCache()
        return parse(p, count: n, cache: &cache)
    }

    /// Parses `count` bytes at `p`, reusing `cache` when the date part equals the previous one's.
    @inline(__always)
    public static func parse(_ p: UnsafePointer<UInt8>, count n: Int, cache: inout DateCache) -> Result<Int64, Failure> {
        guard n > 0 else { return .failure(.malformed) }
        // Epoch seconds: all digits, optionally signed.
        if n >= 10, p[4] == UInt8(ascii: "-") { return parseDate(p, n, &cache) }
        do {
            var i = 0
            var negative = false
            if p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+") {
                negative = p[0] == UInt8(ascii: "-")
                i = 1
            }
            guard i < n, n - i <= 18 else { return .failure(.malformed) }
            var value: Int64 = 0
            while i < n {
                let d = p[i] &- 48
                if d >= 10 { return .failure(.malformed) }
                value = value * 10 + Int64(d)
                i += 1
            }
            let seconds = negative ? -value : value
            guard CivilDate.supportedEpochSeconds.contains(seconds) else { return .failure(.yearOutOfRange) }
            return .success(seconds)
        }
    }

    /// `HH:MM:SS` at `p` (8 bytes) as seconds since midnight, or `nil` when it is not exactly that shape
    /// with hour < 24, minute < 60 and second < 60 (the general path then reports why).
    @inline(__always)
    static func secondsOfDay(_ p: UnsafePointer<UInt8>) -> Int? {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        // Colons at bytes 2 and 5; the other six bytes digits (0x30...0x39).
        let colonMask: UInt64 = 0x0000_FF00_00FF_0000
        guard word & colonMask == 0x0000_3A00_003A_0000 else { return nil }
        let digits = (word & ~colonMask) | (0x0000_3000_0030_0000)
        guard (digits & 0xF0F0_F0F0_F0F0_F0F0) | (((digits &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) &>> 4)
            == 0x3333_3333_3333_3333
        else { return nil }
        let v = digits &- 0x3030_3030_3030_3030
        let hour = Int(v & 0xFF) * 10 + Int((v &>> 8) & 0xFF)
        let minute = Int((v &>> 24) & 0xFF) * 10 + Int((v &>> 32) & 0xFF)
        let second = Int((v &>> 48) & 0xFF) * 10 + Int((v &>> 56) & 0xFF)
        guard hour < 24, minute < 60, second < 60 else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private static func parseDate(_ p: UnsafePointer<UInt8>, _ n: Int, _ cache: inout DateCache) -> Result<Int64, Failure> {
        let raw = UnsafeRawPointer(p)
        let key = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        let midnight: Int64
        if cache.valid, cache.key == key {
            midnight = cache.midnight
        } else {
            guard n >= 10, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"),
                let year = digits(p, 0, 4), let month = digits(p, 5, 2), let day = digits(p, 8, 2)
            else { return .failure(.malformed) }
            guard let date = CivilDate(year: year, month: month, day: day) else { return .failure(.outOfRange) }
            guard year >= 1 else { return .failure(.yearOutOfRange) }
            midnight = date.epochSeconds
            cache.key = key
            cache.midnight = midnight
            cache.valid = true
        }
        if n == 10 { return .success(midnight) }
        if n == 20, p[19] == UInt8(ascii: "Z"), let seconds = secondsOfDay(p + 11), p[10] == UInt8(ascii: "T") {
            // The shape Sentio writes, `YYYY-MM-DDTHH:MM:SSZ`: one 8-byte check of `HH:MM:SS`.
            return .success(midnight + Int64(seconds))
        }

        let separator = p[10]
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t"),
            n >= 16, p[13] == UInt8(ascii: ":"),
            let hour = digits(p, 11, 2), let minute = digits(p, 14, 2)
        else { return .failure(.malformed) }
        var i = 16
        var second = 0
        if i < n, p[i] == UInt8(ascii: ":") {
            guard i + 3 <= n, let s = digits(p, i + 1, 2) else { return .failure(.malformed) }
            second = s
            i += 3
            if i < n, p[i] == UInt8(ascii: ".") {
                i += 1
                let fractionStart = i
                var nonZero = false
                while i < n, p[i] &- 48 < 10 {
                    if p[i] != UInt8(ascii: "0") { nonZero = true }
                    i += 1
                }
                guard i > fractionStart else { return .failure(.malformed) }
                if nonZero { return .failure(.fractionalSeconds) }
            }
        }
        guard hour < 24, minute < 60, second < 60 else { return .failure(.outOfRange) }
        var offsetSeconds = 0
        if i < n {
            let zone = p[i]
            if zone == UInt8(ascii: "Z") || zone == UInt8(ascii: "z") {
                guard i + 1 == n else { return .failure(.malformed) }
            } else if zone == UInt8(ascii: "+") || zone == UInt8(ascii: "-") {
                let rest = n - i - 1
                let offsetHours: Int
                var offsetMinutes = 0
                switch rest {
                case 2:
                    guard let h = digits(p, i + 1, 2) else { return .failure(.malformed) }
                    offsetHours = h
                case 4:
                    guard let h = digits(p, i + 1, 2), let m = digits(p, i + 3, 2) else { return .failure(.malformed) }
                    offsetHours = h
                    offsetMinutes = m
                case 5:
                    guard p[i + 3] == UInt8(ascii: ":"), let h = digits(p, i + 1, 2), let m = digits(p, i + 4, 2)
                    else { return .failure(.malformed) }
                    offsetHours = h
                    offsetMinutes = m
                default:
                    return .failure(.malformed)
                }
                guard offsetHours < 24, offsetMinutes < 60 else { return .failure(.outOfRange) }
                offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (zone == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return .failure(.malformed)
            }
        }
        // Local time = UTC + offset, so UTC = local − offset.
        let seconds = midnight + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        guard CivilDate.supportedEpochSeconds.contains(seconds) else { return .failure(.yearOutOfRange) }
        return .success(seconds)
    }
}

extension TimestampParser {
    /// Whether a cell of the built-in forms is a wall-clock time: a date with a time of day and no zone (`Z` or
    /// an offset). Dates alone and epoch seconds are not.
    public static func isWallClock(_ p: UnsafePointer<UInt8>, count n: Int) -> Bool {
        guard n > 10, p[4] == UInt8(ascii: "-") else { return false }
        if p[n - 1] == UInt8(ascii: "Z") || p[n - 1] == UInt8(ascii: "z") { return false }
        for i in 11..<n where p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { return false }
        return true
    }
}
