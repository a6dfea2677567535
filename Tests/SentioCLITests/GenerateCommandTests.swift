import Foundation
import SentioTestSupport
import Testing

@testable import SentioCLI
@testable import Sentio

@Suite("sentio generate")
struct GenerateCommandTests {
    @Test func writesTheRequestedSymbolsAndBars() throws {
        let out = try temporaryDirectory().path
        let command = try GenerateCommand.parse(["--symbols", "TQQQ, sqqq", "--bars", "7", "--freq", "minute", "--seed", "3", "--out", out])
        try command.run()
        let series = try OHLCVReader.readDirectory(out)
        #expect(series.map(\.symbol) == ["SQQQ", "TQQQ"])
        #expect(series.allSatisfy { $0.count == 7 })
        #expect(iso8601(epochSeconds: series[0].timestamps[0]) == "2023-01-02T09:30:00Z")
    }

    @Test func countTakesTheFirstSymbolsOfTheUniverse() throws {
        let out = try temporaryDirectory().path
        let command = try GenerateCommand.parse(["--symbols", "3", "--bars", "2", "--out", out])
        try command.run()
        #expect(try OHLCVReader.readDirectory(out).map(\.symbol) == ["SOXL", "SQQQ", "TQQQ"])
    }

    /// `--format ndjson`: one feed of the same bars as the CSV files, in timeline order (timestamp, then the order of
    /// --symbols), each line a strict NDJSON bar.
    @Test func ndjsonIsTheCSVBarsInTimelineOrder() throws {
        let dir = try temporaryDirectory()
        try GenerateCommand.parse(["--symbols", "SQQQ,TQQQ,SOXL", "--bars", "25", "--freq", "minute", "--seed", "8", "--out", dir.path]).run()
        let feed = dir.appendingPathComponent("feed.ndjson").path
        try GenerateCommand.parse(["--symbols", "SQQQ,TQQQ,SOXL", "--bars", "25", "--freq", "minute", "--seed", "8", "--format", "ndjson", "--out", feed]).run()
        let csv = try OHLCVReader.readDirectory(dir.path)
        let lines = try String(contentsOfFile: feed, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 75)
        for (k, line) in lines.enumerated() {
            let bar = try NDJSONBars.decode(line: String(line), number: k + 1)!.get()
            #expect(bar.symbol == ["SQQQ", "TQQQ", "SOXL"][k % 3])
            let source = csv.first { $0.symbol == bar.symbol }!
            #expect(source[bar: k / 3] == bar.bar)
        }
    }

    @Test(arguments: [
        ["--format", "table"],
        ["--format", "json", "--out", "x"],
        ["--bars", "0", "--out", "x"],
        ["--symbols", "13", "--out", "x"],
        ["--symbols", "SPY", "--out", "x"],
        ["--symbols", "TQQQ,TQQQ", "--out", "x"],
        ["--start", "2023-02-30", "--out", "x"],
        ["--freq", "hourly", "--out", "x"],
        ["--bars", "10"],
    ])
    func badOptionsAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try GenerateCommand.parse(arguments) }
        do {
            _ = try GenerateCommand.parse(arguments)
        } catch {
            #expect(GenerateCommand.exitCode(for: error) == .validationFailure, "\(arguments)")
        }
    }
}
