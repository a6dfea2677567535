import SentioCore

extension APIJSON {
    /// The JSON text of `value` on one line, ending with a newline: one record of an NDJSON stream.
    ///
    /// The same encoding as ``encode(_:)`` (key order, number, optional and timestamp rules) without the layout:
    /// ``encode(_:)`` escapes every line break inside strings, so each line break of its output is layout, and
    /// each line's leading spaces are indentation; both are dropped. Keys are written `"key": value`.
    ///
    /// - Throws: ``APIEncodingError`` as ``encode(_:)`` does.
    public static func encodeLine<T: Encodable>(_ value: T) throws(APIEncodingError) -> String {
        let pretty = try encode(value)
        var out = ""
        out.reserveCapacity(pretty.utf8.count)
        for line in pretty.split(separator: "\n", omittingEmptySubsequences: true) {
            out += line.drop(while: { $0 == " " })
        }
        out += "\n"
        return out
    }
}
