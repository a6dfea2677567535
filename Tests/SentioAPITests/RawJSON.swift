import SentioContractDecoders
import Foundation

/// A JSON value parsed from raw bytes with object keys in the order written (for key-order checks).
indirect enum RawJSON: Sendable {
    case object([(String, RawJSON)])
    case array([RawJSON])
    case number(String)
    case string(String)
    case bool(Bool)
    case null


    /// Parses RFC 8259 JSON (the subset the contracts use: no `\u` surrogate pairs needed beyond BMP).
    static func parse(_ text: String) throws -> RawJSON {
        var p = RawJSONParser(bytes: Array(text.utf8))
        let value = try p.value()
        p.skip()
        guard p.i == p.bytes.count else { throw RawJSONParseError(offset: p.i) }
        return value
    }

}

struct RawJSONParseError: Error { let offset: Int }

struct RawJSONParser {
    let bytes: [UInt8]
    var i = 0

    mutating func skip() { while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 } }

    mutating func expect(_ c: UInt8) throws {
        skip()
        guard i < bytes.count, bytes[i] == c else { throw RawJSONParseError(offset: i) }
        i += 1
    }

    mutating func value() throws -> RawJSON {
        skip()
        guard i < bytes.count else { throw RawJSONParseError(offset: i) }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var fields: [(String, RawJSON)] = []
            skip()
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object([]) }
            while true {
                skip()
                let key = try string()
                try expect(UInt8(ascii: ":"))
                fields.append((key, try value()))
                skip()
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                try expect(UInt8(ascii: "}"))
                return .object(fields)
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [RawJSON] = []
            skip()
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array([]) }
            while true {
                items.append(try value())
                skip()
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                try expect(UInt8(ascii: "]"))
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): i += 4; return .bool(true)
        case UInt8(ascii: "f"): i += 5; return .bool(false)
        case UInt8(ascii: "n"): i += 4; return .null
        default:
            let start = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            guard i > start else { throw RawJSONParseError(offset: i) }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }
    }

    mutating func string() throws -> String {
        guard bytes[i] == UInt8(ascii: "\"") else { throw RawJSONParseError(offset: i) }
        i += 1
        var out: [UInt8] = []
        while bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\") {
                i += 1
                switch bytes[i] {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let hex = String(decoding: bytes[(i + 1)...(i + 4)], as: UTF8.self)
                    out += Array(String(UnicodeScalar(UInt32(hex, radix: 16)!)!).utf8)
                    i += 4
                default: out.append(bytes[i])
                }
                i += 1
            } else {
                guard bytes[i] >= 0x20 else { throw RawJSONParseError(offset: i) }
                out.append(bytes[i])
                i += 1
            }
        }
        i += 1
        return String(decoding: out, as: UTF8.self)
    }
}

/// The shape of a contract, written from the field lists: key order, JSON types, and where `null`
/// is allowed.
indirect enum Shape: Sendable {
    case object([(String, Shape)])
    case array(Shape)
    /// A JSON number (never null).
    case number
    /// A JSON number without fraction or exponent.
    case integer
    case string
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    case timestamp
    /// Lowercase 8-4-4-4-12 UUID, version 5.
    case uuid
    case oneOf([String])
    /// The value or `null` (the key must still be present).
    case nullable(Shape)
    /// An object of string values, any keys.
    case stringMap
    /// `true` or `false`.
    case boolean

    /// Every mismatch between `value` and this shape, as `path: problem`.
    func problems(_ value: RawJSON, at path: String = "$") -> [String] {
        switch (self, value) {
        case (.nullable, .null): return []
        case (.nullable(let inner), _): return inner.problems(value, at: path)
        case (.object(let fields), .object(let actual)):
            let expectedKeys = fields.map(\.0), actualKeys = actual.map(\.0)
            guard expectedKeys == actualKeys else { return ["\(path): keys \(actualKeys), expected \(expectedKeys)"] }
            return zip(fields, actual).flatMap { f, a in f.1.problems(a.1, at: "\(path).\(f.0)") }
        case (.array(let item), .array(let items)):
            return items.enumerated().flatMap { k, v in item.problems(v, at: "\(path)[\(k)]") }
        case (.number, .number): return []
        case (.integer, .number(let text)):
            return text.contains(where: { ".eE".contains($0) }) ? ["\(path): \(text) is not an integer"] : []
        case (.boolean, .bool): return []
        case (.string, .string): return []
        case (.timestamp, .string(let s)):
            return Strict.parseTimestamp(s) == nil ? ["\(path): \(s) is not YYYY-MM-DDTHH:MM:SSZ"] : []
        case (.uuid, .string(let s)):
            let ok = s.count == 36 && UUID(uuidString: s) != nil && s == s.lowercased() && Array(s)[14] == "5"
            return ok ? [] : ["\(path): \(s) is not a lowercase UUIDv5"]
        case (.oneOf(let options), .string(let s)):
            return options.contains(s) ? [] : ["\(path): \(s) not in \(options)"]
        case (.stringMap, .object(let fields)):
            return fields.compactMap { k, v in if case .string = v { return nil } else { return "\(path).\(k): not a string" } }
        default:
            return ["\(path): \(value) does not match \(self)"]
        }
    }
}

enum Shapes {
    static let signalType = Shape.oneOf(["BUY", "SELL", "HOLD"])

    static let signal = Shape.object([
        ("id", .uuid), ("symbol", .string), ("timestamp", .timestamp), ("price", .number), ("change", .number),
        ("changePercent", .number), ("signalType", signalType), ("confidence", .number), ("targetReturn", .number),
        ("stopLoss", .number), ("profitTarget", .number), ("aiSignal", .number), ("rsi", .number),
        ("volumeRatio", .number), ("recommendation", .string), ("reasoning", .string),
    ])

    static let signalsResponse = Shape.object([
        ("timestamp", .timestamp), ("signals", .array(signal)),
        ("warmingUp", .array(.object([("symbol", .string), ("barsRemaining", .integer)]))),
    ])

    static let symbolDetail = Shape.object([
        ("symbol", .string), ("name", .string), ("price", .number), ("signal", signal),
        ("historicalData", .array(.object([
            ("timestamp", .timestamp), ("open", .number), ("high", .number), ("low", .number), ("close", .number),
            ("volume", .number),
        ]))),
    ])

    static func position(fractional: Bool) -> Shape {
        .object([
            ("id", .uuid), ("symbol", .string), ("entryPrice", .number), ("currentPrice", .number), ("shares", .integer),
            ("entryTime", .timestamp), ("pnl", .number), ("pnlPercent", .number),
        ] + (fractional ? [("quantity", .number)] : []))
    }

    static func trade(fractional: Bool) -> Shape {
        .object([
            ("id", .uuid), ("symbol", .string), ("entryPrice", .number), ("exitPrice", .number), ("shares", .integer),
            ("entryTime", .timestamp), ("exitTime", .timestamp), ("pnl", .number), ("pnlPercent", .number),
            ("signalType", signalType),
        ] + (fractional ? [("quantity", .number)] : []))
    }

    static func portfolio(fractional: Bool) -> Shape {
        .object([
            ("initialCapital", .number), ("currentValue", .number), ("cashBalance", .number), ("totalPnL", .number),
            ("totalPnLPercent", .number), ("dayPnL", .number), ("dayPnLPercent", .number),
            ("positions", .array(position(fractional: fractional))), ("recentTrades", .array(trade(fractional: fractional))),
            ("trades", .array(trade(fractional: fractional))),
        ])
    }

    static func tradeHistory(fractional: Bool) -> Shape {
        .object([("winRate", .number), ("totalTrades", .integer), ("trades", .array(trade(fractional: fractional)))])
    }

    static let fundFields: [(String, Shape)] = [
        ("id", .uuid), ("name", .string), ("domicile", .string), ("vintage", .integer), ("manager", .string),
        ("commitment", .number), ("paidIn", .number), ("nav", .number), ("irr", .number), ("tvpi", .number),
        ("dpi", .number), ("lastReportDate", .timestamp),
        ("navHistory", .array(.object([("id", .uuid), ("date", .timestamp), ("nav", .number)]))),
    ]
    static let fund = Shape.object(fundFields)

    static let document = Shape.object([
        ("id", .uuid), ("type", .oneOf(["CAPITAL_CALL", "QUARTERLY_REPORT", "ANNUAL_REPORT", "KYC", "COMPLIANCE", "OTHER"])),
        ("title", .string), ("uploadDate", .timestamp), ("dueDate", .nullable(.timestamp)), ("callAmount", .nullable(.number)),
        ("paymentStatus", .nullable(.oneOf(["PENDING", "PAID", "LATE", "OVERDUE"]))), ("url", .nullable(.string)),
        ("parsedData", .stringMap),
    ])

    static let fundDetail = Shape.object(fundFields + [("documents", .array(document))])

    static let portfolioSummary = Shape.object([
        ("totalCommitment", .number), ("totalNav", .number), ("portfolioTvpi", .number), ("portfolioTvpiDefined", .boolean),
        ("activeCapitalCalls", .integer),
    ])

    static let cryptoHolding = Shape.object([
        ("id", .uuid), ("symbol", .string), ("name", .string), ("amount", .number), ("valueUsd", .number),
    ])

    static let cryptoHoldings = Shape.object([("holdings", .array(cryptoHolding)), ("totalValue", .number)])

    static let dashboard = Shape.object([
        ("portfolioSummary", portfolioSummary), ("funds", .array(fund)), ("cryptoHoldings", .array(cryptoHolding)),
    ])

    static let liveMessage = Shape.object([
        ("type", .oneOf(["signal_update"])),
        ("data", .object([("symbol", .string), ("price", .number), ("signal", signal)])),
    ])
}
