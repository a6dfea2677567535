import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

/// Date patterns and exchange time zones: seeded random dates written in random patterns read back as written;
/// whole-file detection decides month/day against day/month only when a day above 12 does.
@Suite("Date formats and time zones")
struct DateFormatPropertyTests {
    /// Patterns a file may use, with whether they carry a time of day.
    static let patterns = [
        "%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y", "%Y%m%d", "%Y/%m/%d", "%d-%b-%Y", "%d-%b-%y", "%b %d %Y", "%d %B %Y",
        "%m/%d/%Y %H:%M", "%d.%m.%Y %H:%M:%S", "%Y-%m-%dT%H:%M:%S%z", "%Y%m%d %H%M%S",
    ]

    @Test func randomDatesInRandomPatternsReadBack() throws {
        var rng = SplitMix64(seed: 0x28_0001)
        for _ in 0..<2_000 {
            let pattern = Self.patterns.randomElement(using: &rng)!
            let format = try DateFormat(pattern)
            // Two-digit years cover 1969-2068 only.
            let years: ClosedRange<Int64> = pattern.contains("%y") ? 1969...2068 : 1...9999
            let year = Int.random(in: Int(years.lowerBound)...Int(years.upperBound), using: &rng)
            let date = CivilDate(year: year, month: 1, day: 1)!
            var t = date.epochSeconds + Int64.random(in: 0..<(365 * 86_400), using: &rng)
            if !format.hasTime { t -= ((t % 86_400) + 86_400) % 86_400 }
            // A pattern without seconds writes whole minutes; dates stay within the years 0001-9999.
            if !pattern.contains("%S") { t -= ((t % 60) + 60) % 60 }
            if CivilDate(epochSeconds: t).year > 9999 { continue }
            let written = format.format(t)
            switch format.parse(written) {
            case .success(let parsed):
                #expect(parsed.seconds == t, "\(pattern): '\(written)' read as \(parsed.seconds), wrote \(t)")
            case .failure(let failure):
                Issue.record("\(pattern): '\(written)' refused: \(failure.reason)")
            }
        }
    }

    /// A CSV file of `dates` written with `pattern`.
    static func file(_ dates: [Int64], pattern: String) throws -> String {
        let format = try DateFormat(pattern)
        var text = "Date,Open,High,Low,Close,Volume\n"
        for t in dates { text += "\(format.format(t)),10,11,9,10.5,100\n" }
        return text
    }

    @Test func wholeFileDetectionDecidesOnlyWhenADayAbove12Does() throws {
        var rng = SplitMix64(seed: 0x28_0002)
        for _ in 0..<300 {
            let pattern = ["%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y", "%m-%d-%Y"].randomElement(using: &rng)!
            // A short run of increasing days: sometimes all days <= 12 (ambiguous), sometimes not.
            let start = CivilDate(year: Int.random(in: 1990...2030, using: &rng), month: Int.random(in: 1...12, using: &rng),
                                  day: Int.random(in: 1...(Bool.random(using: &rng) ? 3 : 28), using: &rng))!
            let count = Int.random(in: 1...12, using: &rng)
            let dates = (0..<count).map { start.epochSeconds + Int64($0) * 86_400 }
            let text = try Self.file(dates, pattern: pattern)
            let days = dates.map { CivilDate(epochSeconds: $0).day }
            let months = dates.map { CivilDate(epochSeconds: $0).month }
            // A day above 12 decides; a month above 12 never occurs, so the file is ambiguous when all days are <= 12,
            // unless day = month on every row (both readings give the same dates: still refused, never guessed).
            let decidable = days.contains { $0 > 12 }
            do {
                let result = try OHLCVReader.parse(text: text, file: "f.csv", symbol: "X")
                #expect(decidable, "\(pattern) \(days) \(months) was accepted though ambiguous")
                #expect(result.series.timestamps == dates)
            } catch {
                #expect(!decidable, "\(pattern): \(error)")
                guard case .ambiguousDates(_, let line, _, _) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(line == 2)
                #expect(error.description.contains("--date-format"))
            }
        }
    }

    @Test func givenDateFormatReadsWhatDetectionRefuses() throws {
        let text = "date,open,high,low,close,volume\n1/4/1999,1,1,1,1,0\n2/4/1999,1,1,1,1,0\n"
        #expect(throws: CSVError.self) { try OHLCVReader.parse(text: text, file: "a.csv", symbol: "A") }
        let us = try OHLCVReader.parse(text: text, file: "a.csv", symbol: "A", options: ReadOptions(dateFormat: try DateFormat("%m/%d/%Y")))
        #expect(us.series.timestamps == [CivilDate(year: 1999, month: 1, day: 4)!.epochSeconds,
                                         CivilDate(year: 1999, month: 2, day: 4)!.epochSeconds])
        let european = try OHLCVReader.parse(text: text, file: "a.csv", symbol: "A", options: ReadOptions(dateFormat: try DateFormat("%d/%m/%Y")))
        #expect(european.series.timestamps == [CivilDate(year: 1999, month: 4, day: 1)!.epochSeconds,
                                               CivilDate(year: 1999, month: 4, day: 2)!.epochSeconds])
        // A row that does not match the pattern is an error naming its line.
        let bad = text + "1999-03-01,1,1,1,1,0\n"
        let format = try DateFormat("%m/%d/%Y")
        do {
            _ = try OHLCVReader.parse(text: bad, file: "a.csv", symbol: "A", options: ReadOptions(dateFormat: format))
            Issue.record("accepted")
        } catch { #expect(error.line == 4) }
    }

    @Test func exchangeLocalTimesWithDaylightSavingTime() throws {
        let zone = try LocalTimeZone("America/New_York")
        func utc(_ text: String) -> String? {
            let csv = "timestamp,open,high,low,close,volume\n\(text),1,1,1,1,0\n"
            guard let r = try? OHLCVReader.parse(text: csv, file: "z.csv", symbol: "Z", options: ReadOptions(timeZone: zone)) else {
                return nil
            }
            return iso8601(epochSeconds: r.series.timestamps[0])
        }
        // EST (UTC-5) in winter, EDT (UTC-4) in summer.
        #expect(utc("2023-01-03 09:30:00") == "2023-01-03T14:30:00Z")
        #expect(utc("2023-07-03 09:30:00") == "2023-07-03T13:30:00Z")
        // An offset written in the cell wins over the zone; a date alone stays the calendar day.
        #expect(utc("2023-07-03T09:30:00Z") == "2023-07-03T09:30:00Z")
        #expect(utc("2023-07-03") == "2023-07-03T00:00:00Z")
        // 02:30 on 2023-03-12 does not exist in New York.
        #expect(utc("2023-03-12 02:30:00") == nil)
        // 01:30 on 2023-11-05 happens twice: a feed through the change keeps its order.
        let csv = "timestamp,open,high,low,close,volume\n2023-11-05 01:00:00,1,1,1,1,0\n2023-11-05 01:30:00,1,1,1,1,0\n"
            + "2023-11-05 01:00:00,1,1,1,1,0\n2023-11-05 01:30:00,1,1,1,1,0\n2023-11-05 02:00:00,1,1,1,1,0\n"
        // A wall clock going back is only possible through the change; the file's order decides each instant.
        let r = try? OHLCVReader.parse(text: csv, file: "z.csv", symbol: "Z", options: ReadOptions(timeZone: zone))
        #expect(r?.series.timestamps.map { iso8601(epochSeconds: $0) } == [
            "2023-11-05T05:00:00Z", "2023-11-05T05:30:00Z", "2023-11-05T06:00:00Z", "2023-11-05T06:30:00Z",
            "2023-11-05T07:00:00Z",
        ])
    }

    @Test func randomWallClockTimesRoundTripThroughTheZone() throws {
        // Seeded instants written as New York wall-clock times read back as the same instants, except in the
        // repeated hour, where the earlier instant is chosen (the later one has the same wall-clock time).
        let zone = try LocalTimeZone("America/New_York")
        var rng = SplitMix64(seed: 0x28_0003)
        for _ in 0..<2_000 {
            let t = Int64.random(in: 946_684_800...2_000_000_000, using: &rng)
            let local = t + Int64(zone.offset(at: t))
            guard case .success(let back) = zone.utc(fromLocal: local) else {
                Issue.record("the wall-clock time of \(t) was refused")
                continue
            }
            if back != t {
                #expect(back + Int64(zone.offset(at: back)) == local)
                #expect(back < t)
            }
        }
    }
}
