import SentioCore

extension APIJSON {
    /// The JSON text of `value` on one line, ending with a newline: one record of an NDJSON stream.
    ///
    /// The same encoding as ``encode(_:)`` (key order, number, optional and timestamp rules) without the layout:
    /// ``encode(_:)`` escapes every line break inside strings, so each line break of its output is layout, and
    /// each line's leading spaces are indentation; both are dropped. Keys are written `"key": value`.
    ///
    /// SentioLive's `LiveJournalCodec` writes the same line of a live event straight from its typed value (a
    /// measured exception for the live hot path, documented there).
    ///
    /// - Throws: ``APIEncodingError`` as ``encode(_:)`` does.
    public static func encodeLine<T: Encodable>(_ value: T) throws(APIEncodingError) -> String {
        var pretty = try encode(value)
        // Byte by byte: a line feed and the spaces after it are dropped (measured: splitting into substrings
        // and appending them cost as much as the encoding itself).
        return pretty.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { out in
                var count = 0
                var atLineStart = false
                for byte in bytes {
                    if byte == 0x0A {
                        atLineStart = true
                        continue
                    }
                    if atLineStart && byte == 0x20 { continue }
                    atLineStart = false
                    out[count] = byte
                    count += 1
                }
                out[count] = 0x0A
                return count + 1
            }
        }
    }
}
