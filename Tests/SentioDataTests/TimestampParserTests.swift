import SentioCore
import Testing

@testable import SentioData

@Suite("TimestampParser")
struct TimestampParserTests {
    // Reference instants computed independently: 2023-01-03 is 19360 days after 1970-01-01
    // (date -u -d 2023-01-03 +%s = 1672704000).
    let midnight: Int64 = 1_672_704_000

    @Test(arguments: [
        ("2023-01-03", Int64(0)),
        ("2023-01-03 09:30", Int64(34_200)),
        ("2023-01-03 09:30:15", Int64(34_215)),
        ("2023-01-03T09:30:15", Int64(34_215)),
        ("2023-01-03T09:30:15Z", Int64(34_215)),
        ("2023-01-03T09:30Z", Int64(34_200)),
        ("2023-01-03T09:30:15+02:00", Int64(34_215 - 7_200)),
        ("2023-01-03T09:30:15-05:00", Int64(34_215 + 18_000)),
        ("2023-01-03T09:30:15+0530", Int64(34_215 - 19_800)),
        ("2023-01-03 09:30:15-05", Int64(34_215 + 18_000)),
        ("2023-01-03 09:30:15.000", Int64(34_215)),
        ("2023-01-03T09:30:15.000000Z", Int64(34_215)),
        ("1672704000", Int64(0)),
        ("1672738215", Int64(34_215)),
    ])
    func acceptedForms(text: String, secondsAfterMidnight: Int64) {
        #expect(TimestampParser.parse(text) == .success(midnight + secondsAfterMidnight), "\(text)")
    }

    @Test func epochSecondsBefore1970AndLeapDay() {
        #expect(TimestampParser.parse("-86400") == .success(-86_400))
        #expect(TimestampParser.parse("1969-12-31") == .success(-86_400))
        #expect(TimestampParser.parse("2024-02-29") == .success(1_709_164_800))
    }

    @Test(arguments: [
        ("2023-01-03 09:30:15.5", TimestampParser.Failure.fractionalSeconds),
        ("2023-02-30", .outOfRange),
        ("2023-13-01", .outOfRange),
        ("2023-01-03 24:00", .outOfRange),
        ("2023-01-03 09:60", .outOfRange),
        ("2023/01/03", .malformed),
        ("03-01-2023", .malformed),
        ("2023-01-03 9:30", .malformed),
        ("2023-01-03T09:30:15+5", .malformed),
        ("2023-01-03T09:30:15 UTC", .malformed),
        ("", .malformed),
        ("12.5", .malformed),
        ("abc", .malformed),
    ])
    func rejectedForms(text: String, failure: TimestampParser.Failure) {
        #expect(TimestampParser.parse(text) == .failure(failure), "\(text)")
    }
}
