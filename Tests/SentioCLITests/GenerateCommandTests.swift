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

    @Test(arguments: [
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
