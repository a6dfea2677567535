import Foundation
import SentioCore

/// The one JSON writer of the savings shapes (``AllowanceReport`` and its parts).
///
/// Rules (the contract layer's conventions): keys in the order the type declares them (camelCase names, as the
/// types spell them); `null` for an absent optional (never a missing key); every `Decimal` as a JSON number with
/// exactly two decimals (`12.50`, `-0.05`, `0.00`) — values are rounded to cents where they are computed, the
/// writer never rounds; strings escaped as RFC 8259 requires; two-space indentation, one key per line; a final
/// newline. `JSONEncoder` is not used because it neither keeps key order nor writes `5.00`.
public enum SavingsJSON {
    /// `value` as JSON text (see ``SavingsJSON``).
    public static func encode(_ value: some Encodable) -> String {
        var out = ""
        write(node(value), indent: "", to: &out)
        out += "\n"
        return out
    }

    indirect enum Node {
        case object([(String, Node)])
        case array([Node])
        case string(String)
        case number(String)
        case bool(Bool)
        case null
    }

    static func node<T: Encodable>(_ value: T) -> Node {
        if let d = value as? Decimal { return .number(SavingsMoney.text(d)) }
        if let s = value as? String { return .string(s) }
        let box = Box()
        // The savings shapes' `encode(to:)` never throw (no custom encoding that fails).
        try! value.encode(to: TreeEncoder(box: box))
        return box.node
    }

    /// A `Double` (not used by the savings shapes, which hold money as `Decimal`): shortest round-trip text;
    /// NaN and infinities have no JSON form and stop the program (a bug, never a silent `null`).
    static func floatNode(_ x: Double) -> Node {
        precondition(x.isFinite, "non-finite number in a savings JSON shape")
        return .number("\(x)")
    }

    static func write(_ node: Node, indent: String, to out: inout String) {
        switch node {
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{\n"
            let inner = indent + "  "
            for (k, (key, value)) in pairs.enumerated() {
                out += inner
                JSONText.appendQuoted(key, to: &out)
                out += ": "
                write(value, indent: inner, to: &out)
                out += k == pairs.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            let inner = indent + "  "
            for (k, value) in items.enumerated() {
                out += inner
                write(value, indent: inner, to: &out)
                out += k == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .number(let n): out += n
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// Where one encoded value goes: an object's pairs, an array's items, or a single value.
    final class Box {
        var pairs: [(String, Node)] = []
        var items: [Node] = []
        var single: Node?
        var kind = 0  // 0 single, 1 object, 2 array

        var node: Node {
            switch kind {
            case 1: return .object(pairs)
            case 2: return .array(items)
            default: return single ?? .null
            }
        }
    }

    struct TreeEncoder: Encoder {
        let box: Box
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            box.kind = 1
            return KeyedEncodingContainer(Keyed<Key>(box: box))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            box.kind = 2
            return Unkeyed(box: box)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(box: box) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { box.pairs.append((key.stringValue, .null)) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { box.pairs.append((key.stringValue, .bool(value))) }
        mutating func encode(_ value: String, forKey key: Key) throws { box.pairs.append((key.stringValue, .string(value))) }
        mutating func encode(_ value: Int, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { box.pairs.append((key.stringValue, node(value))) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { box.pairs.append((key.stringValue, .number(String(value)))) }
        mutating func encode(_ value: Double, forKey key: Key) throws { box.pairs.append((key.stringValue, floatNode(Double(value)))) }
        mutating func encode(_ value: Float, forKey key: Key) throws { box.pairs.append((key.stringValue, floatNode(Double(value)))) }

        // Optionals: `null`, never a missing key.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            box.pairs.append((key.stringValue, value.map { .bool($0) } ?? .null))
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            box.pairs.append((key.stringValue, value.map { .string($0) } ?? .null))
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            box.pairs.append((key.stringValue, value.map { .number(String($0)) } ?? .null))
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            box.pairs.append((key.stringValue, value.map { node($0) } ?? .null))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("nested containers are not used by the savings shapes")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("nested containers are not used by the savings shapes")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("superEncoder is not used by the savings shapes") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("superEncoder is not used by the savings shapes") }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }
        var count: Int { box.items.count }

        mutating func encodeNil() throws { box.items.append(.null) }
        mutating func encode(_ value: Bool) throws { box.items.append(.bool(value)) }
        mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
        mutating func encode(_ value: Int) throws { box.items.append(.number(String(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws { box.items.append(node(value)) }
        mutating func encode(_ value: Int8) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Int16) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Int32) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Int64) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: UInt) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: UInt8) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: UInt16) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: UInt32) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: UInt64) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Double) throws { box.items.append(floatNode(Double(value))) }
        mutating func encode(_ value: Float) throws { box.items.append(floatNode(Double(value))) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("nested containers are not used by the savings shapes")
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("nested containers are not used by the savings shapes")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("superEncoder is not used by the savings shapes") }
    }

    struct Single: SingleValueEncodingContainer {
        let box: Box
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { box.single = .null }
        mutating func encode(_ value: Bool) throws { box.single = .bool(value) }
        mutating func encode(_ value: String) throws { box.single = .string(value) }
        mutating func encode(_ value: Int) throws { box.single = .number(String(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { box.single = node(value) }
        mutating func encode(_ value: Int8) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: Int16) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: Int32) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: Int64) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: UInt) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: UInt8) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: UInt16) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: UInt32) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: UInt64) throws { box.single = (.number(String(value))) }
        mutating func encode(_ value: Double) throws { box.single = (floatNode(Double(value))) }
        mutating func encode(_ value: Float) throws { box.single = (floatNode(Double(value))) }
    }
}

extension AllowanceReport {
    /// The report as JSON (``SavingsJSON``).
    public func json() -> String { SavingsJSON.encode(self) }
}
