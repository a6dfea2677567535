import SentioCore
import Testing

@testable import SentioData

/// Cells are scanned 8 bytes at a time, reading past the line's end while the buffer lasts; near the end of
/// the buffer (the end of the mapped file) the reader must fall back to bytes and still split correctly.
@Suite("OHLCVReader at the end of the buffer")
struct OHLCVReaderBufferEndTests {
    @Test("last cells of every length up to 12 bytes, with and without a final newline, LF or CRLF, padded")
    func shortLastCells() throws {
        for digits in 1...12 {
            let volume = String(repeating: "7", count: digits)
            for ending in ["", "\n", "\r\n", " ", " \n", ",\n"] {
                let extraColumn = ending == ",\n"
                let header = "timestamp,open,high,low,close,volume" + (extraColumn ? ",note" : "")
                let text = header + "\n2023-01-03,1.5,2,1,1.75,\(volume)" + ending
                let result = try OHLCVReader.parse(text: text, file: "T.csv", symbol: "T")
                #expect(result.series.count == 1, "\(digits) \(ending.debugDescription)")
                #expect(result.series.volume == [Double(volume)!], "\(digits) \(ending.debugDescription)")
                #expect(result.series.close == [1.75])
            }
        }
    }

    @Test("a comma just past the line's end is not taken for a cell boundary")
    func commaAfterLineEnd() throws {
        // Epoch-second timestamps 1, 2, 3: the 8 bytes from each volume cell reach the next line's commas.
        let text = "timestamp,open,high,low,close,volume\n1,1,1,1,1,5\n2,2,2,2,2,6\n3,3,3,3,3,7"
        let series = try OHLCVReader.parse(text: text, file: "T.csv", symbol: "T").series
        #expect(series.volume == [5, 6, 7])
        #expect(series.open == [1, 2, 3])
        #expect(series.timestamps == [1, 2, 3])
        // A line with a missing cell is still reported as such, although a comma follows in the buffer.
        #expect(throws: CSVError.wrongColumnCount(file: "T.csv", line: 2, expected: 6, found: 5)) {
            try OHLCVReader.parse(text: "timestamp,open,high,low,close,volume\n1,1,1,1,1\n2,2,2,2,2,6", file: "T.csv")
        }
    }
}
