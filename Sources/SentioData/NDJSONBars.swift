import Foundation
import SentioCore
import SentioCSV

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One bar of a multi-symbol feed: the symbol it belongs to and its values.
public struct FeedBar: Sendable, Equatable {
    public var symbol: String
    public var bar: Bar

    public init(symbol: String, bar: Bar) {
        self.symbol = symbol
        self.bar = bar
    }
}

/// Why one NDJSON line is not a bar: the input line (1-based), the field when one is to blame, and the reason.
public struct NDJSONBarError: UserInputError, Equatable {
    /// What the line came from, for messages (`stdin`, a file path).
    public var source: String
    /// 1-based line number in the input.
    public var line: Int
    /// The offending field (`nil` when the line as a whole is wrong: not an object, trailing text).
    public var field: String?
    /// The reason, without the `SOURCE:LINE:` prefix.
    public var message: String

    public init(source: String, line: Int, field: String?, message: String) {
        self.source = source
        self.line = line
        self.field = field
        self.message = message
    }

    /// `SOURCE:LINE: field 'NAME': REASON` (as ``CSVError`` words its messages).
    public var description: String {
        "\(source):\(line): " + (field.map { "field '\($0)': " } ?? "") + message
    }
}

/// Bars as newline-delimited JSON, one object per line:
/// `{"symbol":"TQQQ","timestamp":"2024-01-02T14:31:00Z","open":1.5,"high":1.6,"low":1.4,"close":1.55,"volume":1200}`.
///
/// Decoding is strict, as the contract layer's decoders are: the line must be one JSON object (RFC 8259) with
/// exactly the seven keys above, each once, in any order; `symbol` and `timestamp` are non-empty strings, the five
/// values are JSON numbers (a number written as a string, `null`, `true`, an object or an array is a wrong type;
/// an unknown or missing key is an error). Then the OHLCV reader's rules apply, the same code as for CSV files:
/// the timestamp is read by ``TimestampParser`` (so `2024-01-02T14:31:00Z`, `2024-01-02` and the other forms a
/// CSV file may use), numbers are converted exactly by `DecimalParser` (SentioCSV) and must be finite, and
/// ``OHLCVReader/checkBarValues(open:high:low:close:volume:file:line:fieldNames:)`` checks prices > 0,
/// `high ≥ low`, `high ≥ max(open, close)`, `low ≤ min(open, close)` and volume ≥ 0. Blank lines (only JSON
/// whitespace) are skipped. The order of timestamps is the consumer's rule (a feed interleaves symbols).
///
/// Encoding writes the keys in that order, timestamps as `YYYY-MM-DDTHH:MM:SSZ` and numbers in the shortest form
/// that reads back as the same `Double`, so decoding what was encoded gives the same bits.
public enum NDJSONBars {
    /// The keys of a bar object, in the order they are written.
    public static let fields = ["symbol", "timestamp", "open", "high", "low", "close", "volume"]

    /// The names ``OHLCVReader/checkBarValues(open:high:low:close:volume:file:line:fieldNames:)`` reports.
    static let ruleFieldNames = ["timestamp", "open", "high", "low", "close", "volume"]

    // MARK: - Decoding

    /// Decodes one line (without its line feed; a final carriage return counts as whitespace).
    ///
    /// - Returns: the bar, `nil` for a blank line, or the first error naming `line` and the field.
    public static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, line: Int, source: String = "stdin"
    ) -> Result<FeedBar, NDJSONBarError>? {
        var parser = LineParser(bytes: bytes, line: line, source: source)
        return parser.parse()
    }

    /// Decodes one line of text (see ``decode(_:line:source:)``).
    public static func decode(line text: String, number line: Int, source: String = "stdin") -> Result<FeedBar, NDJSONBarError>? {
        var copy = text
        return copy.withUTF8 { decode($0, line: line, source: source) }
    }

    /// A strict parser of one flat JSON object of the seven bar keys. Stops at the first error.
    struct LineParser {
        let bytes: UnsafeBufferPointer<UInt8>
        let line: Int
        let source: String
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, line: Int, source: String) {
            self.bytes = bytes
            self.line = line
            self.source = source
        }

        func failure(_ field: String?, _ message: String) -> Result<FeedBar, NDJSONBarError> {
            .failure(NDJSONBarError(source: source, line: line, field: field, message: message))
        }

        @inline(__always) mutating func skipWhitespace() {
            var scanner = JSONScanner(bytes, position: position)
            scanner.skipWhitespace()
            position = scanner.position
        }

        /// What the value starting here is, for "wrong type" messages.
        func valueKind() -> String {
            guard position < bytes.count else { return "nothing" }
            switch bytes[position] {
            case UInt8(ascii: "\""): return "a string"
            case UInt8(ascii: "{"): return "an object"
            case UInt8(ascii: "["): return "an array"
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
            case UInt8(ascii: "n"): return "null"
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
            default: return "invalid JSON"
            }
        }

        /// Parses a JSON string at `position` (which holds `"`); returns its UTF-8 bytes unescaped (``JSONScanner``).
        mutating func string() -> [UInt8]? {
            var scanner = JSONScanner(bytes, position: position)
            var out: [UInt8] = []
            let error = scanner.scanString(into: &out)
            position = scanner.position
            return error == nil ? out : nil
        }

        /// The extent of a JSON number (``JSONScanner``'s grammar) at `position`, or `nil`.
        mutating func numberExtent() -> Range<Int>? {
            var scanner = JSONScanner(bytes, position: position)
            guard case .success(let token) = scanner.scanNumber() else { return nil }
            let i = token.range.upperBound
            // A number ends at whitespace, `,` or `}`: anything else (`1.5x`) is not JSON.
            if i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"): break
                default: return nil
                }
            }
            position = i
            return token.range
        }

        func shown(_ range: Range<Int>) -> String {
            EchoedText.show(bytes: UnsafeBufferPointer(rebasing: bytes[range]))
        }

        mutating func parse() -> Result<FeedBar, NDJSONBarError>? {
            skipWhitespace()
            if position == bytes.count { return nil }
            guard bytes[position] == UInt8(ascii: "{") else {
                return failure(nil, "expected a JSON object ({...}), got \(valueKind() == "invalid JSON" ? "'\(shown(position..<min(bytes.count, position + 20)))'" : valueKind())")
            }
            position += 1
            var seen: UInt8 = 0
            var symbol = ""
            var timestamp: Int64 = 0
            var values: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
            var first = true
            while true {
                skipWhitespace()
                guard position < bytes.count else { return failure(nil, "the object is not closed (missing '}')") }
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    break
                }
                if !first {
                    guard bytes[position] == UInt8(ascii: ",") else {
                        return failure(nil, "expected ',' or '}' at byte \(position + 1), got '\(shown(position..<position + 1))'")
                    }
                    position += 1
                    skipWhitespace()
                }
                first = false
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    return failure(nil, "expected a quoted key at byte \(position + 1)")
                }
                guard let keyBytes = string() else { return failure(nil, "invalid JSON string at byte \(position)") }
                let key = String(decoding: keyBytes, as: UTF8.self)
                guard let index = NDJSONBars.fields.firstIndex(of: key) else {
                    return failure(
                        EchoedText.show(key),
                        "unknown field (a bar has exactly \(NDJSONBars.fields.joined(separator: ", ")))")
                }
                guard seen & (1 << index) == 0 else { return failure(key, "appears twice") }
                seen |= 1 << index
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    return failure(key, "expected ':' after the key")
                }
                position += 1
                skipWhitespace()
                if index < 2 {
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                        return failure(key, "expected a string, got \(valueKind())")
                    }
                    guard let text = string() else { return failure(key, "invalid JSON string") }
                    if index == 0 {
                        guard !text.isEmpty else { return failure(key, "the symbol is empty") }
                        guard !text.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                            return failure(key, "the symbol contains a control character")
                        }
                        symbol = String(decoding: text, as: UTF8.self)
                    } else {
                        guard !text.isEmpty else { return failure(key, "the timestamp is empty") }
                        let parsed = text.withUnsafeBufferPointer { TimestampParser.parse($0.baseAddress!, count: $0.count) }
                        switch parsed {
                        case .success(let t): timestamp = t
                        case .failure(let reason):
                            return failure(
                                key,
                                "'\(EchoedText.show(bytes: text))' is not a valid timestamp (\(reason.reason))")
                        }
                    }
                } else {
                    let kind = valueKind()
                    guard kind == "a number" else { return failure(key, "expected a number, got \(kind)") }
                    let start = position
                    guard let extent = numberExtent() else {
                        var end = start
                        while end < bytes.count, end - start < 40, ![0x20, 0x09, UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[end]) { end += 1 }
                        return failure(key, "'\(shown(start..<end))' is not a JSON number")
                    }
                    guard let value = DecimalParser.parse(bytes.baseAddress! + extent.lowerBound, count: extent.count),
                        value.isFinite
                    else {
                        return failure(key, "'\(shown(extent))' is not a finite number")
                    }
                    switch index {
                    case 2: values.0 = value
                    case 3: values.1 = value
                    case 4: values.2 = value
                    case 5: values.3 = value
                    default: values.4 = value
                    }
                }
            }
            if seen != 0x7F {
                let missing = NDJSONBars.fields.indices.filter { seen & (1 << $0) == 0 }.map { NDJSONBars.fields[$0] }
                return failure(missing[0], "missing" + (missing.count > 1 ? " (also missing: \(missing.dropFirst().joined(separator: ", ")))" : ""))
            }
            skipWhitespace()
            guard position == bytes.count else {
                return failure(nil, "unexpected text after the object: '\(shown(position..<min(bytes.count, position + 20)))'")
            }
            do throws(CSVError) {
                try OHLCVReader.checkBarValues(
                    open: values.0, high: values.1, low: values.2, close: values.3, volume: values.4, file: source,
                    line: line, fieldNames: NDJSONBars.ruleFieldNames)
            } catch {
                let text = error.description
                let prefix = "\(source):\(line): "
                var message = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
                var field: String?
                if message.hasPrefix("field '"), let end = message.dropFirst(7).firstIndex(of: "'") {
                    field = String(message[message.index(message.startIndex, offsetBy: 7)..<end])
                    message = String(message[message.index(end, offsetBy: 3)...])
                }
                return failure(field, message)
            }
            return .success(
                FeedBar(
                    symbol: symbol,
                    bar: Bar(
                        timestamp: timestamp, open: values.0, high: values.1, low: values.2, close: values.3,
                        volume: values.4)))
        }
    }

    // MARK: - Encoding

    /// Appends one bar as a line (with its line feed).
    public static func append(symbol: String, bar: Bar, to writer: inout ByteWriter) {
        writer.append("{\"symbol\":")
        writer.append(JSONText.quoted(symbol))
        writer.append(",\"timestamp\":\"")
        writer.append(timestamp: bar.timestamp, dateOnly: false)
        writer.append("\",\"open\":")
        appendNumber(bar.open, &writer)
        writer.append(",\"high\":")
        appendNumber(bar.high, &writer)
        writer.append(",\"low\":")
        appendNumber(bar.low, &writer)
        writer.append(",\"close\":")
        appendNumber(bar.close, &writer)
        writer.append(",\"volume\":")
        appendNumber(bar.volume, &writer)
        writer.append("}\n")
    }

    /// A finite `Double` in the shortest form that reads back the same; JSON has no `e+`-less exponent issue since
    /// Swift writes `1e-05` which is valid JSON.
    static func appendNumber(_ value: Double, _ writer: inout ByteWriter) {
        precondition(value.isFinite, "NDJSON bars hold finite numbers only")
        writer.append(roundTrip: value)
    }

    /// The bars of `series` merged into timeline order: by timestamp, and within one timestamp in the order of
    /// `series` (so a universe's order is kept). Each series' timestamps must increase.
    public static func encode(timeline series: [OHLCVSeries], into writer: inout ByteWriter) {
        var next = [Int](repeating: 0, count: series.count)
        while true {
            var earliest = Int64.max
            for (k, s) in series.enumerated() where next[k] < s.count { earliest = min(earliest, s.timestamps[next[k]]) }
            if earliest == Int64.max { return }
            for (k, s) in series.enumerated() where next[k] < s.count && s.timestamps[next[k]] == earliest {
                append(symbol: s.symbol, bar: s[bar: next[k]], to: &writer)
                next[k] += 1
            }
            writer.flushIfNeeded()
        }
    }

    /// Writes `series` in timeline order to standard output, flushing about every MiB.
    ///
    /// - Throws: ``WriteError`` when standard output cannot be written (a closed pipe).
    public static func writeTimelineToStandardOutput(_ series: [OHLCVSeries]) throws {
        // A FILE of its own on descriptor 1 (the C library's `stdout` global is not concurrency-safe to name);
        // flushed, never closed, so descriptor 1 stays open for whatever the process writes next.
        guard let file = fdopen(STDOUT_FILENO, "w") else {
            throw WriteError(path: "<stdout>", reason: String(cString: strerror(errno)))
        }
        var writer = ByteWriter(file: file)
        encode(timeline: series, into: &writer)
        writer.flush()
        if writer.failed || fflush(file) != 0 { throw WriteError(path: "<stdout>", reason: String(cString: strerror(errno))) }
    }

    /// Writes `series` in timeline order to `path` atomically.
    public static func writeTimeline(_ series: [OHLCVSeries], to path: String) throws {
        try AtomicFile.write(path: path) { writer in encode(timeline: series, into: &writer) }
    }
}
