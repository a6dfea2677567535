import Foundation
import SentioCore
import SentioCSV
import SentioData
import SentioFunds
import SentioTestSupport
import Testing

let ohlcvHeader = "timestamp,open,high,low,close,volume\n"

@Suite("Timestamps: years 0001-9999 everywhere")
struct YearRangeTests {
    static let lower = CivilDate.supportedEpochSeconds.lowerBound
    static let upper = CivilDate.supportedEpochSeconds.upperBound

    @Test("bounds are 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z")
    func bounds() {
        #expect(iso8601(epochSeconds: Self.lower) == "0001-01-01T00:00:00Z")
        #expect(iso8601(epochSeconds: Self.upper) == "9999-12-31T23:59:59Z")
    }

    @Test("10,000 random epoch seconds, dates and offsets: accepted exactly inside the years 0001-9999")
    func randomInstants() {
        var rng = SplitMix64(seed: 0x7EA5_0001)
        for k in 0..<10_000 {
            // Half near the bounds, half anywhere in ±10^13 seconds.
            let near = [Self.lower, Self.upper].randomElement(using: &rng)! + Int64.random(in: -200_000...200_000, using: &rng)
            let seconds = k % 2 == 0 ? near : Int64.random(in: -10_000_000_000_000...10_000_000_000_000, using: &rng)
            let inside = CivilDate.supportedEpochSeconds.contains(seconds)
            switch TimestampParser.parse(String(seconds)) {
            case .success(let t): #expect(inside && t == seconds, "\(seconds)")
            case .failure(let f): #expect(!inside && f == .yearOutOfRange, "\(seconds): \(f)")
            }
            // The same instant as a local time with an offset (only 4-digit years can be written).
            let offsetMinutes = Int64.random(in: -(23 * 60 + 59)...(23 * 60 + 59), using: &rng)
            let local = seconds + offsetMinutes * 60
            let localDate = CivilDate(epochSeconds: local)
            guard (0...9999).contains(localDate.year) else { continue }
            let sod = local - floorDivide(local, 86_400) * 86_400
            func two(_ x: Int64) -> String { x < 10 ? "0\(x)" : "\(x)" }
            let year = String(repeating: "0", count: 4 - String(localDate.year).count) + String(localDate.year)
            let sign = offsetMinutes < 0 ? "-" : "+"
            let text = "\(year)-\(two(Int64(localDate.month)))-\(two(Int64(localDate.day)))T\(two(sod / 3600)):\(two(sod / 60 % 60)):\(two(sod % 60))"
                + "\(sign)\(two(abs(offsetMinutes) / 60)):\(two(abs(offsetMinutes) % 60))"
            // Both the written date and the UTC instant must be in the years 0001-9999.
            let acceptable = inside && localDate.year >= 1
            switch TimestampParser.parse(text) {
            case .success(let t): #expect(acceptable && t == seconds, "\(text)")
            case .failure(let f): #expect(!acceptable && f == .yearOutOfRange, "\(text): \(f)")
            }
        }
    }

    @Test("issue 11: epoch seconds before year 1 and year 0000 dates are rejected by every reader")
    func examples() throws {
        #expect(throws: CSVError.invalidTimestamp(file: "o.csv", line: 2, field: "timestamp", value: "-62135596801",
            reason: TimestampParser.Failure.yearOutOfRange.reason)) {
            try OHLCVReader.parse(text: ohlcvHeader + "-62135596801,1,2,1,1.5,10\n", file: "o.csv")
        }
        #expect(TimestampParser.parse("0000-12-31") == .failure(.yearOutOfRange))
        #expect(TimestampParser.parse("0001-01-01T00:30+01:00") == .failure(.yearOutOfRange))
        #expect(TimestampParser.parse("9999-12-31T23:30-01:00") == .failure(.yearOutOfRange))
        #expect(TimestampParser.parse("0001-01-01") == .success(Self.lower))
        #expect(CivilDate(iso: "0000-01-01") == nil)
        #expect(throws: FundInputError.self) { try readCashFlows(text: "date,amount\n0000-01-01,5\n", file: "f.csv") }
        #expect(throws: FundInputError.self) { try IndexSeries(text: "date,close\n0000-06-30,5\n", file: "i.csv") }
    }

    @Test("the generator refuses a start and length that run past 9999-12-31, and what it accepts reads back")
    func generator() throws {
        var rng = SplitMix64(seed: 0x7EA5_0002)
        for _ in 0..<200 {
            let start = CivilDate(daysSinceEpoch: CivilDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch - Int.random(in: 0...12, using: &rng))
            let frequency: BarFrequency = Bool.random(using: &rng) ? .daily : .minute
            let bars = Int.random(in: 1...(frequency == .daily ? 40 : 390 * 8), using: &rng)
            let config = MarketConfig(symbols: ["TQQQ"], bars: bars, frequency: frequency, seed: 1, start: start)
            do {
                let generator = try MarketGenerator(config: config)
                let series = generator.generate()[0]
                #expect(series.count == bars)
                #expect(CivilDate.supportedEpochSeconds.contains(series.timestamps.last!))
                #expect(CivilDate(epochSeconds: series.timestamps.last!) == generator.lastTradingDate)
            } catch {
                // Rejected only when the bars really would pass the last day: one business day fewer fits.
                guard case .pastLastSupportedDate = error else { Issue.record("\(error)"); continue }
                let perDay = frequency == .daily ? 1 : 390
                let days = (bars + perDay - 1) / perDay
                var day = start
                while day.weekday >= 5 { day = CivilDate(daysSinceEpoch: day.daysSinceEpoch + 1) }
                var count = 1
                while count < days { day = CivilDate(daysSinceEpoch: day.daysSinceEpoch + 1); if day.weekday < 5 { count += 1 } }
                #expect(day.year > 9999, "start \(start) bars \(bars) \(frequency) was refused but ends \(day)")
            }
        }
    }
}

@Suite("Prices > 0, volumes >= 0 in every reader")
struct PriceRuleTests {
    @Test("a zero or negative price in any price column is rejected naming file, line and field (2,000 cases)")
    func zeroPrices() {
        var rng = SplitMix64(seed: 0x9A1C_E001)
        let names = ["open", "high", "low", "close"]
        for _ in 0..<2_000 {
            let rows = Int.random(in: 1...20, using: &rng)
            var lines: [String] = []
            let bad = Int.random(in: 0..<rows, using: &rng), column = Int.random(in: 0..<4, using: &rng)
            let value = ["0", "0.0", "-0", "0e5", "-1", "-0.0001"].randomElement(using: &rng)!
            for r in 0..<rows {
                var prices = ["10", "11", "9", "10.5"]
                if r == bad {
                    prices[column] = value
                    // Keep the other OHLC rules satisfied where possible so the price rule is the one that fires.
                    if column != 2 { prices[2] = value }
                }
                lines.append("2023-03-\(10 + r),\(prices.joined(separator: ",")),100")
            }
            let text = ohlcvHeader + lines.joined(separator: "\n")
            do {
                _ = try OHLCVReader.parse(text: text, file: "z.csv")
                Issue.record("accepted a price \(value)")
            } catch {
                guard case .nonPositivePrice(let file, let line, let field, _) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(file == "z.csv" && line == bad + 2)
                #expect(names.contains(field))
            }
        }
    }
}

@Suite("Error messages echo values safely")
struct EchoTests {
    @Test("random bytes: no control character or invalid UTF-8 reaches the message, at most 60 characters")
    func randomBytes() {
        var rng = SplitMix64(seed: 0xEC40_0001)
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...(Bool.random(using: &rng) ? 20 : 300), using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let shown = EchoedText.show(bytes: bytes)
            #expect(!shown.unicodeScalars.contains { $0.value < 32 || $0.value == 127 || (0x80...0x9F).contains($0.value) || $0 == "\u{FFFD}" })
            let body = shown.components(separatedBy: "…(").first!
            // Each shown character is one input scalar or one escape; escapes are at most 8 characters.
            #expect(body.count <= EchoedText.limit * 8)
            if count > 0, shown.hasSuffix("bytes)") { #expect(shown.hasSuffix("…(\(count) bytes)")) }
        }
        // Printable text comes back unchanged; long text is cut with its length.
        #expect(EchoedText.show("2023-01-02T09:30") == "2023-01-02T09:30")
        #expect(EchoedText.show("é€") == "é€")
        #expect(EchoedText.show(bytes: [0x31, 0x00, 0xFF, 0x0A]) == "1\\0\\xFF\\n")
        let long = String(repeating: "9", count: 1_000_000)
        #expect(EchoedText.show(long) == String(repeating: "9", count: 60) + "…(1000000 bytes)")
    }

    @Test("a 1 MB field, NUL bytes and invalid UTF-8 in an OHLCV file give a short, escaped message")
    func readerMessages() throws {
        let huge = String(repeating: "1", count: 1_000_000) + "x"
        do {
            _ = try OHLCVReader.parse(text: ohlcvHeader + "2023-01-02,1,2,1,1.5,\(huge)\n", file: "h.csv")
            Issue.record("accepted")
        } catch {
            #expect(error.description.count < 200)
            #expect(error.description.contains("(1000001 bytes)"))
        }
        let bytes = Array((ohlcvHeader + "2023-01-02,1,2,1,1.5,10").utf8) + [0, 0xFF] + Array("\n".utf8)
        let result = bytes.withUnsafeBufferPointer { b in
            Result { () throws(CSVError) in try OHLCVReader.parse(b, file: "n.csv", symbol: "N", lenient: false) }
        }
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.description == "n.csv:2: field 'volume': '10\\0\\xFF' is not a number")
    }
}

@Suite("Reading text files with clear errors")
struct TextFileTests {
    @Test("directory, missing file, empty file, non-UTF-8 with its line")
    func errors() throws {
        let directory = try temporaryDirectory("textfile")
        #expect(throws: TextFileError(file: directory.path, reason: "is a directory, not a file")) {
            try TextFile.read(directory.path)
        }
        let missing = directory.appendingPathComponent("missing.csv").path
        #expect(throws: TextFileError(file: missing, reason: "cannot open: no such file or directory")) {
            try TextFile.read(missing)
        }
        #expect(try TextFile.read("/dev/null") == "")
        let latin1 = directory.appendingPathComponent("latin1.csv")
        try Data(Array("date,amount\n2020-01-01,5\n2021-01-01,caf".utf8) + [0xE9] + Array("\n".utf8)).write(to: latin1)
        #expect(throws: TextFileError(file: latin1.path, line: 3, reason: "not UTF-8 text (byte 0xE9 at byte 15 of the line); save the file as UTF-8")) {
            try TextFile.read(latin1.path)
        }
        let good = directory.appendingPathComponent("good.csv")
        try Data("date,amount\n2020-01-01,é\n".utf8).write(to: good)
        #expect(try TextFile.read(good.path) == "date,amount\n2020-01-01,é\n")
    }

    @Test("random byte strings: decode succeeds exactly for valid UTF-8, and the line is that of the first bad byte")
    func randomBytes() {
        var rng = SplitMix64(seed: 0x7E47_0001)
        for _ in 0..<3_000 {
            let alphabet: [UInt8] = [0x61, 0x0A, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF, 0x80, 0xF0, 0x9F, 0x98, 0x80]
            let bytes = (0..<Int.random(in: 0...30, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let reference = String(validating: bytes, as: UTF8.self)
            do {
                let text = try TextFile.decode(bytes, file: "r.txt")
                #expect(reference == text)
            } catch {
                #expect(reference == nil)
                // The reported line: newlines before the first invalid position (found with the standard decoder).
                var prefix = bytes.count
                while prefix > 0, String(validating: bytes[0..<prefix], as: UTF8.self) == nil { prefix -= 1 }
                // `prefix` valid bytes; the first bad byte is at or after it, within the next 3.
                let lines = bytes[0..<prefix].filter { $0 == 0x0A }.count + 1
                #expect(error.line == lines, "\(bytes)")
            }
        }
    }
}
