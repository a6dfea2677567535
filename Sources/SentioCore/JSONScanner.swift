/// The one byte-level JSON lexer (RFC 8259): whitespace, strings, numbers and the literals `true`, `false`, `null`.
///
/// Every hand-written JSON reader in the project (``JSONText`` writes; this reads) scans its tokens here and keeps
/// only its own structure (objects, arrays, which keys it wants) and its own error messages.
///
/// Rules:
/// - whitespace is space, tab, line feed and carriage return;
/// - a string is `"` … `"`; bytes below 0x20 are rejected; escapes are `\" \\ \/ \b \f \n \r \t` and `\uXXXX`
///   (hex digits in either case), where a high surrogate `\uD800`–`\uDBFF` must be followed at once by a low
///   surrogate escape `\uDC00`–`\uDFFF` and a lone low surrogate is rejected; the unescaped text must be valid
///   UTF-8;
/// - a number is `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; the scanner checks the grammar and
///   returns the exact span of text, the caller converts it (so each reader keeps its own exact conversion).
///
/// The scanner reads a borrowed buffer: it must not outlive the buffer.
public struct JSONScanner {
    /// The text being scanned (UTF-8 bytes).
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The index of the next byte to read.
    public var position: Int

    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// `true` when every byte has been read.
    @inlinable public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, `nil` at the end.
    @inlinable public var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Whether `byte` is JSON whitespace (space, tab, line feed, carriage return).
    @inlinable @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Moves past any JSON whitespace.
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    }

    /// Reads the literal `word` (`true`, `false`, `null`) at `position`; moves past it and returns `true` when the
    /// bytes match, else leaves `position` unchanged and returns `false`. (Only the bytes are compared: what
    /// follows the literal is the caller's rule.)
    @inlinable
    public mutating func scanLiteral(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let w = word.utf8Start
        for k in 0..<count where bytes[position + k] != w[k] { return false }
        position += count
        return true
    }

    // MARK: Strings

    /// Reads the string whose opening quote is at `position`, appending its unescaped UTF-8 bytes to `out`.
    ///
    /// On success `position` is just past the closing quote. On failure `position` is where the scanner stopped
    /// (just past the offending byte or escape; past the closing quote for invalid UTF-8) and `out` holds what was
    /// read so far.
    ///
    /// - Returns: `nil` on success, else the error (``JSONScanError/offset`` names the byte at fault).
    @inlinable
    public mutating func scanString(into out: inout [UInt8]) -> JSONScanError? {
        let start = position
        let outStart = out.count
        position += 1  // the opening quote
        var run = position  // start of the bytes not yet copied to `out`
        var rawBits: UInt8 = 0  // the OR of the raw bytes: bit 7 clear means they are all ASCII
        while position < bytes.count {
            let c = bytes[position]
            if c != 0x22 && c != 0x5C && c >= 0x20 {  // a plain byte: copied with its run
                rawBits |= c
                position += 1
                continue
            }
            if position > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<position])) }
            position += 1
            if c == 0x22 {  // "
                // Escapes only ever append valid UTF-8, so checking the whole is checking the raw bytes; raw bytes
                // that are all ASCII are valid UTF-8 without a look (the NDJSON bars' symbols and timestamps: the
                // validation was 9 % of `sentio live`'s CPU).
                if rawBits & 0x80 == 0 { return nil }
                if outStart == 0 {
                    if String(validating: out, as: UTF8.self) == nil { return JSONScanError(.invalidUTF8, at: start) }
                } else if String(validating: out[outStart...], as: UTF8.self) == nil {
                    return JSONScanError(.invalidUTF8, at: start)
                }
                return nil
            }
            if c == 0x5C {  // backslash
                guard position < bytes.count else { return JSONScanError(.unterminatedEscape, at: position) }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar: UInt32 = 0
                    if let error = hex4(&scalar) { return error }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == 0x5C, bytes[position + 1] == UInt8(ascii: "u")
                        else { return JSONScanError(.unpairedSurrogate, at: position) }
                        position += 2
                        var low: UInt32 = 0
                        if let error = hex4(&low) { return error }
                        guard (0xDC00..<0xE000).contains(low) else { return JSONScanError(.unpairedSurrogate, at: position) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return JSONScanError(.loneLowSurrogate, at: position)
                    }
                    // Every value left is a scalar (surrogates were handled above).
                    UTF8.encode(Unicode.Scalar(scalar)!) { out.append($0) }
                default: return JSONScanError(.badEscape, at: position)
                }
                run = position
                continue
            }
            return JSONScanError(.controlCharacter, at: position - 1)  // the only byte left: below 0x20
        }
        if position > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<position])) }
        return JSONScanError(.unterminatedString, at: position)
    }

    /// Four hex digits of a `\u` escape at `position`.
    @inlinable
    mutating func hex4(_ value: inout UInt32) -> JSONScanError? {
        guard position + 4 <= bytes.count else { return JSONScanError(.shortUnicodeEscape, at: position) }
        for _ in 0..<4 {
            let c = bytes[position]
            position += 1
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c &- 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c &- 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c &- 55
            default: return JSONScanError(.badUnicodeEscape, at: position - 1)
            }
            value = value << 4 | UInt32(digit)
        }
        return nil
    }

    // MARK: Numbers

    /// Reads a number at `position` by the JSON grammar (it does not convert it).
    ///
    /// On success `position` is just past the number. What follows is the caller's rule (`1x` scans as `1`). On
    /// failure `position` is unchanged.
    ///
    /// - Returns: the span and whether it is an integer (no fraction, no exponent), or the error:
    ///   ``JSONScanError/Kind/expectedDigit`` (no digit where the integer part starts, `+1`, `.5`, `-`),
    ///   ``JSONScanError/Kind/leadingZero`` (`01`), ``JSONScanError/Kind/missingFractionDigits`` (`1.`),
    ///   ``JSONScanError/Kind/missingExponentDigits`` (`1e`, `1e+`).
    @inlinable
    public mutating func scanNumber() -> Result<JSONNumberToken, JSONScanError> {
        let start = position
        var i = position
        @inline(__always) func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] &- 48 < 10 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return .failure(JSONScanError(.expectedDigit, at: i)) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) {
                while isDigit(i) { i += 1 }
                return .failure(JSONScanError(.leadingZero, at: i))
            }
        } else {
            while isDigit(i) { i += 1 }
        }
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            isInteger = false
            guard isDigit(i) else { return .failure(JSONScanError(.missingFractionDigits, at: i)) }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            isInteger = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { return .failure(JSONScanError(.missingExponentDigits, at: i)) }
            while isDigit(i) { i += 1 }
        }
        position = i
        return .success(JSONNumberToken(range: start..<i, isInteger: isInteger))
    }
}

/// A number ``JSONScanner/scanNumber()`` read: where its text is, and whether it has neither fraction nor exponent.
public struct JSONNumberToken: Sendable, Equatable {
    /// The byte range of the number's text in the scanned buffer.
    public var range: Range<Int>
    /// `true` when the text is `-?digits` only.
    public var isInteger: Bool

    @inlinable
    public init(range: Range<Int>, isInteger: Bool) {
        self.range = range
        self.isInteger = isInteger
    }
}

/// A lexical error of ``JSONScanner``: what is wrong and the byte offset at fault.
public struct JSONScanError: Error, Sendable, Equatable {
    /// The lexical rule broken.
    public enum Kind: Sendable, Equatable {
        case unterminatedString
        case controlCharacter
        case unterminatedEscape
        case badEscape
        case shortUnicodeEscape
        case badUnicodeEscape
        /// A high surrogate escape not followed by a low one.
        case unpairedSurrogate
        /// A low surrogate escape with no high one before it.
        case loneLowSurrogate
        case invalidUTF8
        case expectedDigit
        case leadingZero
        case missingFractionDigits
        case missingExponentDigits
    }

    public var kind: Kind
    /// The byte offset the error names (0-based, in the scanned buffer).
    public var offset: Int

    @inlinable
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }
}
