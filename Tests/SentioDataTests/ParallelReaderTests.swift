import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

/// The strict reader splits large files into parts parsed in parallel; whatever the file, the result (series or
/// error, with its message and line number) must equal the serial reader's.
@Suite("OHLCVReader parallel parts")
struct ParallelReaderTests {
    /// A random file of `count` valid rows (random forms: CRLF, quotes, blank lines, extra columns), then up to
    /// three defects placed on rows next to where the parts' seams fall.
    func randomFile(_ rng: inout SplitMix64, count: Int, parts: Int) -> String {
        var rows: [[String]] = []
        var t = Int64.random(in: 0...2_000_000_000, using: &rng)
        for _ in 0..<count {
            let open = Double.random(in: 0.01...1_000, using: &rng), close = Double.random(in: 0.01...1_000, using: &rng)
            let high = max(open, close) + Double.random(in: 0...5, using: &rng)
            let low = min(open, close) * Double.random(in: 0.9...1, using: &rng)
            rows.append([
                Bool.random(using: &rng) ? iso8601(epochSeconds: t) : String(t), "\(open)", "\(high)", "\(low)",
                "\(close)", String(Int.random(in: 0...1_000_000, using: &rng)), "\"a, b\"",
            ])
            t += Int64.random(in: 1...3_600, using: &rng)
        }
        let defects = Int.random(in: 0...3, using: &rng)
        for _ in 0..<defects where count > 1 {
            // A row near a seam: parts split the bytes evenly, so row `count·j/parts` is near seam `j`.
            let seam = count * Int.random(in: 1..<max(2, parts), using: &rng) / parts
            let i = min(count - 1, max(1, seam + Int.random(in: -2...2, using: &rng)))
            switch Int.random(in: 0...6, using: &rng) {
            case 0: rows[i][0] = rows[i - 1][0]  // duplicate timestamp
            case 1: rows.swapAt(i - 1, i)  // out of order
            case 2: rows[i][2] = "-1"  // high below low
            case 3: rows[i][4] = "abc"  // not a number
            case 4: rows[i].removeLast()  // wrong column count
            case 5: rows[i][1] = "\"1.5\"x"  // bad quoting
            default: rows[i][5] = "inf"  // not finite
            }
        }
        let newline = Bool.random(using: &rng) ? "\r\n" : "\n"
        var text = "timestamp,open,high,low,close,volume,note"
        for row in rows {
            if Int.random(in: 0..<10, using: &rng) == 0 { text += newline }  // a blank line
            text += newline + row.joined(separator: ",")
        }
        if Bool.random(using: &rng) { text += newline }
        return text
    }

    func read(_ text: String, parts: Int) -> (result: Result<ReadResult, CSVError>, parallel: Bool) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            do throws(CSVError) {
                let (result, parallel) = try OHLCVReader.parse(
                    buffer, file: "random.csv", symbol: "R", lenient: false, parts: parts, minimumPartBytes: 0)
                return (.success(result), parallel)
            } catch {
                return (.failure(error), false)
            }
        }
    }

    @Test func partsEqualTheSerialReaderOnRandomFilesWithErrorsNearTheSeams() {
        var rng = SplitMix64(seed: 1717)
        var parallelSuccesses = 0, errors = 0
        for trial in 0..<400 {
            let parts = Int.random(in: 2...5, using: &rng)
            let text = randomFile(&rng, count: Int.random(in: 1...60, using: &rng), parts: parts)
            let serial = read(text, parts: 1)
            let parallel = read(text, parts: parts)
            #expect(!serial.parallel)
            #expect(parallel.result == serial.result, "trial \(trial), \(parts) parts:\n\(text)")
            switch serial.result {
            case .success(let result):
                // A valid file of at least `parts` rows is really read in parts.
                if result.series.count >= parts { #expect(parallel.parallel, "trial \(trial)") }
                if parallel.parallel { parallelSuccesses += 1 }
            case .failure: errors += 1
            }
        }
        // The classes the property covers were all drawn (the counts depend only on the seed).
        #expect(parallelSuccesses > 50 && errors > 100, "\(parallelSuccesses) parallel reads, \(errors) errors")
    }

    @Test func aDuplicateTimestampExactlyAtTheSeamIsTheSerialError() throws {
        // Two rows, split into two parts of one row each: the only check across them is the seam's.
        let text = "timestamp,open,high,low,close,volume\n100,1,2,1,1,5\n100,1,2,1,1,5\n"
        let serial = read(text, parts: 1), parallel = read(text, parts: 2)
        guard case .failure(let error) = parallel.result else {
            Issue.record("the duplicate across the seam was not reported")
            return
        }
        #expect(parallel.result == serial.result)
        #expect(error.description.contains(":3:"), "\(error)")
    }

    @Test func largeFilesReadThroughThePublicReaderEqualTheSerialReader() throws {
        // Above the default part size the public reader takes the parallel path.
        var rng = SplitMix64(seed: 99)
        var text = "timestamp,open,high,low,close,volume"
        var t: Int64 = 1_600_000_000
        for _ in 0..<70_000 {
            let price = Double(Int.random(in: 100...100_000, using: &rng)) / 100
            text += "\n\(t),\(price),\(price + 1),\(price),\(price),\(Int.random(in: 0...99_999, using: &rng))"
            t += 60
        }
        #expect(text.utf8.count > 2 * OHLCVReader.defaultMinimumPartBytes)
        let viaPublic = try OHLCVReader.parse(text: text, symbol: "R")
        let serial = read(text, parts: 1)
        #expect(Result<ReadResult, CSVError>.success(viaPublic) == serial.result)
        #expect(viaPublic.series.count == 70_000)
    }
}
