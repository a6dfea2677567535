import Foundation

/// The ordered JSON encoder: keys in the order a type encodes them, numbers in their shortest round-trip form,
/// explicit `null`s, two-space layout. SentioAPI's `APIJSON` (the contracts' encoder) and SentioLive's journal
/// (the session setup it stores) both write through it, so there is one JSON encoder; its rules are documented on
/// `APIJSON`.
public enum OrderedJSON {
    /// The JSON text of `value`, ending with a newline.
    ///
    /// - Throws: ``JSONEncodingError`` for a non-finite number (naming the field's path, e.g.
    ///   `signals[2].rsi`) or an unsupported Foundation type.
    public static func encode<T: Encodable>(_ value: T) throws(JSONEncodingError) -> String {
        let root = Node()
        do {
            try OrderedEncoder(node: root, codingPath: []).encodeValue(value)
        } catch let error as JSONEncodingError {
            throw error
        } catch let EncodingError.invalidValue(_, context) {
            throw JSONEncodingError(field: JSONEncodingError.path(context.codingPath), message: context.debugDescription)
        } catch {
            throw JSONEncodingError(field: "", message: "\(error)")
        }
        var out = ""
        root.write(to: &out, indent: 0)
        out += "\n"
        return out
    }
}

/// A value that the ordered encoder (``OrderedJSON``) cannot write (a non-finite number, an unsupported type).
/// SentioAPI names it `APIEncodingError`.
public struct JSONEncodingError: UserInputError, Equatable {
    /// The coding path of the offending value, e.g. `signals[2].rsi` (empty for the top level).
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { field.isEmpty ? message : "\(field): \(message)" }

    public static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

// MARK: - The ordered encoder

/// A JSON value under construction. A class so that nested containers write into their parent in place;
/// containers keep their children in stored arrays (appending is amortized O(1), no copy per element).
final class Node {
    enum Kind {
        case unset, null, bool(Bool), number(String), string(String), array, object
    }
    var kind: Kind = .unset
    /// Array elements (`.array`).
    private var items: [Node] = []
    /// Object keys in first-encoded order, and their values (`.object`).
    private var keys: [String] = []
    private var values: [String: Node] = [:]

    func makeObject() { if case .unset = kind { kind = .object } }
    func makeArray() { if case .unset = kind { kind = .array } }

    /// The child for `key`, created (and its key appended) on first use; a key encoded twice keeps its
    /// first position and takes the last value, as `JSONEncoder` does.
    func child(_ key: String) -> Node {
        makeObject()
        precondition(isObject, "not an object")
        if let existing = values[key] { return existing }
        let node = Node()
        keys.append(key)
        values[key] = node
        return node
    }

    func append() -> Node {
        makeArray()
        precondition(isArray, "not an array")
        let node = Node()
        items.append(node)
        return node
    }

    var isObject: Bool { if case .object = kind { return true } else { return false } }
    var isArray: Bool { if case .array = kind { return true } else { return false } }
    var count: Int { items.count }

    func write(to out: inout String, indent: Int) {
        switch kind {
        case .null: out += "null"
        case .unset: out += "{}"  // encoded nothing (as JSONEncoder writes a nested empty value)
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text): out += text
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .array:
            Self.writeMembers(items.count, open: "[", close: "]", to: &out, indent: indent) { k, out in
                items[k].write(to: &out, indent: indent + 1)
            }
        case .object:
            Self.writeMembers(keys.count, open: "{", close: "}", to: &out, indent: indent) { k, out in
                JSONText.appendQuoted(keys[k], to: &out)
                out += ": "
                values[keys[k]]!.write(to: &out, indent: indent + 1)
            }
        }
    }

    /// An array's or an object's `count` members (`member(k, &out)` writes the k-th): `open`, each member on its own
    /// line one level deeper than `indent`, commas between, `close` on its own line at `indent`; `open` and `close`
    /// together when there is none.
    private static func writeMembers(
        _ count: Int, open: String, close: String, to out: inout String, indent: Int, _ member: (Int, inout String) -> Void
    ) {
        if count == 0 { out += open + close; return }
        let pad = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        out += open + "\n"
        for k in 0..<count {
            out += pad
            member(k, &out)
            out += k + 1 < count ? ",\n" : "\n"
        }
        out += closing + close
    }
}

struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String
    init(_ index: Int) { intValue = index; stringValue = "Index \(index)" }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { return nil }
}

struct OrderedEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }

    /// Writes `value` into `node`: numbers, strings and booleans directly, anything else through its `encode(to:)`.
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let x as Double: try setDouble(x)
        case let x as Float: try setDouble(Double(x))
        case let x as String: node.kind = .string(x)
        case let x as Bool: node.kind = .bool(x)
        case let x as Int: node.kind = .number(String(x))
        case let x as Int64: node.kind = .number(String(x))
        case let x as Int32: node.kind = .number(String(x))
        case let x as UInt64: node.kind = .number(String(x))
        case let x as UInt: node.kind = .number(String(x))
        case is Date, is Data, is Decimal, is URL:
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath,
                debugDescription: "\(T.self) has no contract encoding (use APITimestamp, Double or String)"))
        default:
            try value.encode(to: self)
        }
    }

    func setDouble(_ x: Double) throws {
        guard x.isFinite else {
            throw EncodingError.invalidValue(x, .init(codingPath: codingPath,
                debugDescription: "non-finite number \(x): a contract number is never null, NaN or infinite"))
        }
        node.kind = .number(x.description)
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    func encoder(for key: Key) -> OrderedEncoder {
        OrderedEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { encoder(for: key).node.kind = .null }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(for: key).encodeValue(value) }

    // Optionals are written as `null`, never skipped: every key of a contract is present.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder(for: Key(stringValue: "super")!) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(for: key) }
}

struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int { node.count }

    func next() -> OrderedEncoder {
        let key = IndexKey(node.count)
        return OrderedEncoder(node: node.append(), codingPath: codingPath + [key])
    }

    mutating func encodeNil() throws { next().node.kind = .null }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}

struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var encoder: OrderedEncoder { OrderedEncoder(node: node, codingPath: codingPath) }

    mutating func encodeNil() throws { node.kind = .null }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
    mutating func encode(_ value: Bool) throws { node.kind = .bool(value) }
    mutating func encode(_ value: String) throws { node.kind = .string(value) }
    mutating func encode(_ value: Double) throws { try encoder.setDouble(value) }
    mutating func encode(_ value: Float) throws { try encoder.setDouble(Double(value)) }
    mutating func encode(_ value: Int) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: Int8) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: Int16) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: Int32) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: Int64) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: UInt) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: UInt8) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: UInt16) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: UInt32) throws { node.kind = .number(String(value)) }
    mutating func encode(_ value: UInt64) throws { node.kind = .number(String(value)) }
}
