/// How error messages show a value taken from the user's input.
///
/// Rule (every reader's errors use it): printable text is shown as is; control characters (U+0000–U+001F,
/// U+007F), invalid UTF-8 bytes and other C1 controls are escaped (`\0`, `\t`, `\n`, `\r`, `\u{1B}`, `\xFF` for a
/// byte that is not valid UTF-8); a value longer than ``limit`` characters is cut, ending in
/// `…(N bytes)` with its whole length in bytes. So a 1 MB field, a NUL byte or a Latin-1 byte never reaches the
/// terminal raw.
public enum EchoedText {
    /// The most characters of a value shown in a message.
    public static let limit = 60

    /// `bytes` as shown in an error message (see ``EchoedText``).
    public static func show<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = ""
        var shown = 0
        var truncated = false
        var iterator = bytes.makeIterator()
        var pending: [UInt8] = []
        // Decode scalar by scalar; an invalid byte is escaped on its own and decoding resumes after it.
        func nextByte() -> UInt8? {
            if !pending.isEmpty { return pending.removeFirst() }
            return iterator.next()
        }
        while shown < limit, let first = nextByte() {
            var piece: String
            if first < 0x80 {
                piece = escapeASCII(first)
            } else {
                let length = first >= 0xF0 && first <= 0xF4 ? 4 : first >= 0xE0 && first < 0xF0 ? 3 : first >= 0xC2 && first < 0xE0 ? 2 : 0
                var sequence = [first]
                var valid = length > 0
                if valid {
                    for _ in 1..<length {
                        guard let next = nextByte() else { valid = false; break }
                        if next & 0xC0 != 0x80 { pending.insert(next, at: 0); valid = false; break }
                        sequence.append(next)
                    }
                }
                if valid, let scalar = decode(sequence), !(0x80...0x9F).contains(scalar.value) {
                    piece = String(scalar)
                } else if valid, let scalar = decode(sequence) {
                    piece = "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    // Escape the first byte only; the rest are looked at again.
                    for b in sequence.dropFirst().reversed() { pending.insert(b, at: 0) }
                    piece = "\\x" + hex(first)
                }
            }
            out += piece
            shown += 1
        }
        if shown >= limit, nextByte() != nil { truncated = true }
        if truncated { out += "…(\(bytes.count) bytes)" }
        return out
    }

    /// `text` as shown in an error message (see ``EchoedText``).
    public static func show(_ text: some StringProtocol) -> String { show(bytes: Array(text.utf8)) }

    /// `'VALUE'` with the value shown as by ``show(_:)``.
    public static func quoted(_ text: some StringProtocol) -> String { "'" + show(text) + "'" }

    /// `'VALUE'` with the bytes shown as by ``show(bytes:)``.
    public static func quoted<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        "'" + show(bytes: bytes) + "'"
    }

    /// The scalar of a 2–4 byte UTF-8 sequence (lead and continuation bytes already checked), or `nil` for an
    /// overlong form, a surrogate or a value above U+10FFFF.
    static func decode(_ s: [UInt8]) -> Unicode.Scalar? {
        var value: UInt32
        switch s.count {
        case 2: value = UInt32(s[0] & 0x1F) << 6 | UInt32(s[1] & 0x3F)
        case 3: value = UInt32(s[0] & 0x0F) << 12 | UInt32(s[1] & 0x3F) << 6 | UInt32(s[2] & 0x3F)
            if value < 0x800 { return nil }
        case 4: value = UInt32(s[0] & 0x07) << 18 | UInt32(s[1] & 0x3F) << 12 | UInt32(s[2] & 0x3F) << 6 | UInt32(s[3] & 0x3F)
            if value < 0x10000 { return nil }
        default: return nil
        }
        return Unicode.Scalar(value)
    }

    static func escapeASCII(_ c: UInt8) -> String {
        switch c {
        case 0: return "\\0"
        case 9: return "\\t"
        case 10: return "\\n"
        case 13: return "\\r"
        case 0..<32, 127: return "\\u{\(String(c, radix: 16, uppercase: true))}"
        default: return String(UnicodeScalar(c))
        }
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
