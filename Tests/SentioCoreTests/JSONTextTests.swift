import Foundation
import SentioCore
import SentioTestSupport
import Testing

@Suite("JSON text")
struct JSONTextTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        #expect(JSONText.quoted("plain") == "\"plain\"")
        #expect(JSONText.quoted("a\"b\\c\nd\te\u{1}") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"")
        #expect(JSONText.quoted("Fund Ω — é") == "\"Fund Ω — é\"")
    }

    /// Whatever the string, the literal must parse back to the same string.
    @Test func roundTripsThroughJSONSerialization() throws {
        var rng = SplitMix64(seed: 2026)
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0..<20, using: &rng)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0..<0x3000, using: &rng)).flatMap { (0xD800...0xDFFF).contains($0.value) ? nil : $0 }
            }
            let text = String(String.UnicodeScalarView(scalars))
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(JSONText.quoted(text))]".utf8)) as! [String]
            #expect(parsed == [text])
        }
    }
}
