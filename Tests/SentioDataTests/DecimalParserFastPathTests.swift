import SentioTestSupport
import Testing

@testable import SentioCSV
import SentioData

/// The 8-byte SWAR path (`parse(_:count:readable:)`, used by the CSV reader) must give bit for bit what the
/// general path and Swift's `Double(String)` give, whatever bytes follow the field.
@Suite("DecimalParser 8-byte fast path")
struct DecimalParserFastPathTests {
    /// Parses `text` through the fast-path entry with `trailing` bytes after it in the same buffer.
    func fastParse(_ text: String, trailing: [UInt8]) -> Double? {
        let field = Array(text.utf8)
        let bytes = field + trailing
        return bytes.withUnsafeBufferPointer { b in
            DecimalParser.parse(b.baseAddress!, count: field.count, readable: b.count)
        }
    }

    func generalParse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { DecimalParser.parse($0.baseAddress!, count: $0.count) }
    }

    func expectSame(_ text: String, trailing: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = fastParse(text, trailing: trailing)
        let general = generalParse(text)
        #expect(
            fast?.bitPattern == general?.bitPattern,
            "'\(text)' + \(trailing): fast \(String(describing: fast)), general \(String(describing: general))",
            sourceLocation: sourceLocation)
    }

    @Test("every string of up to 5 characters over digits, '.', signs, 'e' and space: fast == general")
    func exhaustiveShortStrings() {
        let alphabet = Array("019.-+e ".utf8)
        var strings: [[UInt8]] = [[]]
        for _ in 1...5 {
            strings = strings.flatMap { s in alphabet.map { s + [$0] } }
            for s in strings {
                let text = String(decoding: s, as: UTF8.self)
                expectTrue(text)
            }
        }
    }

    private func expectTrue(_ text: String) {
        // Trailing bytes that could be mistaken for part of the number, and a short buffer (no SWAR).
        for trailing in [Array(",12.5\n".utf8), Array("9999999999".utf8), Array("..".utf8), []] {
            let fast = fastParse(text, trailing: trailing)
            let general = generalParse(text)
            if fast?.bitPattern != general?.bitPattern {
                Issue.record("'\(text)' + \(trailing): fast \(String(describing: fast)), general \(String(describing: general))")
            }
        }
    }

    @Test("8-digit boundaries, leading zeros, a dot at each place, more than 19 digits, exponents")
    func boundaries() {
        let cases = [
            "0", "9", "00000000", "99999999", "12345678", "123456789", "1234567.8", "1234567.", ".1234567",
            ".12345678", "9999999.9", "0.0000001", "0000000.1", "00000001", "0.5", "5.", ".5", "0.", ".0", ".",
            "10000000", "1.0000000", "16.5846", "2003963", "99999999999999999999", "12345678901234567890.5",
            "0.00000000000000000000001", "1e5", "1.5e-3", "12E+2", "1e", "1.2.3", "12,3", "1 2", "-1.5", "+2.25",
            "-0", "-0.0", "1_000", "１２",
        ]
        for text in cases {
            expectSame(text, trailing: Array(",123456789\n".utf8))
            expectSame(text, trailing: [])
            #expect(fastParse(text, trailing: Array(",7".utf8))?.bitPattern == Double(text)?.bitPattern, "'\(text)'")
        }
    }

    @Test("random short decimals with random trailing bytes match Swift's Double(String) exactly")
    func randomShortDecimals() {
        var rng = SplitMix64(seed: 8_888)
        let trailingAlphabet = Array("0123456789.,\n\r e-".utf8)
        for _ in 0..<100_000 {
            let length = Int.random(in: 1...9, using: &rng)
            var digits = ""
            for _ in 0..<length { digits += String(Int.random(in: 0...9, using: &rng)) }
            let dot = Int.random(in: -1...length, using: &rng)  // −1: no dot
            let text = dot < 0 ? digits : String(digits.prefix(dot)) + "." + String(digits.dropFirst(dot))
            let trailing = (0..<Int.random(in: 0...10, using: &rng)).map { _ in trailingAlphabet.randomElement(using: &rng)! }
            let fast = fastParse(text, trailing: trailing)
            if fast?.bitPattern != Double(text)?.bitPattern {
                Issue.record("'\(text)' + \(trailing): fast \(String(describing: fast)), Swift \(String(describing: Double(text)))")
            }
        }
    }
}
