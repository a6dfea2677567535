import Foundation
import SentioCore
import SentioTestSupport
import Testing

@Suite("JSON scanner: the one JSON lexer")
struct JSONScannerTests {
    /// Scans `bytes` as one string token: the unescaped bytes when the whole buffer is exactly one valid string.
    static func scanString(_ bytes: [UInt8]) -> (value: [UInt8]?, error: JSONScanError?) {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            var out: [UInt8] = []
            if let error = scanner.scanString(into: &out) { return (nil, error) }
            return scanner.isAtEnd ? (out, nil) : (nil, nil)
        }
    }

    /// Scans `text` as one number token: the token when the whole text is exactly one number.
    static func scanNumber(_ text: String) -> Result<JSONNumberToken, JSONScanError>? {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            let result = scanner.scanNumber()
            if case .success = result, !scanner.isAtEnd { return nil }
            return result
        }
    }

    /// Foundation's reading of `bytes` as the only element of an array: the string, or `nil` when rejected.
    static func oracleString(_ bytes: [UInt8]) -> String?? {
        let document = Data([UInt8(ascii: "[")] + bytes + [UInt8(ascii: "]")])
        guard let array = (try? JSONSerialization.jsonObject(with: document)) as? [Any] else { return .some(nil) }
        guard array.count == 1, let string = array[0] as? String else { return nil }  // not a string: oracle confused
        return .some(string)
    }

    /// Whether Foundation reads `text` as the only element of an array (an empty text makes `[]`: not a number).
    static func oracleAcceptsNumber(_ text: String) -> Bool {
        guard let array = (try? JSONSerialization.jsonObject(with: Data("[\(text)]".utf8))) as? [Any] else { return false }
        return array.count == 1 && array[0] is NSNumber
    }

    // MARK: - Generators

    static func hex4(_ value: UInt32, _ rng: inout SplitMix64) -> [UInt8] {
        let digits = String(value, radix: 16)
        let padded = String(repeating: "0", count: 4 - digits.count) + digits
        return Array("\\u".utf8) + Array((Bool.random(using: &rng) ? padded.uppercased() : padded).utf8)
    }

    /// A random string token: mostly valid pieces, sometimes one that breaks a rule.
    static func randomStringToken(_ rng: inout SplitMix64) -> [UInt8] {
        var body: [UInt8] = []
        for _ in 0..<Int.random(in: 0..<8, using: &rng) {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30:  // printable ASCII other than quote and backslash
                body.append(contentsOf: (0..<Int.random(in: 1..<5, using: &rng)).map { _ in
                    var c = UInt8.random(in: 0x20...0x7E, using: &rng)
                    if c == 0x22 || c == 0x5C { c = UInt8(ascii: "a") }
                    return c
                })
            case 30..<42:  // a non-ASCII scalar as raw UTF-8
                let ranges: [ClosedRange<UInt32>] = [0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                let v = UInt32.random(in: ranges[Int.random(in: 0..<4, using: &rng)], using: &rng)
                body.append(contentsOf: Array(String(Character(Unicode.Scalar(v)!)).utf8))
            case 42..<54:  // a two-character escape
                body.append(0x5C)
                body.append(Array("\"\\/bfnrt".utf8)[Int.random(in: 0..<8, using: &rng)])
            case 54..<64:  // \u of a non-surrogate scalar (control characters included)
                var v = UInt32.random(in: 0...0xFFFF, using: &rng)
                if (0xD800...0xDFFF).contains(v) { v = UInt32.random(in: 0...0x1F, using: &rng) }
                body.append(contentsOf: hex4(v, &rng))
            case 64..<72:  // a surrogate pair
                body.append(contentsOf: hex4(UInt32.random(in: 0xD800...0xDBFF, using: &rng), &rng))
                body.append(contentsOf: hex4(UInt32.random(in: 0xDC00...0xDFFF, using: &rng), &rng))
            case 72..<76:  // a lone high surrogate (then text, a non-low escape, or a second high)
                body.append(contentsOf: hex4(UInt32.random(in: 0xD800...0xDBFF, using: &rng), &rng))
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: body.append(UInt8(ascii: "x"))
                case 1: body.append(contentsOf: hex4(UInt32.random(in: 0x20...0x7E, using: &rng), &rng))
                default: body.append(contentsOf: hex4(UInt32.random(in: 0xD800...0xDBFF, using: &rng), &rng))
                }
            case 76..<80:  // a lone low surrogate
                body.append(contentsOf: hex4(UInt32.random(in: 0xDC00...0xDFFF, using: &rng), &rng))
            case 80..<84:  // invalid UTF-8: stray continuation, truncated sequence, overlong, encoded surrogate, 0xFF
                let bad: [[UInt8]] = [[0x80], [0xC3], [0xE2, 0x82], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80]]
                body.append(contentsOf: bad[Int.random(in: 0..<bad.count, using: &rng)])
            case 84..<88:  // a raw control character
                body.append(UInt8.random(in: 0...0x1F, using: &rng))
            case 88..<92:  // a bad escape or a bad hex digit
                if Bool.random(using: &rng) {
                    body.append(contentsOf: [0x5C, Array("xa0U'".utf8)[Int.random(in: 0..<5, using: &rng)]])
                } else {
                    body.append(contentsOf: Array("\\u12G4".utf8))
                }
            default:  // a space or a DEL
                body.append(Bool.random(using: &rng) ? 0x20 : 0x7F)
            }
        }
        var token = [UInt8(ascii: "\"")] + body
        switch Int.random(in: 0..<40, using: &rng) {
        case 0: token.append(0x5C)  // ends inside an escape
        case 1: token.append(contentsOf: Array("\\u12".utf8))  // short \u escape
        case 2: break  // unterminated
        default: token.append(UInt8(ascii: "\""))
        }
        return token
    }

    /// A random number text: valid by the grammar or just off it (`+1`, `.5`, `1.`, `01`, `1e`, `-`).
    static func randomNumberText(_ rng: inout SplitMix64) -> String {
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }) }
        var text = ""
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4: text += "-"
        case 4: text += "+"
        default: break
        }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: break  // no integer part
        case 1..<3: text += "0"
        case 3: text += "0" + digits(Int.random(in: 1...3, using: &rng))  // leading zero
        default: text += String(Int.random(in: 1...9, using: &rng)) + digits(Int.random(in: 0...5, using: &rng))
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            text += "." + digits(Int.random(in: 0...4, using: &rng) == 0 ? 0 : Int.random(in: 1...6, using: &rng))
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            text += Bool.random(using: &rng) ? "e" : "E"
            text += ["", "", "+", "-"][Int.random(in: 0..<4, using: &rng)]
            text += digits(Int.random(in: 0...4, using: &rng) == 0 ? 0 : Int.random(in: 1...2, using: &rng))
        }
        return text
    }

    // MARK: - Property tests against Foundation

    @Test("property: strings accepted, rejected and decoded as JSONSerialization does", arguments: [UInt64(0x15_0001), 0x15_0002])
    func stringsMatchFoundation(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var accepted = 0
        var rejected = 0
        for _ in 0..<1_500 {
            let token = Self.randomStringToken(&rng)
            let shown = token.map { String($0, radix: 16) }.joined(separator: " ")
            guard let oracle = Self.oracleString(token) else {
                Issue.record("oracle returned a non-string for \(shown)")
                continue
            }
            let (value, _) = Self.scanString(token)
            switch (oracle, value) {
            case (let expected?, let got?):
                accepted += 1
                #expect(Array(String(decoding: got, as: UTF8.self).unicodeScalars) == Array(expected.unicodeScalars), "\(shown)")
                #expect(String(validating: got, as: UTF8.self) != nil, "\(shown)")
            case (nil, nil): rejected += 1
            case (let expected?, nil): Issue.record("rejected what Foundation reads as \(expected.debugDescription): \(shown)")
            case (nil, let got?): Issue.record("accepted \(got) which Foundation rejects: \(shown)")
            }
        }
        #expect(accepted > 300 && rejected > 300)  // both sides of the rule were exercised
    }

    @Test("property: numbers accepted and rejected as JSONSerialization does", arguments: [UInt64(0x15_0003), 0x15_0004])
    func numbersMatchFoundation(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var accepted = 0
        var rejected = 0
        for _ in 0..<1_500 {
            let text = Self.randomNumberText(&rng)
            let oracle = Self.oracleAcceptsNumber(text)
            let scanned = Self.scanNumber(text)
            if case .success(let token)? = scanned {
                accepted += 1
                #expect(oracle, "accepted \(text)")
                #expect(token.range == 0..<text.utf8.count)
                #expect(token.isInteger == !text.contains { ".eE".contains($0) }, "\(text)")
            } else {
                rejected += 1
                #expect(!oracle, "rejected \(text)")
            }
        }
        #expect(accepted > 300 && rejected > 300)
    }

    // MARK: - Concrete cases

    @Test("errors name the rule and the byte at fault")
    func errorKindsAndOffsets() {
        let cases: [(String, JSONScanError.Kind, Int)] = [
            (#""abc"#, .unterminatedString, 4),
            ("\"a\u{1}\"", .controlCharacter, 2),
            (#""a\"#, .unterminatedEscape, 3),
            (#""\x""#, .badEscape, 3),
            (#""\u12"#, .shortUnicodeEscape, 3),
            (#""\u12G4""#, .badUnicodeEscape, 5),
            (#""\uD800x""#, .unpairedSurrogate, 7),
            (#""\uD800\u0041""#, .unpairedSurrogate, 13),
            (#""\uDC00""#, .loneLowSurrogate, 7),
        ]
        for (text, kind, offset) in cases {
            #expect(Self.scanString(Array(text.utf8)).error == JSONScanError(kind, at: offset), "\(text)")
        }
        #expect(Self.scanString([0x22, 0x61, 0xFF, 0x22]).error == JSONScanError(.invalidUTF8, at: 0))
        let numbers: [(String, JSONScanError.Kind, Int)] = [
            ("-", .expectedDigit, 1), ("+1", .expectedDigit, 0), (".5", .expectedDigit, 0), ("-012", .leadingZero, 4),
            ("1.", .missingFractionDigits, 2), ("1.5e", .missingExponentDigits, 4), ("2E+", .missingExponentDigits, 3),
        ]
        for (text, kind, offset) in numbers {
            #expect(Self.scanNumber(text) == .failure(JSONScanError(kind, at: offset)), "\(text)")
        }
    }

    @Test("a number token ends where the grammar ends; position is unchanged on failure")
    func numberSpans() {
        Array("  -12.5e+3,x".utf8).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            scanner.skipWhitespace()
            #expect(scanner.position == 2)
            let first = scanner.scanNumber()
            #expect(first == .success(JSONNumberToken(range: 2..<10, isInteger: false)))
            #expect(scanner.peek == UInt8(ascii: ","))
            scanner.position = 11
            let second = scanner.scanNumber()
            #expect(second == .failure(JSONScanError(.expectedDigit, at: 11)))
            #expect(scanner.position == 11)
        }
        #expect(Self.scanNumber("-0") == .success(JSONNumberToken(range: 0..<2, isInteger: true)))
    }

    @Test("literals match whole words only at the position")
    func literals() {
        Array("true fals null".utf8).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            let matched = scanner.scanLiteral("true")
            #expect(matched && scanner.position == 4)
            let again = scanner.scanLiteral("true")
            #expect(!again && scanner.position == 4)
            scanner.skipWhitespace()
            let truncated = scanner.scanLiteral("false")
            #expect(!truncated && scanner.position == 5)
            scanner.position = 10
            let null = scanner.scanLiteral("null")
            #expect(null && scanner.isAtEnd)
            let pastEnd = scanner.scanLiteral("null")
            #expect(!pastEnd)
        }
    }
}
