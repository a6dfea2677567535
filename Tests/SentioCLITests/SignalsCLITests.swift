import Foundation
import SentioTestSupport
import Testing

@testable import Sentio
@testable import SentioCLI



private let sampleMarket = repositoryRoot.appendingPathComponent("Data/market").path

@Suite("sentio signals")
struct SignalsCLITests {
    @Test func latestSignalsForTheSampleMarket() throws {
        let run = try runSentio(["signals", sampleMarket])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let signals = try #require(object["signals"] as? [[String: Any]])
        let market = try OHLCVReader.readDirectory(sampleMarket)
        #expect(signals.map { $0["symbol"] as? String } == market.map(\.symbol))
        #expect(signals.count == 12)
        let latest = market.map { $0.timestamps.last! }.max()!
        #expect(object["timestamp"] as? String == iso8601(epochSeconds: latest))
        for (entry, series) in zip(signals, market) {
            #expect(entry.count == 16)
            #expect(["BUY", "SELL", "HOLD"].contains(entry["signalType"] as? String ?? ""))
            let price = try #require((entry["price"] as? NSNumber)?.doubleValue)
            #expect(price == series.close.last!)
            let expected = try SignalModel.evaluate(series).last!
            #expect(entry["id"] as? String == expected.id)
            #expect(entry["recommendation"] as? String == SignalText.recommendation(for: expected, config: SignalModelConfig()))
        }
        // The default input is Data/market.
        let implicit = try runSentio(["signals"])
        #expect(implicit.status == 0 && implicit.stdout == run.stdout)
    }

    @Test func outputIsDeterministicAndAtomic() throws {
        let directory = try temporaryDirectory()
        let a = directory.appendingPathComponent("a.json").path, b = directory.appendingPathComponent("b.json").path
        try SignalsCommand.parse([sampleMarket, "--history", "--output", a]).run()
        try SignalsCommand.parse([sampleMarket, "--history", "--output", b]).run()
        let first = try Data(contentsOf: URL(fileURLWithPath: a)), second = try Data(contentsOf: URL(fileURLWithPath: b))
        #expect(first == second && !first.isEmpty)
        // Only the two outputs are in the directory: no temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["a.json", "b.json"])
    }

    @Test func historyJSONRecordsConfigAndMarksWarmUp() throws {
        let path = try temporaryDirectory().appendingPathComponent("history.json").path
        let file = repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv").path
        try SignalsCommand.parse([file, "--history", "--window", "60", "--horizon", "3", "--output", path]).run()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var expectedConfig = SignalModelConfig()
        expectedConfig.regressionWindow = 60
        expectedConfig.horizon = 3
        let config = try JSONDecoder().decode(SignalModelConfig.self, from: JSONSerialization.data(withJSONObject: object["config"]!))
        #expect(config == expectedConfig)
        let entries = try #require(object["signals"] as? [[String: Any]])
        let series = try OHLCVReader.read(path: file)
        #expect(entries.count == series.count)
        let warm = entries.prefix { ($0["warmUp"] as? Bool) == true }.count
        #expect(warm == expectedConfig.firstSignalIndex)
        #expect(entries[warm...].allSatisfy { ($0["warmUp"] as? Bool) == false })
        #expect(entries[..<warm].allSatisfy { ($0["signalType"] as? String) == "HOLD" && ($0["confidence"] as? NSNumber)?.doubleValue == 0 })
    }

    @Test func historyCSVAndConfigFile() throws {
        let directory = try temporaryDirectory()
        let configPath = directory.appendingPathComponent("model.json").path
        try Data(#"{"horizon": 2, "buyScoreThreshold": 0.5}"#.utf8).write(to: URL(fileURLWithPath: configPath))
        let out = directory.appendingPathComponent("history.csv").path
        let file = repositoryRoot.appendingPathComponent("Data/market/SOXL.csv").path
        try SignalsCommand.parse([file, "--history", "--format", "csv", "--config", configPath, "--sell-threshold", "2", "--output", out]).run()
        let text = try String(contentsOfFile: out, encoding: .utf8)
        var config = SignalModelConfig()
        config.horizon = 2
        config.buyScoreThreshold = 0.5
        config.sellScoreThreshold = 2
        let expected = SignalEncoding.historyCSV([try SignalModel.evaluate(try OHLCVReader.read(path: file), config: config)])
        #expect(text == expected)
    }

    @Test(arguments: [
        (["signals", "no/such/dir"], "no/such/dir"),
        (["signals", "Data/market", "--window", "5"], "'regressionWindow' is 5"),
        (["signals", "Data/market", "--rsi-oversold", "90"], "'rsiOversold'"),
        (["signals", "Data/market", "--format", "xml"], "xml"),
        (["signals", "Data/market", "--config", "no-such-config.json"], "no-such-config.json"),
        (["signals", "Data/market/TQQQ.csv", "Data/market/TQQQ.csv"], "TQQQ appears in more than one input"),
        (["bench", "rsi", "--size", "0"], "--size must be at least 1"),
        (["bench", "nope"], "unknown workload 'nope'"),
        (["bench", "signals", "--symbols", "13"], "--symbols"),
    ])
    func badInputExitsWith2(arguments: [String], message: String) throws {
        let run = try runSentio(arguments)
        #expect(run.status == 2, "\(arguments): status \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func badCSVRowNamesFileLineAndField() throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("BAD.csv").path
        try Data("timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,100\n2024-01-03,1,2,0.5,abc,100\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try runSentio(["signals", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("BAD.csv") && run.stderr.contains("3") && run.stderr.contains("close"), "\(run.stderr)")
    }

    @Test func zeroPriceNamesFileBarAndField() throws {
        // One rule for zero prices in every command (issue 11): the CSV reader rejects them, naming file and line.
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("ZERO.csv").path
        try Data("timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,100\n2024-01-03,0,0,0,0,100\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try runSentio(["signals", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("ZERO.csv:3: field 'open': price 0.0 is not positive"), "\(run.stderr)")
    }

    @Test func badConfigFileNamesFileAndKey() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("model.json").path
        try Data(#"{"horizon": 3, "windw": 10}"#.utf8).write(to: URL(fileURLWithPath: path))
        let run = try runSentio(["signals", "Data/market", "--config", path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("model.json") && run.stderr.contains("unknown parameter 'windw'"), "\(run.stderr)")
        try Data(#"{"horizon": "3"}"#.utf8).write(to: URL(fileURLWithPath: path))
        let typed = try runSentio(["signals", "Data/market", "--config", path])
        #expect(typed.status == 2 && typed.stderr.contains("key 'horizon'"), "\(typed.stderr)")
    }
}

@Suite("sentio bench signals")
struct BenchSignalsCLITests {
    @Test func jsonReportHasExactlyTheDocumentedKeys() throws {
        let run = try runSentio(["bench", "signals", "--symbols", "2", "--bars", "400", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == [
            "symbols", "bars", "updates", "p50Nanoseconds", "p90Nanoseconds", "p99Nanoseconds", "p999Nanoseconds",
            "maxNanoseconds", "updatesPerSecond", "allocationsPerUpdate",
        ])
        #expect(object["symbols"] as? Int == 2 && object["bars"] as? Int == 400)
        let warm = SignalModelConfig().firstSignalIndex + 1 + SignalModelConfig().regressionWindow
        #expect(object["updates"] as? Int == 2 * (400 - warm))
        let p50 = try #require(object["p50Nanoseconds"] as? Double), p99 = try #require(object["p99Nanoseconds"] as? Double)
        let maximum = try #require(object["maxNanoseconds"] as? Double)
        #expect(p50 > 0 && p50 <= p99 && p99 <= maximum)
        // Allocation counting needs glibc's malloc debug library; where it exists the count must be a number.
        if MallocCounter.debugLibrary != nil {
            #expect(object["allocationsPerUpdate"] is NSNumber, "\(run.stdout)")
        }
    }

    @Test func mallocHooksAreLiveInTheCountingChild() throws {
        // The child allocates a probe array with the hooks installed and reports "unavailable" unless it was
        // counted; so a printed count means the hooks were live while the updates ran.
        guard MallocCounter.debugLibrary != nil else { return }
        let run = try runSentio(["bench", "signals", "--symbols", "1", "--bars", "300"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("malloc-family calls in"), "\(run.stdout)")
    }
}
