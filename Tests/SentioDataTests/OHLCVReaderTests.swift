import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

@Suite("OHLCVReader")
struct OHLCVReaderTests {
    let good = """
        timestamp,open,high,low,close,volume
        2023-01-03,10,11,9,10.5,1000
        2023-01-04,10.5,12,10,11.5,2000
        2023-01-05,11.5,11.75,10.25,11,1500

        """

    func parse(_ text: String, lenient: Bool = false) throws(CSVError) -> ReadResult {
        try OHLCVReader.parse(text: text, file: "Data/T.csv", symbol: "T", options: ReadOptions(lenient: lenient))
    }

    /// Expects `text` to fail with an error whose message names the file, `line` and `field`.
    func expectFailure(
        _ text: String, line: Int, field: String?, contains fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try parse(text)
            Issue.record("expected an error", sourceLocation: sourceLocation)
        } catch {
            let message = error.description
            #expect(message.hasPrefix("Data/T.csv:\(line): "), "\(message)", sourceLocation: sourceLocation)
            if let field { #expect(message.contains("field '\(field)'"), "\(message)", sourceLocation: sourceLocation) }
            #expect(message.contains(fragment), "\(message)", sourceLocation: sourceLocation)
            #expect(error.line == line, sourceLocation: sourceLocation)
        }
    }

    @Test func readsTheBasicFormat() throws {
        let series = try parse(good).series
        #expect(series.symbol == "T")
        #expect(series.timestamps == [1_672_704_000, 1_672_790_400, 1_672_876_800])
        #expect(series.open == [10, 10.5, 11.5])
        #expect(series.high == [11, 12, 11.75])
        #expect(series.low == [9, 10, 10.25])
        #expect(series.close == [10.5, 11.5, 11])
        #expect(series.volume == [1000, 2000, 1500])
    }

    @Test func columnOrderCaseExtraColumnsAndAliases() throws {
        let reference = try parse(good).series
        let shuffled = """
            Volume,CLOSE,Extra,Low,High,Open,Date,Adj Close
            1000,10.5,x,9,11,10,2023-01-03,1
            2000,11.5,"a, quoted, cell",10,12,10.5,2023-01-04,2
            1500,11,,10.25,11.75,11.5,2023-01-05,3
            """
        #expect(try parse(shuffled).series == reference)
        for alias in ["datetime", "Time", "TIMESTAMP"] {
            let text = good.replacingOccurrences(of: "timestamp,", with: "\(alias),")
            #expect(try parse(text).series == reference, "\(alias)")
        }
    }

    @Test func unnamedFirstColumnAsPandasWritesIt() throws {
        let reference = try parse(good).series
        let text = good.replacingOccurrences(of: "timestamp,", with: ",")
        #expect(try parse(text).series == reference)
    }

    @Test func bomCrlfQuotesSpacesAndNoFinalNewline() throws {
        let reference = try parse(good).series
        let variant = "\u{FEFF}" + good.trimmingCharacters(in: .newlines)
            .replacingOccurrences(of: "\n", with: "\r\n")
            .replacingOccurrences(of: "10.5,", with: " \"10.5\" ,")
        #expect(try parse(variant).series == reference)
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(good.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let fromBytes = try bytes.withUnsafeBufferPointer { try OHLCVReader.parse($0, file: "b", symbol: "T", lenient: false) }
        #expect(fromBytes.series == reference)
    }

    @Test func everyTimestampFormInAFile() throws {
        let text = """
            datetime,open,high,low,close,volume
            2023-01-03,1,1,1,1,1
            2023-01-03 09:30,1,1,1,1,1
            2023-01-03 09:30:15,1,1,1,1,1
            2023-01-03T09:31:00Z,1,1,1,1,1
            2023-01-03T09:32:00+00:00,1,1,1,1,1
            2023-01-03T10:33:00+01:00,1,1,1,1,1
            1672738440,1,1,1,1,1
            """
        let base: Int64 = 1_672_704_000
        #expect(try parse(text).series.timestamps == [
            base, base + 34_200, base + 34_215, base + 34_260, base + 34_320, base + 34_380, base + 34_440,
        ])
    }

    // MARK: bad inputs, each naming line and field

    @Test func wrongColumnCount() {
        expectFailure(good.replacingOccurrences(of: "2023-01-04,10.5,12,10,11.5,2000", with: "2023-01-04,10.5,12,10,11.5"),
            line: 3, field: nil, contains: "row has 5 fields, the header has 6")
    }

    @Test func unparsableNumber() {
        expectFailure(good.replacingOccurrences(of: "11.75", with: "11.7.5"), line: 4, field: "high", contains: "'11.7.5' is not a number")
        expectFailure(good.replacingOccurrences(of: ",2000", with: ","), line: 3, field: "volume", contains: "'' is not a number")
    }

    @Test func unparsableDate() {
        expectFailure(good.replacingOccurrences(of: "2023-01-04", with: "2023-02-30"), line: 3, field: "timestamp",
            contains: "'2023-02-30' is not a valid timestamp")
        expectFailure(good.replacingOccurrences(of: "2023-01-04", with: "04/01/2023"), line: 3, field: "timestamp",
            contains: "is not a valid timestamp")
    }

    @Test func nanAndInfinity() {
        expectFailure(good.replacingOccurrences(of: "10.25", with: "NaN"), line: 4, field: "low", contains: "'NaN' is not a finite number")
        expectFailure(good.replacingOccurrences(of: ",1500", with: ",inf"), line: 4, field: "volume", contains: "not a finite number")
        expectFailure(good.replacingOccurrences(of: ",1500", with: ",1e999"), line: 4, field: "volume", contains: "not a finite number")
    }

    @Test func negativePrice() {
        expectFailure("""
            timestamp,open,high,low,close,volume
            2023-01-03,-1,11,-2,10.5,1000
            """, line: 2, field: "open", contains: "price -1.0 is not positive")
    }

    @Test func highBelowMaxOpenClose() {
        expectFailure(good.replacingOccurrences(of: "10.5,12,10,11.5", with: "10.5,11.2,10,11.5"), line: 3, field: "high",
            contains: "11.2 is below max(open, close) = 11.5")
    }

    @Test func lowAboveMinOpenClose() {
        expectFailure(good.replacingOccurrences(of: "10.5,12,10,11.5", with: "10.5,12,10.6,11.5"), line: 3, field: "low",
            contains: "10.6 is above min(open, close) = 10.5")
    }

    @Test func highBelowLow() {
        expectFailure(good.replacingOccurrences(of: "10,11,9,10.5", with: "10,9.5,10.5,10"), line: 2, field: "high",
            contains: "9.5 is below low = 10.5")
    }

    @Test func negativeVolume() {
        expectFailure(good.replacingOccurrences(of: ",2000", with: ",-5"), line: 3, field: "volume", contains: "volume -5.0 is negative")
    }

    @Test func duplicateAndDecreasingTimestamps() {
        expectFailure(good.replacingOccurrences(of: "2023-01-05", with: "2023-01-04"), line: 4, field: "timestamp",
            contains: "duplicate timestamp '2023-01-04' (same as line 3's '2023-01-04')")
        expectFailure(good.replacingOccurrences(of: "2023-01-05", with: "2023-01-02"), line: 4, field: "timestamp",
            contains: "is not after line 3")
    }

    @Test func emptyFileAndNoRows() {
        for text in ["", "\n\n", "\u{FEFF}"] {
            #expect(throws: CSVError.emptyFile(file: "Data/T.csv")) { try parse(text) }
        }
        #expect(CSVError.emptyFile(file: "Data/T.csv").description.contains("Data/T.csv:1: empty file"))
        #expect(throws: CSVError.noRows(file: "Data/T.csv", skipped: 0)) { try parse("timestamp,open,high,low,close,volume\n\n") }
    }

    @Test func missingRequiredColumn() {
        expectFailure("timestamp,open,high,close,volume\n2023-01-03,1,1,1,1\n", line: 1, field: "low", contains: "missing required column")
        expectFailure("open,high,low,close,volume\n1,1,1,1,1\n", line: 1, field: "timestamp", contains: "missing required column")
        // Two columns for one field: which holds the data cannot be guessed (before, the first silently won).
        expectFailure(
            "timestamp,open,high,low,close,volume,close\n2023-01-02,10,11,9,10.5,100,999\n", line: 1, field: "close",
            contains: "two columns give it ('close' in column 5 and 'close' in column 7); keep one")
        expectFailure(
            "date,timestamp,open,high,low,close,volume\n2023-01-02,2024-05-05,10,11,9,10.5,100\n", line: 1, field: "timestamp",
            contains: "two columns give it ('date' in column 1 and 'timestamp' in column 2)")
        expectFailure(
            "Date,Open,High,Low,Close,Volume,VOLUME\n2023-01-02,10,11,9,10.5,100,100\n", line: 1, field: "volume",
            contains: "'Volume' in column 6 and 'VOLUME' in column 7")
    }

    @Test func errorsLineNumbersCountBlankLines() {
        let text = "timestamp,open,high,low,close,volume\n\n2023-01-03,1,1,1,1,1\n\n2023-01-04,1,1,x,1,1\n"
        expectFailure(text, line: 5, field: "low", contains: "'x' is not a number")
    }

    // MARK: lenient mode

    @Test func lenientModeSkipsAndReportsEveryBadRow() throws {
        let text = """
            timestamp,open,high,low,close,volume
            2023-01-03,10,11,9,10.5,1000
            2023-01-04,10,9,9,10.5,1000
            2023-01-04,10,11,9,10.5,abc
            2023-01-05,10,11,9,10.5,1000
            2023-01-05,10,11,9,10.5,1000
            2023-01-06,10,11,9
            2023-01-09,10,11,9,10.5,1000
            """
        #expect(throws: CSVError.self) { try parse(text) }
        let result = try parse(text, lenient: true)
        #expect(result.series.count == 3)
        #expect(result.series.timestamps.map { CivilDate(epochSeconds: $0).description } == ["2023-01-03", "2023-01-05", "2023-01-09"])
        #expect(result.skippedCount == 4)
        #expect(result.skipped.map(\.line) == [3, 4, 6, 7])
        #expect(result.skipped[0].description.contains("Data/T.csv:3: field 'high'"))
        #expect(result.skipped[1].description.contains("Data/T.csv:4: field 'volume'"))
        #expect(result.skipped[2].description.contains("duplicate timestamp"))
        #expect(result.skipped[3].description.contains("row has 4 fields"))
    }

    @Test func lenientModeWithNoGoodRowIsAnError() {
        let text = "timestamp,open,high,low,close,volume\n2023-01-03,1,1,1,1,-1\n"
        #expect(throws: CSVError.noRows(file: "Data/T.csv", skipped: 1)) { try parse(text, lenient: true) }
    }

    // MARK: files and directories

    @Test func readsFilesAndDirectoriesSortedBySymbol() throws {
        let directory = try temporaryDirectory()
        for symbol in ["ZZZ", "AAA", "MMM"] {
            try good.write(toFile: directory.appendingPathComponent("\(symbol).csv").path, atomically: true, encoding: .utf8)
        }
        try "not csv".write(toFile: directory.appendingPathComponent("notes.txt").path, atomically: true, encoding: .utf8)
        let all = try OHLCVReader.readDirectory(directory.path)
        #expect(all.map(\.symbol) == ["AAA", "MMM", "ZZZ"])
        #expect(all.allSatisfy { $0.count == 3 })
        let one = try OHLCVReader.read(path: directory.appendingPathComponent("MMM.csv").path)
        #expect(one.symbol == "MMM")
        let listed = try OHLCVReader.readAll(paths: [directory.appendingPathComponent("ZZZ.csv").path, directory.path])
        #expect(listed.map(\.symbol) == ["ZZZ", "AAA", "MMM", "ZZZ"])

        let empty = try temporaryDirectory()
        #expect(throws: CSVError.noCSVFiles(directory: empty.path)) { try OHLCVReader.readDirectory(empty.path) }
        #expect(throws: CSVError.self) { try OHLCVReader.read(path: directory.appendingPathComponent("missing.csv").path) }
    }

    @Test func fileErrorsNameThePath() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("BAD.csv").path
        try good.replacingOccurrences(of: "11.75", with: "oops").write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try OHLCVReader.read(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "\(path):4: field 'high': 'oops' is not a number")
        }
    }

    // MARK: writer round trip

    @Test func writerRoundTripsExactly() throws {
        var rng = SplitMix64(seed: 5)
        var series = OHLCVSeries(symbol: "RT")
        var t: Int64 = 1_672_704_000 + 34_200
        for _ in 0..<2_000 {
            let open = Double.random(in: 1...500, using: &rng), close = Double.random(in: 1...500, using: &rng)
            let high = max(open, close) * (1 + Double.random(in: 0...0.01, using: &rng))
            let low = min(open, close) * (1 - Double.random(in: 0...0.01, using: &rng))
            series.append(timestamp: t, open: open, high: high, low: low, close: close,
                volume: Bool.random(using: &rng) ? Double(Int.random(in: 0...10_000_000, using: &rng)) : Double.random(in: 0...1e6, using: &rng))
            t += Int64.random(in: 1...100_000, using: &rng)
        }
        let path = try temporaryDirectory().appendingPathComponent("RT.csv").path
        try OHLCVWriter.write(series, to: path)
        let back = try OHLCVReader.read(path: path)
        #expect(back == series)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("timestamp,open,high,low,close,volume\n2023-01-03T09:30:00Z,"))
    }

    @Test func fixedDecimalsFormatting() {
        var writer = ByteWriter()
        for value in [0.0, 1.5, 12.34567, 0.00006, 99.99996, 123456.7] {
            writer.append(value, decimals: 4)
            writer.append(UInt8(ascii: " "))
        }
        writer.append(integer: -42)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "0.0000 1.5000 12.3457 0.0001 100.0000 123456.7000 -42")
    }

    @Test func atomicWriteLeavesNoTemporaryFiles() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("A.csv").path
        try OHLCVWriter.write(try parse(good).series, to: path)
        try OHLCVWriter.write(try parse(good).series, to: path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["A.csv"])
        #expect(throws: WriteError.self) {
            try OHLCVWriter.write(try parse(good).series, to: directory.appendingPathComponent("no/such/dir/A.csv").path)
        }
    }
}

@Suite("ByteWriter edge cases")
struct ByteWriterEdgeTests {
    @Test func nonFiniteAndHugeValuesFallBackToTheirDescription() {
        var writer = ByteWriter()
        writer.append(Double.nan, decimals: 4)
        writer.append(UInt8(ascii: " "))
        writer.append(1e300, decimals: 2)
        writer.append(UInt8(ascii: " "))
        writer.append(timestamp: -62_167_219_200 - 86_400, dateOnly: true)  // the day before 0000-01-01: no trap
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "nan 1e+300 -1-12-31")
    }
}
