import Foundation
import SentioCore
import SentioCSV
import SentioData
import SentioFunds
import SentioTestSupport
import Testing

/// Byte-level mutations of valid files: every reader either rejects the file with a located error or returns data
/// that satisfies all of its rules, and a cell that survives is read as the grammar says.
@Suite("Mutated files: rejected with a location, or valid")
struct MutationTests {
    static let pieces: [[UInt8]] = [
        Array("\"".utf8), Array(",".utf8), Array("\n".utf8), Array("\r\n".utf8), [0], [0xFF], [0xC3, 0xA9], Array(" ".utf8),
        Array("e9".utf8), Array("0x1".utf8), Array("-".utf8), Array("9999".utf8), Array("0000".utf8), Array(".".utf8),
        Array("\"x\"0".utf8), Array("1e400".utf8), Array("inf".utf8),
    ]

    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let at = Int.random(in: 0...out.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: out.insert(contentsOf: pieces.randomElement(using: &rng)!, at: at)
            case 1: if at < out.count { out.remove(at: at) }
            default: if at < out.count { out[at] = pieces.randomElement(using: &rng)!.first! }
            }
        }
        return out
    }

    @Test("OHLCV: 4,000 mutated files, strict and lenient")
    func ohlcv() throws {
        var rng = SplitMix64(seed: 0x0B0E_F022)
        let generator = try MarketGenerator(config: MarketConfig(symbols: ["TQQQ"], bars: 30, seed: 11))
        let original = OHLCVWriter.encode(generator.generate()[0])
        for k in 0..<4_000 {
            let bytes = Self.mutate(original, &rng)
            let lenient = k % 2 == 1
            let result = bytes.withUnsafeBufferPointer { b in
                Result { () throws(CSVError) in
                    try OHLCVReader.parse(b, file: "m.csv", symbol: "M", lenient: lenient)
                }
            }
            switch result {
            case .failure(let error):
                // Located (a line, or a file-level problem) and printable.
                #expect(error.description.hasPrefix("m.csv"))
                #expect(!error.description.unicodeScalars.contains { $0.value < 32 || $0.value == 0xFFFD }, "\(error.description)")
            case .success(let read):
                let s = read.series
                for i in 0..<s.count {
                    #expect(s.open[i] > 0 && s.high[i] > 0 && s.low[i] > 0 && s.close[i] > 0 && s.volume[i] >= 0)
                    #expect(s.high[i].isFinite && s.volume[i].isFinite)
                    #expect(s.high[i] >= max(s.open[i], s.close[i], s.low[i]) && s.low[i] <= min(s.open[i], s.close[i]))
                    #expect(CivilDate.supportedEpochSeconds.contains(s.timestamps[i]))
                    if i > 0 { #expect(s.timestamps[i - 1] < s.timestamps[i]) }
                }
                if !lenient { #expect(read.skipped.isEmpty) }
            }
        }
    }

    @Test("cash flows: 4,000 mutated files; accepted amounts equal the grammar's value of the cell")
    func cashFlows() {
        var rng = SplitMix64(seed: 0x0B0E_F023)
        let original = Array("date,amount\n2020-01-01,-1000.5\n2020-07-01,\"250\"\n2021-01-01,900\n".utf8)
        for _ in 0..<4_000 {
            let bytes = Self.mutate(original, &rng)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                #expect(throws: TextFileError.self) { try TextFile.decode(bytes, file: "c.csv") }
                continue
            }
            do {
                let flows = try readCashFlows(text: text, file: "c.csv")
                // Re-read the cells independently: each accepted amount is the grammar's value of its cell.
                let records = try CSVRecords(text: text).records
                #expect(records.count - 1 == flows.count)
                for (record, flow) in zip(records.dropFirst(), flows) {
                    let amountColumn = records[0].cells.firstIndex { $0.lowercased() == "amount" }!
                    #expect(DecimalParser.parse(record.cells[amountColumn]) == flow.amount)
                    #expect(CivilDate.supportedYears.contains(flow.date.year))
                }
            } catch let error as FundInputError {
                #expect(error.description.hasPrefix("c.csv"))
                #expect(!error.description.unicodeScalars.contains { $0.value < 32 })
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
