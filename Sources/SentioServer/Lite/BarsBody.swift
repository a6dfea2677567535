import Hummingbird
import NIOCore
import SentioData

/// The per-bar answer of `POST /api/v1/bars`.
public struct IngestBarStatus: Codable, Sendable, Equatable {
    /// 0-based position of the bar in the request.
    public var index: Int
    /// `accepted`, `duplicate` or `rejected`.
    public var status: String
    /// The rejection code (`unknown-symbol`, `invalid-bar`, `late-bar`, `conflicting-bar`, `suspected-split`); absent otherwise.
    public var reason: String?
    /// Why it was rejected; absent otherwise.
    public var message: String?
}

/// `POST /api/v1/bars`: counts, then one status per bar in request order.
public struct IngestResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    public var rejected: Int
    public var results: [IngestBarStatus]
}

/// The body of `POST /api/v1/bars`: NDJSON (one bar object per line) or a JSON array of bar objects, each read by
/// SentioData's strict `NDJSONBars` decoder. A body that is not that (bad JSON, a missing or extra key, a wrong
/// type, a value breaking the OHLCV rules) is a 400 naming the line (NDJSON) or element (array) and the field;
/// nothing of it is ingested.
enum BarsBody {
    static func decode(_ buffer: ByteBuffer, contentType: String?) throws -> [FeedBar] {
        let bytes = Array(buffer.readableBytesView)
        let firstNonSpace = bytes.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        if firstNonSpace == UInt8(ascii: "[") {
            return try decodeArray(bytes)
        }
        var bars: [FeedBar] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard let result = NDJSONBars.decode(line: String(decoding: line, as: UTF8.self), number: lineNumber, source: "body") else {
                continue
            }
            switch result {
            case .success(let bar): bars.append(bar)
            case .failure(let error): throw ServerError(status: .badRequest, message: error.description)
            }
        }
        guard !bars.isEmpty else { throw ServerError(status: .badRequest, message: "body: no bar (expected NDJSON lines or a JSON array of bars)") }
        return bars
    }

    /// Splits a JSON array into its top-level elements (tracking strings and nesting) and decodes each.
    static func decodeArray(_ bytes: [UInt8]) throws -> [FeedBar] {
        var i = 0
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        skipSpace()
        i += 1  // "["
        var bars: [FeedBar] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            throw ServerError(status: .badRequest, message: "body: the array holds no bar")
        }
        var element = 0
        while true {
            skipSpace()
            let start = i
            var depth = 0, inString = false, escaped = false
            while i < bytes.count {
                let c = bytes[i]
                if inString {
                    if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
                } else if c == 0x22 { inString = true }
                else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
                else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    if depth == 0 { break }
                    depth -= 1
                } else if c == UInt8(ascii: ","), depth == 0 { break }
                i += 1
            }
            guard i < bytes.count else {
                throw ServerError(status: .badRequest, message: "body: element \(element): the array is not closed")
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            switch NDJSONBars.decode(line: text, number: element + 1, source: "body") {
            case .success(let bar)?: bars.append(bar)
            case .failure(let error)?:
                var message = "body: element \(element)"
                if let field = error.field { message += ": field '\(field)'" }
                throw ServerError(status: .badRequest, message: message + ": " + error.message)
            case nil: throw ServerError(status: .badRequest, message: "body: element \(element) is empty")
            }
            element += 1
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            i += 1  // ","
        }
        skipSpace()
        guard i == bytes.count else { throw ServerError(status: .badRequest, message: "body: text after the array") }
        return bars
    }
}
