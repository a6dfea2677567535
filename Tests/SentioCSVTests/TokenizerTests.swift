import Foundation
import SentioCore
import SentioCSV
import SentioData
import SentioFunds
import SentioTestSupport
import Testing

/// Tokenizes one line held in memory.
func tokenize(_ bytes: [UInt8]) -> Result<[[UInt8]], CSVSyntaxError> {
    // A sentinel byte keeps the base address valid for an empty line; it lies past `readableEnd`.
    (bytes + [0]).withUnsafeBufferPointer { buffer -> Result<[[UInt8]], CSVSyntaxError> in
        let b = buffer.baseAddress!
        var starts = [Int](repeating: 0, count: 64), ends = [Int](repeating: 0, count: 64)
        do throws(CSVSyntaxError) {
            let found = try starts.withUnsafeMutableBufferPointer { (s) throws(CSVSyntaxError) -> Int in
                try ends.withUnsafeMutableBufferPointer { (e) throws(CSVSyntaxError) -> Int in
                    try CSVTokenizer.splitLine(
                        b, from: 0, to: bytes.count, readableEnd: bytes.count, starts: s.baseAddress!, ends: e.baseAddress!,
                        capacity: 64)
                }
            }
            return .success((0..<min(found, 64)).map { k in
                let quoted = starts[k] > 0 && bytes[starts[k] - 1] == UInt8(ascii: "\"")
                var cell = Array(bytes[starts[k]..<ends[k]])
                if quoted {
                    var out: [UInt8] = []
                    var i = 0
                    while i < cell.count { out.append(cell[i]); i += cell[i] == UInt8(ascii: "\"") ? 2 : 1 }
                    cell = out
                }
                return cell
            })
        } catch {
            return .failure(error)
        }
    }
}

/// Random cell content: digits, letters, spaces, commas, quotes, NUL, tabs and bytes ≥ 0x80 (no line breaks).
func randomCellBytes(_ rng: inout SplitMix64, maxLength: Int = 8) -> [UInt8] {
    let alphabet: [UInt8] = Array("0123456789.-+eE ,\"aZ\tT:".utf8) + [0, 0x80, 0xC3, 0xA9, 0xFF, 0x7F]
    return (0..<Int.random(in: 0...maxLength, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
}

/// The RFC 4180 encoding of a cell (quoted when it needs to be or at random), with random spaces around.
func encode(_ cell: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    let special = cell.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 32 || $0 == 9 }
    let pad: [UInt8] = Bool.random(using: &rng) ? [32] : []
    if special || Bool.random(using: &rng) {
        var out: [UInt8] = pad + [UInt8(ascii: "\"")]
        for c in cell { out.append(c); if c == UInt8(ascii: "\"") { out.append(c) } }
        return out + [UInt8(ascii: "\"")] + (Bool.random(using: &rng) ? [32, 9] : [])
    }
    return pad + cell + pad
}

@Suite("CSV tokenizer (RFC 4180 quoting)")
struct TokenizerTests {
    @Test("random cells round-trip through their RFC 4180 encoding")
    func roundTrip() {
        var rng = SplitMix64(seed: 0x5E17_0C5F_0001)
        for _ in 0..<5_000 {
            let cells = (0..<Int.random(in: 1...6, using: &rng)).map { _ in randomCellBytes(&rng) }
            let line = cells.map { encode($0, &rng) }.joined(separator: [UInt8(ascii: ",")]).map { $0 }
            guard case .success(let parsed) = tokenize(line) else {
                Issue.record("line \(line) did not tokenize")
                continue
            }
            #expect(parsed == cells, "line \(String(decoding: line, as: UTF8.self))")
        }
    }

    @Test("text after a closing quote is an error naming the cell, never glued on or dropped")
    func textAfterClosingQuote() {
        var rng = SplitMix64(seed: 0x5E17_0C5F_0002)
        for _ in 0..<5_000 {
            let cells = (0..<Int.random(in: 1...6, using: &rng)).map { _ in randomCellBytes(&rng) }
            let target = Int.random(in: 0..<cells.count, using: &rng)
            var encoded = cells.map { encode($0, &rng) }
            // Force the target quoted, then glue text after its closing quote (not a space, comma or quote).
            var quoted: [UInt8] = [UInt8(ascii: "\"")]
            for c in cells[target] { quoted.append(c); if c == UInt8(ascii: "\"") { quoted.append(c) } }
            quoted.append(UInt8(ascii: "\""))
            let glue: [UInt8] = Array("0T9x".utf8) + [0, 0xFF]
            if Bool.random(using: &rng) { quoted.append(32) }
            quoted.append(glue.randomElement(using: &rng)!)
            encoded[target] = quoted + randomCellBytes(&rng).filter { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\"") }
            let line = encoded.joined(separator: [UInt8(ascii: ",")]).map { $0 }
            #expect(tokenize(line) == .failure(CSVSyntaxError(problem: .textAfterClosingQuote, cell: target)),
                "line \(String(decoding: line, as: UTF8.self))")
        }
    }

    @Test("unterminated quotes and quotes inside unquoted cells are errors")
    func otherQuoteErrors() {
        #expect(tokenize(Array("a,\"b,c".utf8)) == .failure(CSVSyntaxError(problem: .unterminatedQuote, cell: 1)))
        #expect(tokenize(Array("a,b\"c\"".utf8)) == .failure(CSVSyntaxError(problem: .quoteInUnquotedCell, cell: 1)))
        #expect(tokenize(Array("5\"0\",1".utf8)) == .failure(CSVSyntaxError(problem: .quoteInUnquotedCell, cell: 0)))
        // A quote past the 8-byte SWAR word, in a long unquoted cell.
        #expect(tokenize(Array("abcdefghijkl\"m".utf8)) == .failure(CSVSyntaxError(problem: .quoteInUnquotedCell, cell: 0)))
        #expect(tokenize(Array(" \"a\" , \"b\"\"c\" ".utf8)) == .success([Array("a".utf8), Array("b\"c".utf8)]))
    }

    /// The issue's examples, through each reader.
    @Test("issue 11 examples: \"50\"0, \"-1\"00, \"1.\"5, \"2023-01-02\"T09:30 are errors with file, line and field")
    func issueExamples() throws {
        for amount in ["\"50\"0", "\"-1\"00"] {
            let text = "date,amount\n2020-01-01,-100\n2021-01-01,\(amount)\n"
            #expect(throws: FundInputError(file: "f.csv", line: 3, field: "amount",
                message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: 1).message)) {
                try readCashFlows(text: text, file: "f.csv")
            }
        }
        let events = "fund_id,date,type,amount\nF,2020-01-01,commitment,\"50\"0\n"
        #expect(throws: FundInputError(file: "e.csv", line: 2, field: "amount",
            message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: 3).message)) {
            try FundEventFile(text: events, file: "e.csv")
        }
        #expect(throws: FundInputError(file: "i.csv", line: 2, field: "close",
            message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: 1).message)) {
            try IndexSeries(text: "date,close\n2020-01-01,\"1\"5\n", file: "i.csv")
        }
        let header = "timestamp,open,high,low,close,volume\n"
        #expect(throws: CSVError.syntax(file: "o.csv", line: 2, column: 2, field: "open",
            message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: 1).message)) {
            try OHLCVReader.parse(text: header + "2023-01-02,\"1.\"5,2,1,1.5,10\n", file: "o.csv")
        }
        #expect(throws: CSVError.syntax(file: "o.csv", line: 2, column: 1, field: "timestamp",
            message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: 0).message)) {
            try OHLCVReader.parse(text: header + "\"2023-01-02\"T09:30,1,2,1,1.5,10\n", file: "o.csv")
        }
        // Properly quoted cells still read.
        let ok = try OHLCVReader.parse(text: header + "\"2023-01-02\" ,\"1.5\",\"2\",1, 1.5 ,\"10\"\n", file: "o.csv")
        #expect(ok.series.open == [1.5] && ok.series.timestamps == [1_672_617_600])
    }

    @Test("OHLCV files with a random cell glued after its closing quote: strict read names line and field")
    func ohlcvMutations() throws {
        var rng = SplitMix64(seed: 0x5E17_0C5F_0003)
        let names = ["timestamp", "open", "high", "low", "close", "volume"]
        for _ in 0..<2_000 {
            let rows = Int.random(in: 1...12, using: &rng)
            var lines = [names.joined(separator: ",")]
            for r in 0..<rows {
                lines.append("2023-01-\(r + 10),\"10\",\"11\",9,10.5,\"1000\"")
            }
            let line = Int.random(in: 1...rows, using: &rng)
            let column = Int.random(in: 0..<6, using: &rng)
            var cells = lines[line].split(separator: ",").map(String.init)
            let bare = cells[column].replacingOccurrences(of: "\"", with: "")
            let cut = Int.random(in: 0...bare.count, using: &rng)
            cells[column] = "\"" + bare.prefix(cut) + "\"" + (cut == bare.count ? "0" : String(bare.dropFirst(cut)))
            lines[line] = cells.joined(separator: ",")
            let text = lines.joined(separator: Bool.random(using: &rng) ? "\n" : "\r\n")
            #expect(throws: CSVError.syntax(file: "m.csv", line: line + 1, column: column + 1, field: names[column],
                message: CSVSyntaxError(problem: .textAfterClosingQuote, cell: column).message)) {
                try OHLCVReader.parse(text: text, file: "m.csv")
            }
        }
    }
}
