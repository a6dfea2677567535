import SentioCore
import Testing

@testable import SentioData

/// The 8-byte check of `HH:MM:SS` used for the `YYYY-MM-DDTHH:MM:SSZ` shape must agree with the general
/// path: the same text with `+00:00` instead of `Z` (a different length, so never the fast path) must give
/// the same instant or the same failure.
@Suite("TimestampParser fast path for YYYY-MM-DDTHH:MM:SSZ")
struct TimestampFastPathTests {
    let midnight: Int64 = 1_672_704_000  // 2023-01-03T00:00:00Z (date -u -d 2023-01-03 +%s)

    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    @Test("every hour, minute and second up to 99: the instant, or outOfRange past 23:59:59")
    func allClockValues() {
        var cache = TimestampParser.DateCache()
        for hour in [0, 1, 9, 10, 19, 20, 23, 24, 29, 30, 99] {
            for minute in [0, 1, 9, 10, 30, 59, 60, 61, 99] {
                for second in [0, 1, 9, 10, 30, 59, 60, 61, 99] {
                    let text = "2023-01-03T\(two(hour)):\(two(minute)):\(two(second))Z"
                    let expected: Result<Int64, TimestampParser.Failure> =
                        hour < 24 && minute < 60 && second < 60
                        ? .success(midnight + Int64(hour * 3600 + minute * 60 + second)) : .failure(.outOfRange)
                    #expect(TimestampParser.parse(text) == expected, "\(text)")
                    var copy = text
                    let cached = copy.withUTF8 { TimestampParser.parse($0.baseAddress!, count: $0.count, cache: &cache) }
                    #expect(cached == expected, "\(text) with the day cache")
                }
            }
        }
    }

    @Test("any single corrupted byte of the time, and other separators, agree with the general path")
    func corruptedBytesAgreeWithGeneralPath() {
        let base = Array("2023-01-03T09:30:15Z".utf8)
        let replacements = Array("0 9:/-.aZT+\u{7F}".utf8) + [0x00, 0x2F, 0x3A, 0x3B, 0xB0]
        var checked = 0
        for position in 10..<20 {
            for byte in replacements {
                var bytes = base
                bytes[position] = byte
                let fast = bytes.withUnsafeBufferPointer { TimestampParser.parse($0.baseAddress!, count: $0.count) }
                // Same text, zone spelled `+00:00` (length 25): the general path only.
                let general = (bytes.dropLast() + Array("+00:00".utf8)).withUnsafeBufferPointer {
                    TimestampParser.parse($0.baseAddress!, count: $0.count)
                }
                if position == 19 {
                    // The zone byte itself: compare with the general path's reading of the 19-byte prefix + byte.
                    let expected: Result<Int64, TimestampParser.Failure> =
                        byte == UInt8(ascii: "Z") ? .success(midnight + 34_215) : .failure(.malformed)
                    #expect(fast == expected, "zone byte \(byte)")
                } else {
                    #expect(fast == general, "byte \(byte) at \(position): fast \(fast), general \(general)")
                }
                checked += 1
            }
        }
        #expect(checked == 10 * replacements.count)
        // Lower-case t and z, and a space, are accepted (general path) with the same instant.
        for text in ["2023-01-03t09:30:15Z", "2023-01-03 09:30:15Z", "2023-01-03T09:30:15z"] {
            #expect(TimestampParser.parse(text) == .success(midnight + 34_215), "\(text)")
        }
    }
}
