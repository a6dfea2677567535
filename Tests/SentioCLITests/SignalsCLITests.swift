import Foundation
import SentioTestSupport
import Testing

@testable import Sentio
@testable import SentioCLI
@testable import SentioDevTools



private let sampleMarket = repositoryRoot.appendingPathComponent("Data/market").path

@Suite("sentio signals")
struct SignalsCLITests {
    @Test func latestSignalsForTheSampleMarket() async throws {
        let run = try await runSentio(["signals", sampleMarket])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let signals = try #require(object["signals"] as? [[String: Any]])
        let market = try OHLCVReader.readDirectory(sampleMarket)
        #expect(signals.map { $0["symbol"] as? String } == market.map(\.symbol))
        #expect(signals.count == 12)
        let latest = market.map { $0.timestamps.last! }.max()!
        #expect(object["timestamp"] as? String == iso8601(epochSeconds: latest))
        // Every symbol of the sample market is past its warm-up.
        #expect((object["warmingUp"] as? [Any])?.isEmpty == true)
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
        let implicit = try await runSentio(["signals"])
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

    @Test func historyJSONRecordsConfigAndLeavesOutWarmUp() throws {
        // Deliberate change (issue 12): the history is SentioAPI's SignalHistory; warm-up bars have no signal and
        // are not listed (they were objects with "warmUp": true and null numbers).
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
        #expect(entries.count == series.count - expectedConfig.firstSignalIndex)
        let expected = try SignalModel.evaluate(series, config: expectedConfig)
        #expect(entries.map { $0["id"] as? String } == expected[expectedConfig.firstSignalIndex...].map(\.id))
        #expect((object["warmingUp"] as? [Any])?.isEmpty == true)
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
        let signals = try SignalModel.evaluate(try OHLCVReader.read(path: file), config: config)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The columns are the Signal contract's fields, in its order, then the outcome; one row per signal past the warm-up.
        #expect(lines.first == "id,symbol,timestamp,price,change,changePercent,signalType,confidence,targetReturn,stopLoss,profitTarget,aiSignal,rsi,volumeRatio,recommendation,reasoning,horizonBars,realizedReturn,right")
        #expect(lines.count == 1 + signals.count - config.firstSignalIndex + 1 && lines.last == "")
        for (line, signal) in zip(lines.dropFirst(), signals[config.firstSignalIndex...]) {
            let cells = line.split(separator: ",", maxSplits: 14, omittingEmptySubsequences: false).map(String.init)
            #expect(cells[0] == signal.id && cells[1] == "SOXL" && cells[2] == iso8601(epochSeconds: signal.timestamp))
            #expect(Double(cells[3]) == signal.price && Double(cells[7]) == signal.confidence && Double(cells[11]) == signal.aiSignal)
            #expect(cells[6] == signal.signalType.rawValue)
        }
    }

    /// The warm-up rule of the model: the first signal is at bar index `firstSignalIndex` =
    /// featureLookback + horizon + regressionWindow − 1, so n bars leave `firstSignalIndex + 1 − n` to go.
    @Test(arguments: [1, 2, 37, 144])
    func warmingUpSymbolsListBarsRemaining(bars: Int) async throws {
        let directory = try temporaryDirectory()
        let source = try OHLCVReader.read(path: repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv").path)
        let short = directory.appendingPathComponent("SHORT.csv")
        try OHLCVWriter.write(source.prefix(bars), to: short.path)
        let run = try await runSentio(["signals", sampleMarket + "/SQQQ.csv", short.path])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let warming = try #require(object["warmingUp"] as? [[String: Any]])
        let config = SignalModelConfig()
        let needed = config.featureLookback + config.horizon + config.regressionWindow
        #expect(needed == config.firstSignalIndex + 1)
        #expect(warming.count == 1)
        #expect(warming.first?["symbol"] as? String == "SHORT")
        #expect(warming.first?["barsRemaining"] as? Int == needed - bars)
        #expect((object["signals"] as? [[String: Any]])?.map { $0["symbol"] as? String } == ["SQQQ"])
        // With one bar more than needed minus one, the symbol has its first signal.
        if bars == needed - 1 {
            let full = directory.appendingPathComponent("FULL.csv")
            try OHLCVWriter.write(source.prefix(needed), to: full.path)
            let ready = try await runSentio(["signals", full.path])
            #expect(ready.stdout.contains(#""warmingUp": []"#), "\(ready.stdout)")
        }
    }

    @Test func detailOfAShippedAndAnUnnamedSymbol() async throws {
        let run = try await runSentio(["signals", sampleMarket, "--detail", "sqqq", "--last", "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["symbol"] as? String == "SQQQ" && object["name"] as? String == "Nasdaq 3x Bear")
        let series = try OHLCVReader.read(path: sampleMarket + "/SQQQ.csv")
        let bars = try #require(object["historicalData"] as? [[String: Any]])
        #expect(bars.count == 3)
        #expect(bars.last?["timestamp"] as? String == iso8601(epochSeconds: series.timestamps.last!))
        #expect((object["price"] as? NSNumber)?.doubleValue == series.close.last!)
        // A symbol with no stored, metadata or built-in name is named by its symbol.
        let directory = try temporaryDirectory()
        let other = directory.appendingPathComponent("ZZZ.csv")
        try OHLCVWriter.write(series, to: other.path)
        let unnamed = try await runSentio(["signals", other.path, "--detail", "ZZZ", "--last", "1"])
        #expect(unnamed.status == 0 && unnamed.stdout.contains(#""name": "ZZZ""#), "\(unnamed.stderr)")
        // A metadata file names it.
        let metadata = directory.appendingPathComponent("names.csv")
        try Data("name,symbol\n\"Zed, Inc.\",ZZZ\n".utf8).write(to: metadata)
        let named = try await runSentio(["signals", other.path, "--detail", "ZZZ", "--last", "1", "--metadata", metadata.path])
        #expect(named.status == 0 && named.stdout.contains(#""name": "Zed, Inc.""#), "\(named.stderr)")
        // Still warming up: no detail, exit 2.
        let short = directory.appendingPathComponent("TQQQ.csv")
        try OHLCVWriter.write(series.prefix(10), to: short.path)
        let warming = try await runSentio(["signals", short.path, "--detail", "TQQQ"])
        #expect(warming.status == 2 && warming.stderr.contains("warming up"), "\(warming.stderr)")
    }

    @Test func instrumentNamesAreStoredOnImportAndOverridable() async throws {
        let directory = try temporaryDirectory()
        let db = directory.appendingPathComponent("s.sqlite").path
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for symbol in ["TQQQ", "SOXL"] {
            try FileManager.default.copyItem(atPath: sampleMarket + "/\(symbol).csv", toPath: data.appendingPathComponent("\(symbol).csv").path)
        }
        try FileManager.default.copyItem(atPath: sampleMarket + "/TNA.csv", toPath: data.appendingPathComponent("ABC.csv").path)
        let metadata = directory.appendingPathComponent("names.csv")
        try Data("symbol,name\nSOXL,My Chips\nABC, Alphabet Soup \n".utf8).write(to: metadata)
        let imported = try await runSentio(["import", data.path, "--db", db, "--metadata", metadata.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = try SentioDatabase(path: db, mode: .readOnly)
        let names = Dictionary(uniqueKeysWithValues: try store.instruments().map { ($0.symbol, $0.name) })
        #expect(names == ["ABC": "Alphabet Soup", "SOXL": "My Chips", "TQQQ": "Nasdaq 3x Bull"])
        for (symbol, name) in [("TQQQ", "Nasdaq 3x Bull"), ("SOXL", "My Chips"), ("ABC", "Alphabet Soup")] {
            let run = try await runSentio(["signals", "--db", db, "--detail", symbol, "--last", "1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"name\": \"\(name)\""), "\(symbol): \(run.stdout.prefix(200))")
        }
        // Re-importing without metadata keeps the override (built-in names fill only missing ones).
        _ = try await runSentio(["import", data.path, "--db", db])
        #expect(try store.instruments().first { $0.symbol == "SOXL" }?.name == "My Chips")
        // A bad metadata file: file, line and field named, exit 2, nothing imported.
        let bad = directory.appendingPathComponent("bad.csv")
        try Data("symbol,name\nAAA,One\naaa,Two\n".utf8).write(to: bad)
        let other = directory.appendingPathComponent("other.sqlite").path
        let failed = try await runSentio(["import", data.path, "--db", other, "--metadata", bad.path])
        #expect(failed.status == 2 && failed.stderr.contains("bad.csv:3: field 'symbol'"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other))
        try Data("symbol,title\nAAA,One\n".utf8).write(to: bad)
        let column = try await runSentio(["import", data.path, "--db", other, "--metadata", bad.path])
        #expect(column.status == 2 && column.stderr.contains("bad.csv:1: field 'title'"), "\(column.stderr)")
    }

    @Test func helpListsNoTestOrBenchmarkHelper() async throws {
        let help = try await runSentio(["--help"])
        #expect(help.status == 0)
        for helper in ["write-synthetic", "allocations", "malloc", "sentio-dev"] {
            #expect(!help.stdout.contains(helper), "sentio --help lists \(helper)")
        }
        // Hidden subcommands or options count as listed: `sentio` has none (ArgumentParser's own `help` aside).
        let dump = try await runSentio(["--experimental-dump-help"])
        let root = try #require((try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])?["command"] as? [String: Any])
        var hidden: [String] = [], commands = 0
        func walk(_ command: [String: Any], _ path: String) {
            commands += 1
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool == false {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if !names.contains("help") { hidden.append("\(path) \(names)") }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                let name = sub["commandName"] as? String ?? "?"
                if sub["shouldDisplay"] as? Bool == false { hidden.append("\(path) \(name)") }
                walk(sub, "\(path) \(name)")
            }
        }
        walk(root, "sentio")
        #expect(commands > 10 && hidden.isEmpty, "hidden: \(hidden)")
        // The helpers are not reachable through `sentio` at all.
        #expect(try await runSentio(["runs", "write-synthetic", "--db", "x.sqlite"]).status == 2)
        let runs = try await runSentio(["runs", "--help"])
        #expect(!runs.stdout.contains("write-synthetic"))
        // They live in sentio-dev.
        let dev = try await runSentioDev(["--help"])
        #expect(dev.status == 0 && dev.stdout.contains("write-synthetic") && dev.stdout.contains("allocations"), "\(dev.stdout)")
        let negative = try await runSentioDev(["write-synthetic", "--db", "x.sqlite", "--count=-5"])
        #expect(negative.status == 2 && negative.stderr.contains("must"), "\(negative.stderr)")
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
        (["bench", "signals", "--count", "13"], "--count must be in 1...12"),
        (["bench", "signals", "--symbols", "2"], "--symbols"),
        (["signals", "Data/market", "--detail", "TQQQ", "--format", "csv"], "--detail writes JSON only"),
        (["signals", "Data/market", "--detail", "NOPE"], "unknown symbol NOPE in --detail"),
        (["signals", "Data/market", "--last", "3"], "--last applies to --detail only"),
        (["signals", "Data/market", "--format", "table"], "--format table is not available here"),
    ])
    func badInputExitsWith2(arguments: [String], message: String) async throws {
        let run = try await runSentio(arguments)
        #expect(run.status == 2, "\(arguments): status \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func badCSVRowNamesFileLineAndField() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("BAD.csv").path
        try Data("timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,100\n2024-01-03,1,2,0.5,abc,100\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try await runSentio(["signals", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("BAD.csv") && run.stderr.contains("3") && run.stderr.contains("close"), "\(run.stderr)")
    }

    @Test func zeroPriceNamesFileBarAndField() async throws {
        // One rule for zero prices in every command (issue 11): the CSV reader rejects them, naming file and line.
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("ZERO.csv").path
        try Data("timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,100\n2024-01-03,0,0,0,0,100\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try await runSentio(["signals", file])
        #expect(run.status == 2)
        #expect(run.stderr.contains("ZERO.csv:3: field 'open': price 0.0 is not positive"), "\(run.stderr)")
    }

    @Test func badConfigFileNamesFileAndKey() async throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("model.json").path
        try Data(#"{"horizon": 3, "windw": 10}"#.utf8).write(to: URL(fileURLWithPath: path))
        let run = try await runSentio(["signals", "Data/market", "--config", path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("model.json") && run.stderr.contains("unknown parameter 'windw'"), "\(run.stderr)")
        try Data(#"{"horizon": "3"}"#.utf8).write(to: URL(fileURLWithPath: path))
        let typed = try await runSentio(["signals", "Data/market", "--config", path])
        #expect(typed.status == 2 && typed.stderr.contains("key 'horizon'"), "\(typed.stderr)")
    }
}

@Suite("sentio bench signals")
struct BenchSignalsCLITests {
    @Test func jsonReportHasExactlyTheDocumentedKeys() async throws {
        // Deliberate change (issue 12): --count replaces the integer --symbols; allocations are counted by
        // sentio-dev, so allocationsPerUpdate left this report.
        let run = try await runSentio(["bench", "signals", "--count", "2", "--bars", "400", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == [
            "symbols", "bars", "updates", "p50Nanoseconds", "p90Nanoseconds", "p99Nanoseconds", "p999Nanoseconds",
            "maxNanoseconds", "updatesPerSecond",
        ])
        #expect(object["symbols"] as? Int == 2 && object["bars"] as? Int == 400)
        let warm = SignalModelConfig().firstSignalIndex + 1 + SignalModelConfig().regressionWindow
        #expect(object["updates"] as? Int == 2 * (400 - warm))
        let p50 = try #require(object["p50Nanoseconds"] as? Double), p99 = try #require(object["p99Nanoseconds"] as? Double)
        let maximum = try #require(object["maxNanoseconds"] as? Double)
        #expect(p50 > 0 && p50 <= p99 && p99 <= maximum)
    }

    @Test func mallocHooksAreLiveInTheCountingChild() async throws {
        // The child allocates a probe array with the hooks installed and reports "unavailable" unless it was
        // counted; so a printed count means the hooks were live while the updates ran.
        guard MallocCounter.debugLibrary != nil else { return }
        let run = try await runSentioDev(["allocations", "--count", "1", "--bars", "300", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let warm = SignalModelConfig().firstSignalIndex + 1 + SignalModelConfig().regressionWindow
        #expect(object["updates"] as? Int == 300 - warm)
        #expect(object["allocations"] is Int && object["allocationsPerUpdate"] is NSNumber, "\(run.stdout)")
    }
}
