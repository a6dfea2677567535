import SentioCore

/// Any JSON value, object keys in the order they were written: saved JSON texts (a run's statistics and
/// configuration) read back and written again through ``APIJSON`` without reordering or reformatting.
///
/// Numbers: a number written without fraction or exponent that fits `Int64` is an ``integer(_:)``, any other an
/// ``number(_:)`` read with correct rounding (Swift's `Double(String)`). So re-encoding a text that ``APIJSON``
/// produced gives the same bytes: ``APIJSON`` writes a `Double` in its shortest round-trip form (always with a
/// `.` or an exponent) and an integer as digits.
public enum APIJSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([APIJSONValue])
    case object([Field])

    /// One key and its value of an ``object(_:)``.
    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: APIJSONValue
        public init(_ key: String, _ value: APIJSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of `key` when this is an object that has it.
    public subscript(key: String) -> APIJSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    /// The fields of an object (`[]` for any other value).
    public var fields: [Field] {
        if case .object(let fields) = self { return fields }
        return []
    }

    /// The number as a `Double` (integers converted), `nil` for any other value.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let x): return x
        default: return nil
        }
    }

    /// Parses RFC 8259 JSON text (surrounding whitespace allowed).
    ///
    /// - Throws: ``APIJSONParseError`` naming the byte offset of the first problem.
    public static func parse(_ text: String) throws(APIJSONParseError) -> APIJSONValue {
        let bytes = Array(text.utf8)
        let result: Result<APIJSONValue, APIJSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer)
            do throws(APIJSONParseError) {
                let value = try parser.value(depth: 0)
                parser.skipSpace()
                guard parser.at == parser.bytes.count else { throw parser.error("text after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Codable

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .number(let x):
            var c = encoder.singleValueContainer()
            try c.encode(x)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let fields):
            var c = encoder.container(keyedBy: Key.self)
            for field in fields { try c.encode(field.value, forKey: Key(field.key)) }
        }
    }

    /// Decodes any JSON value. A generic `Decoder` does not report key order: objects decoded this way have
    /// their keys sorted. Use ``parse(_:)`` to keep the written order.
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var fields: [Field] = []
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                fields.append(Field(key.stringValue, try keyed.decode(APIJSONValue.self, forKey: key)))
            }
            self = .object(fields)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [APIJSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(APIJSONValue.self)) }
            self = .array(items)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let x = try? c.decode(Double.self) { self = .number(x) }
        else { self = .string(try c.decode(String.self)) }
    }
}

/// JSON text that ``APIJSONValue/parse(_:)`` cannot read.
public struct APIJSONParseError: UserInputError, Equatable {
    /// Byte offset of the problem in the UTF-8 text.
    public var offset: Int
    public var message: String
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A small recursive-descent JSON reader that keeps object keys in order; tokens are read by ``JSONScanner``.
private struct JSONParser {
    var scanner: JSONScanner
    var bytes: UnsafeBufferPointer<UInt8> { scanner.bytes }
    var at: Int {
        get { scanner.position }
        set { scanner.position = newValue }
    }

    init(bytes: UnsafeBufferPointer<UInt8>) { scanner = JSONScanner(bytes) }

    func error(_ message: String) -> APIJSONParseError { APIJSONParseError(offset: at, message: message) }

    mutating func skipSpace() { scanner.skipWhitespace() }

    mutating func literal(_ word: StaticString, _ value: APIJSONValue) throws(APIJSONParseError) -> APIJSONValue {
        guard scanner.scanLiteral(word) else { throw error("expected \(word)") }
        return value
    }

    mutating func value(depth: Int) throws(APIJSONParseError) -> APIJSONValue {
        guard depth < 512 else { throw error("nested too deeply") }
        skipSpace()
        guard at < bytes.count else { throw error("unexpected end of text") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var fields: [APIJSONValue.Field] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(fields) }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
                at += 1
                fields.append(.init(key, try value(depth: depth + 1)))
                skipSpace()
                guard at < bytes.count else { throw error("unexpected end of text") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                at += 1
                return .object(fields)
            }
        case UInt8(ascii: "["):
            at += 1
            var items: [APIJSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw error("unexpected end of text") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                at += 1
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    mutating func number() throws(APIJSONParseError) -> APIJSONValue {
        let start = at
        let token: JSONNumberToken
        switch scanner.scanNumber() {
        case .success(let t): token = t
        case .failure(let e):
            let message: String
            switch e.kind {
            case .leadingZero: message = "leading zero in a number"
            case .missingFractionDigits: message = "expected digits after '.'"
            case .missingExponentDigits: message = "expected digits in the exponent"
            default: message = "expected a value"
            }
            throw APIJSONParseError(offset: e.offset, message: message)
        }
        let text = String(decoding: bytes[token.range], as: UTF8.self)
        if token.isInteger, let i = Int64(text) { return .integer(i) }
        guard let x = Double(text), x.isFinite else { throw APIJSONParseError(offset: start, message: "number \(text) out of range") }
        return .number(x)
    }

    mutating func string() throws(APIJSONParseError) -> String {
        var out: [UInt8] = []
        if let e = scanner.scanString(into: &out) {
            let message: String
            switch e.kind {
            case .unterminatedString: message = "unterminated string"
            case .controlCharacter: message = "control character in a string"
            case .unterminatedEscape: message = "unterminated escape"
            case .shortUnicodeEscape: message = "short \\u escape"
            case .badUnicodeEscape: message = "bad \\u escape"
            case .unpairedSurrogate: message = "unpaired surrogate"
            case .loneLowSurrogate: message = "invalid code point"
            case .invalidUTF8: message = "invalid UTF-8 in a string"
            case .badEscape: message = "bad escape"
            case .expectedDigit, .leadingZero, .missingFractionDigits, .missingExponentDigits: message = "invalid string"  // number errors: not raised by scanString
            }
            throw APIJSONParseError(offset: e.offset, message: message)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
