import Foundation
import SentioCore
import SentioCSV
import SentioData
import SentioFunds
import SentioTestSupport
import Testing

@Suite("One number grammar in every reader")
struct NumberGrammarTests {
    /// The grammar written independently of `DecimalParser`, as a regular expression.
    static func matchesGrammar(_ s: String) -> Bool {
        let pattern = /[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/
        return s.wholeMatch(of: pattern) != nil
    }

    /// Random strings built from number-ish tokens (digits, dots, signs, exponents, hex prefixes, inf/nan).
    static func randomNumberish(_ rng: inout SplitMix64) -> String {
        let tokens = ["0", "1", "5", "9", "00", "12", ".", "e", "E", "+", "-", "x", "0x", "1f", "inf", "nan", "Infinity",
            "e308", "e-320", "e400", "99999999999999999999", "_", ",", "'"]
        return (0..<Int.random(in: 1...7, using: &rng)).map { _ in tokens.randomElement(using: &rng)! }.joined()
    }

    static func ohlcvVolume(_ cell: String) -> Double? {
        let text = "timestamp,open,high,low,close,volume\n2023-01-02,1,2,1,1.5,\(cell)\n"
        return try? OHLCVReader.parse(text: text, file: "v.csv").series.volume[0]
    }

    static func ohlcvClose(_ cell: String) -> Double? {
        let text = "timestamp,open,high,low,close,volume\n2023-01-02,1e-300,1e300,1e-300,\(cell),0\n"
        return try? OHLCVReader.parse(text: text, file: "c.csv").series.close[0]
    }

    static func indexLevel(_ cell: String) -> Double? {
        try? IndexSeries(text: "date,close\n2020-01-01,\(cell)\n", file: "i.csv").levels[0]
    }

    static func cashFlow(_ cell: String) -> Double? {
        try? readCashFlows(text: "date,amount\n2020-01-01,\(cell)\n", file: "f.csv")[0].amount
    }

    static func eventAmount(_ cell: String) -> Decimal? {
        let text = "fund_id,date,type,amount\nF,2020-01-01,commitment,\(cell)\n"
        return (try? FundEventFile(text: text, file: "e.csv"))?.eventsByFund["F"]?[0].amount.decimal
    }

    @Test("readers agree with the grammar and with each other on 5,000 random strings")
    func readersAgree() {
        var rng = SplitMix64(seed: 0x6E0B_E55E_0011)
        var accepted = 0
        for _ in 0..<5_000 {
            let s = Self.randomNumberish(&rng)
            let grammar = Self.matchesGrammar(s)
            let value = grammar ? Double(s) : nil
            #expect((DecimalParser.parse(s) != nil) == grammar, "'\(s)': DecimalParser vs grammar")
            if grammar { #expect(DecimalParser.parse(s)?.bitPattern == value?.bitPattern, "'\(s)'") }
            let finite = value.map(\.isFinite) ?? false
            if finite { accepted += 1 }
            let v = value ?? .nan
            // OHLCV volume: finite and ≥ 0; price: finite and > 0; index level: finite and > 0.
            #expect(Self.ohlcvVolume(s)?.bitPattern == (finite && v >= 0 ? v.bitPattern : nil), "volume '\(s)'")
            #expect(Self.ohlcvClose(s)?.bitPattern == (finite && v >= 1e-300 && v <= 1e300 ? v.bitPattern : nil), "close '\(s)'")
            #expect(Self.indexLevel(s)?.bitPattern == (finite && v > 0 ? v.bitPattern : nil), "index '\(s)'")
            // Money: the same grammar and Double, plus exactness in Decimal (≤ 30 significant digits, 10^±100).
            let numeral = DecimalParser.numeral(s)
            #expect((numeral != nil) == grammar, "'\(s)': numeral vs grammar")
            let exact = finite && numeral.map { $0.digits.count <= 30 && abs($0.exponent) <= 100 } == true
            #expect(Self.cashFlow(s)?.bitPattern == (exact ? v.bitPattern : nil), "cash flow '\(s)'")
            let event = Self.eventAmount(s)
            #expect((event != nil) == (exact && v >= 0), "event amount '\(s)'")
            if let event, exact, let numeral {
                // The exact decimal is the numeral's value.
                let expected = Decimal(string: (numeral.negative ? "-" : "") + (numeral.digits.isEmpty ? "0" : numeral.digits) + "e\(numeral.exponent)", locale: Locale(identifier: "en_US_POSIX"))
                #expect(event == expected, "event amount '\(s)'")
            }
        }
        #expect(accepted > 250, "the generator must produce plenty of valid numbers, got \(accepted)")
    }

    @Test("issue 11: 0x10 and 1e3 read the same in every reader")
    func hexAndExponent() throws {
        #expect(Self.indexLevel("0x10") == nil)
        #expect(Self.cashFlow("0x10") == nil)
        #expect(Self.ohlcvVolume("0x10") == nil)
        #expect(Self.indexLevel("1e3") == 1000)
        #expect(Self.cashFlow("1e3") == 1000)
        #expect(Self.ohlcvVolume("1e3") == 1000)
        #expect(Self.eventAmount("1e3") == Decimal(1000))
        #expect(Self.indexLevel("inf") == nil && Self.indexLevel("nan") == nil)
        #expect(throws: FundInputError(file: "i.csv", line: 2, field: "close",
            message: "'0x10' is not a number (expected an optional sign, digits, an optional '.' fraction and an optional exponent, as in -1250.50 or 1.5e6)")) {
            try IndexSeries(text: "date,close\n2020-01-01,0x10\n", file: "i.csv")
        }
    }
}
