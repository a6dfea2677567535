import SentioTestSupport
import Testing

@testable import SentioCSV
import SentioData

@Suite("DecimalParser")
struct DecimalParserTests {
    /// The reference is Swift's own `Double(String)` (correctly rounded); equality is bitwise.
    func expectSameAsSwift(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Double(text)
        let actual = DecimalParser.parse(text)
        #expect(
            actual?.bitPattern == expected?.bitPattern, "'\(text)': parsed \(String(describing: actual)), Swift \(String(describing: expected))",
            sourceLocation: sourceLocation)
    }

    @Test func randomPriceLikeDecimalsMatchSwiftExactly() {
        var rng = SplitMix64(seed: 20_251_121)
        for _ in 0..<200_000 {
            let integerDigits = Int.random(in: 0...8, using: &rng)
            let fractionDigits = Int.random(in: 0...10, using: &rng)
            var text = Bool.random(using: &rng) && Int.random(in: 0..<10, using: &rng) == 0 ? "-" : ""
            text += integerDigits == 0 ? "0" : String(UInt64.random(in: 1...99_999_999, using: &rng))
                .prefix(integerDigits)
            if fractionDigits > 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(Int.random(in: 0...9, using: &rng)) }
            }
            expectSameAsSwift(text)
        }
    }

    @Test func randomLongAndExponentFormsMatchSwiftExactly() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50_000 {
            // 1–30 significant digits (beyond 19 forces the strtod path), point anywhere, exponent sometimes.
            let digitCount = Int.random(in: 1...30, using: &rng)
            var digits = ""
            for _ in 0..<digitCount { digits += String(Int.random(in: 0...9, using: &rng)) }
            let point = Int.random(in: 0...digitCount, using: &rng)
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if text.hasPrefix(".") { text = "0" + text }
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -330...310, using: &rng))" }
            expectSameAsSwift(text)
        }
    }

    @Test func randomDoublesRoundTripThroughTheirDescription() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<50_000 {
            let value = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)  // finite, positive
            let text = value.description
            #expect(DecimalParser.parse(text)?.bitPattern == value.bitPattern, "\(text)")
        }
    }

    @Test func edgeCases() {
        for text in [
            "0", "-0", "0.0", "1", "+1.5", "1.", ".5", "123456789012345678", "9007199254740993", "1e22", "1e23",
            "0.1", "0.3", "2.2250738585072011e-308", "4.9e-324", "1.7976931348623157e308", "123.456E-7",
            "00000000000000000000000001.5", "0.000000000000000000000000000001", "12345678901234567890123",
        ] {
            expectSameAsSwift(text)
        }
        #expect(DecimalParser.parse("-0")?.sign == .minus)
    }

    @Test func rejectsNonNumbers() {
        for text in ["", "-", ".", "1.2.3", "1e", "1e+", "abc", "12a", " 1", "1 ", "0x10", "nan", "inf", "1,5", "--1"] {
            #expect(DecimalParser.parse(text) == nil, "'\(text)' should not parse")
        }
    }
}
