import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

@Suite("NDJSON bars")
struct NDJSONBarsTests {
    static func decode(_ line: String, number: Int = 7) -> Result<FeedBar, NDJSONBarError>? {
        NDJSONBars.decode(line: line, number: number)
    }

    static func encode(_ symbol: String, _ bar: Bar) -> String {
        var writer = ByteWriter()
        NDJSONBars.append(symbol: symbol, bar: bar, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func randomBar(_ rng: inout SplitMix64) -> Bar {
        // Prices across many magnitudes (shortest round-trip forms with and without exponents), volumes 0 or more.
        let scale = pow(10, Double(Int.random(in: -8...12, using: &rng)))
        let open = Double.random(in: 1...10, using: &rng) * scale, close = Double.random(in: 1...10, using: &rng) * scale
        let high = max(open, close) * (1 + Double.random(in: 0...0.1, using: &rng))
        let low = min(open, close) * Double.random(in: 0.5...1, using: &rng)
        let volume = rng.next() % 3 == 0 ? 0 : Double.random(in: 0...1e12, using: &rng)
        let t = Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng)  // years 0001...9999
        return Bar(timestamp: t, open: open, high: high, low: low, close: close, volume: volume)
    }

    static func sameBits(_ a: Bar, _ b: Bar) -> Bool {
        a.timestamp == b.timestamp && a.open.bitPattern == b.open.bitPattern && a.high.bitPattern == b.high.bitPattern
            && a.low.bitPattern == b.low.bitPattern && a.close.bitPattern == b.close.bitPattern
            && a.volume.bitPattern == b.volume.bitPattern
    }

    /// Seeded: 2,000 random bars with random symbols (quotes, backslashes, slashes, non-ASCII)
    /// encode to one line each and decode to the same bits.
    @Test func encodeThenDecodeGivesTheSameBits() throws {
        var rng = SplitMix64(seed: 0x4E44_4A53)
        let alphabet = Array("ABCXYZ.-_\"\\/é€😀")
        for k in 0..<2_000 {
            let bar = Self.randomBar(&rng)
            let symbol = String((0..<Int.random(in: 1...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let line = Self.encode(symbol, bar)
            #expect(line.hasSuffix("}\n") && line.dropLast().firstIndex(of: "\n") == nil)
            guard case .success(let decoded)? = Self.decode(String(line.dropLast()), number: k + 1) else {
                Issue.record("line \(k + 1) did not decode: \(line)")
                continue
            }
            #expect(decoded.symbol == symbol)
            #expect(Self.sameBits(decoded.bar, bar), "\(line)")
        }
    }

    /// Seeded: keys in any order, any JSON whitespace between tokens, numbers in other valid JSON spellings
    /// (exponent forms) decode to the same bar.
    @Test func keyOrderAndWhitespaceDoNotMatter() throws {
        var rng = SplitMix64(seed: 99)
        let spaces = ["", " ", "\t", "  ", " \r"]
        for _ in 0..<500 {
            let bar = Self.randomBar(&rng)
            var pairs = [
                "\"symbol\":\"TQQQ\"", "\"timestamp\":\"\(iso8601(epochSeconds: bar.timestamp))\"",
                "\"open\":\(bar.open)", "\"high\":\(bar.high)", "\"low\":\(bar.low)", "\"close\":\(bar.close)",
                "\"volume\":\(bar.volume == 0 ? "0e0" : "\(bar.volume)")",
            ]
            pairs.shuffle(using: &rng)
            func ws() -> String { spaces.randomElement(using: &rng)! }
            let line = ws() + "{" + pairs.map { pair in
                let colon = pair.firstIndex(of: ":")!
                return ws() + pair[..<colon] + ws() + ":" + ws() + pair[pair.index(after: colon)...] + ws()
            }.joined(separator: ",") + "}" + ws()
            guard case .success(let decoded)? = Self.decode(line) else {
                Issue.record("did not decode: \(line)")
                continue
            }
            #expect(Self.sameBits(decoded.bar, bar), "\(line)")
        }
    }

    @Test func blankLinesAreSkipped() {
        #expect(Self.decode("") == nil)
        #expect(Self.decode("  \t\r") == nil)
    }

    static let valid = #"{"symbol":"TQQQ","timestamp":"2024-01-02T14:31:00Z","open":10,"high":11,"low":9,"close":10.5,"volume":100}"#

    @Test func theExampleOfTheIssueDecodes() throws {
        guard case .success(let bar)? = Self.decode(Self.valid) else { Issue.record("not decoded"); return }
        #expect(bar == FeedBar(symbol: "TQQQ", bar: Bar(timestamp: 1_704_205_860, open: 10, high: 11, low: 9, close: 10.5, volume: 100)))
        // A date alone, as a daily CSV file writes it, is midnight UTC (the reader's timestamp rules).
        let daily = Self.valid.replacingOccurrences(of: "2024-01-02T14:31:00Z", with: "2024-01-02")
        guard case .success(let day)? = Self.decode(daily) else { Issue.record("not decoded"); return }
        #expect(day.bar.timestamp == 1_704_153_600)
    }

    /// Each strictness rule: the error names the line, the field, and what is wrong.
    @Test(arguments: [
        (#"{"symbol":"TQQQ","timestamp":"2024-01-02T14:31:00Z","open":10,"high":11,"low":9,"close":10.5}"#, "volume", "missing"),
        (#"{"timestamp":"2024-01-02T14:31:00Z","open":10,"high":11,"low":9,"close":10.5}"#, "symbol", "missing (also missing: volume)"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":10.5,"volume":1,"extra":1}"#, "extra", "unknown field"),
        (#"{"symbol":"T","symbol":"U","timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":10.5,"volume":1}"#, "symbol", "appears twice"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":"10","high":11,"low":9,"close":10.5,"volume":1}"#, "open", "expected a number, got a string"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":null,"low":9,"close":10.5,"volume":1}"#, "high", "expected a number, got null"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":11,"low":true,"close":10.5,"volume":1}"#, "low", "expected a number, got a boolean"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":[1],"volume":1}"#, "close", "expected a number, got an array"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":10,"volume":{}}"#, "volume", "expected a number, got an object"),
        (#"{"symbol":5,"timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":10,"volume":1}"#, "symbol", "expected a string, got a number"),
        (#"{"symbol":"","timestamp":"2024-01-02","open":10,"high":11,"low":9,"close":10,"volume":1}"#, "symbol", "the symbol is empty"),
        (#"{"symbol":"T","timestamp":1704205860,"open":10,"high":11,"low":9,"close":10,"volume":1}"#, "timestamp", "expected a string, got a number"),
        (#"{"symbol":"T","timestamp":"2024-02-30","open":10,"high":11,"low":9,"close":10,"volume":1}"#, "timestamp", "'2024-02-30' is not a valid timestamp"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":+10,"high":11,"low":9,"close":10,"volume":1}"#, "open", "expected a number, got invalid JSON"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":010,"high":11,"low":9,"close":10,"volume":1}"#, "open", "'010' is not a JSON number"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10.,"high":11,"low":9,"close":10,"volume":1}"#, "open", "'10.' is not a JSON number"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":NaN,"high":11,"low":9,"close":10,"volume":1}"#, "open", "expected a number, got invalid JSON"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":1e400,"high":11,"low":9,"close":10,"volume":1}"#, "open", "'1e400' is not a finite number"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":0,"high":11,"low":9,"close":10,"volume":1}"#, "open", "price 0.0 is not positive (prices must be > 0)"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":8,"low":9,"close":10,"volume":1}"#, "high", "8.0 is below low = 9.0"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":10.5,"low":9,"close":11,"volume":1}"#, "high", "10.5 is below max(open, close) = 11.0"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":12,"low":10.5,"close":11,"volume":1}"#, "low", "10.5 is above min(open, close) = 10.0"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":-1}"#, "volume", "volume -1.0 is negative"),
        (#"[1,2]"#, nil, "expected a JSON object ({...}), got an array"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":1} x"#, nil, "unexpected text after the object: 'x'"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":1"#, nil, "the object is not closed (missing '}')"),
        (#"{"symbol":"T","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":1,}"#, nil, "expected a quoted key at byte 90"),
        (#"{"symbol":"A\tB","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":1}"#, "symbol", "the symbol contains a control character"),
        (#"{"symbol":"A\uD800","timestamp":"2024-01-02","open":10,"high":12,"low":9,"close":11,"volume":1}"#, "symbol", "invalid JSON string"),
    ] as [(String, String?, String)])
    func strictnessErrorsNameTheLineAndField(line: String, field: String?, message: String) {
        guard case .failure(let error)? = Self.decode(line, number: 42) else {
            Issue.record("accepted: \(line)")
            return
        }
        #expect(error.line == 42)
        #expect(error.field == field, "\(error)")
        #expect(error.message.hasPrefix(message), "\(error)")
        #expect(error.description.hasPrefix("stdin:42: "))
    }

    /// Seeded: the value rules are the CSV reader's. For random bars, some broken on purpose, the NDJSON line is
    /// accepted exactly when the same row in a CSV file is, and a rejection names the same field with the same
    /// reason.
    @Test func valueRulesAreTheCSVReadersRules() throws {
        var rng = SplitMix64(seed: 2024)
        var rejected = 0
        for _ in 0..<1_000 {
            var bar = Self.randomBar(&rng)
            switch rng.next() % 8 {
            case 0: bar.open = -bar.open
            case 1: bar.high = bar.low * 0.9
            case 2: bar.low = max(bar.open, bar.close) * 1.01
            case 3: bar.volume = -1 - bar.volume
            case 4: bar.close = 0
            default: break
            }
            let csv = "timestamp,open,high,low,close,volume\n\(iso8601(epochSeconds: bar.timestamp)),\(bar.open),\(bar.high),\(bar.low),\(bar.close),\(bar.volume)\n"
            let csvResult = Result { () throws(CSVError) -> ReadResult in try OHLCVReader.parse(text: csv, file: "stdin") }
            let line = Self.encode("R", bar).dropLast()
            let jsonResult = Self.decode(String(line), number: 2)!
            switch (csvResult, jsonResult) {
            case (.success, .success): break
            case (.failure(let csvError), .failure(let jsonError)):
                rejected += 1
                #expect(csvError.description == jsonError.description, "\(line)")
            default:
                Issue.record("CSV \(csvResult) but NDJSON \(jsonResult) for \(line)")
            }
        }
        #expect(rejected > 300)  // the broken cases were exercised
    }

    /// Timeline order: by timestamp, and within a timestamp in the order of the series given.
    @Test func timelineOrderInterleavesTheSeries() {
        var a = OHLCVSeries(symbol: "A"), b = OHLCVSeries(symbol: "B")
        for t: Int64 in [60, 120, 240] { a.append(timestamp: t, open: 1, high: 1, low: 1, close: 1, volume: 1) }
        for t: Int64 in [0, 120, 180] { b.append(timestamp: t, open: 2, high: 2, low: 2, close: 2, volume: 2) }
        var writer = ByteWriter()
        NDJSONBars.encode(timeline: [a, b], into: &writer)
        let lines = String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        let decoded = lines.enumerated().map { try! NDJSONBars.decode(line: $1, number: $0 + 1)!.get() }
        #expect(decoded.map { "\($0.symbol)\($0.bar.timestamp)" } == ["B0", "A60", "A120", "B120", "B180", "A240"])
    }
}
