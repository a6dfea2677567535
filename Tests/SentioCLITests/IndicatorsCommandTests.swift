import Foundation
import SentioTestSupport
import Testing

@testable import Sentio
@testable import SentioCLI

@Suite("sentio indicators")
struct IndicatorsCommandTests {
    let sample = repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv").path

    /// Parses the command's CSV back and compares every cell with the batch indicator functions.
    @Test func csvMatchesBatchIndicatorsCellByCell() throws {
        let out = try temporaryDirectory().appendingPathComponent("tqqq.csv").path
        try IndicatorsCommand.parse([sample, "--rsi-period", "10", "--ma-period", "5", "--output", out]).run()
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema")
        let bars = try OHLCVReader.read(path: sample)
        #expect(lines.count == bars.count + 1)
        let expected: [IndicatorSeries] = [
            relativeStrengthIndex(bars.close, period: 10), try volumeRatio(bars.volume, window: 20),
            try averageTrueRange(bars, period: 14), try simpleMovingAverage(bars.close, period: 5),
            exponentialMovingAverage(bars.close, period: 5),
        ]
        for (i, line) in lines.dropFirst().enumerated() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(cells.count == 11)
            #expect(String(cells[0]) == iso8601(epochSeconds: bars.timestamps[i]))
            #expect(Double(cells[4]) == bars.close[i])
            for (j, series) in expected.enumerated() {
                let cell = cells[6 + j]
                if let value = series.value(at: i) {
                    // Round-trip formatting: the text reads back to the identical double.
                    #expect(Double(cell) == value, "line \(i + 2) column \(6 + j)")
                } else {
                    #expect(cell.isEmpty, "line \(i + 2) column \(6 + j) should be empty before the lookback")
                }
            }
        }
    }

    @Test func jsonHasNullsBeforeTheLookbackAndParses() throws {
        let out = try temporaryDirectory().appendingPathComponent("tqqq.json").path
        try IndicatorsCommand.parse([sample, "--format", "json", "--output", out]).run()
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as! [String: Any]
        #expect(object["symbol"] as? String == "TQQQ")
        let rows = object["bars"] as! [[String: Any]]
        #expect(rows.count == 504)
        #expect(rows[13]["rsi"] is NSNull)
        #expect(rows[14]["rsi"] is NSNumber)
        #expect((object["firstValidIndex"] as! [String: Int])["volume_ratio"] == 19)
    }

    @Test func badRowNamesFileLineAndFieldAndWritesNothing() throws {
        let dir = try temporaryDirectory()
        let input = dir.appendingPathComponent("BAD.csv").path
        try "timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10.5,100\n2024-01-03,10,9.5,9,10.5,100\n"
            .write(toFile: input, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.csv").path
        do {
            try IndicatorsCommand.parse([input, "--output", out]).run()
            Issue.record("expected an error")
        } catch let error as CSVError {
            #expect(error.description.contains("BAD.csv:3"))
            #expect(error.description.contains("'high'"))
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        // Lenient mode skips the row and still writes.
        try IndicatorsCommand.parse([input, "--output", out, "--lenient"]).run()
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test func nonPositivePeriodsAreRejected() {
        #expect(throws: (any Error).self) { try IndicatorsCommand.parse([sample, "--atr-period", "0"]) }
        #expect(throws: (any Error).self) { try IndicatorsCommand.parse([sample, "--format", "xml"]) }
    }
}
