import Foundation
import Sentio
import SentioApplication
import SentioTestSupport
import Testing
@testable import SentioCLI

// End-to-end tests of the store wiring of `sentio backtest`, `sentio signals` and `sentio fund` (`--db` as the data
// source, `--save`, `--from`/`--to`), through the built `sentio` executable on temporary databases. Each equivalence
// is checked against the CSV path, which has its own reference tests.

@Suite("store wiring: backtest, signals and fund with --db")
struct StoreWiringTests {
    typealias Run = BacktestCLITests.Run

    /// Runs `sentio arguments...` from the repository root (so `Data/...` paths resolve).
    static func sentio(_ arguments: [String]) async throws -> Run {
        try await BacktestCLITests.sentioCommand(arguments, in: repositoryRoot)
    }

    /// A fresh temporary directory and a store path inside it (the file does not exist yet).
    static func scratch() throws -> (directory: URL, database: String) {
        let directory = try temporaryDirectory("sentio-store-wiring")
        return (directory, directory.appendingPathComponent("store.sqlite").path)
    }

    /// A store holding the bundled sample market, imported with `sentio import`.
    static func importedSampleMarket() async throws -> (directory: URL, database: String) {
        let (directory, database) = try scratch()
        let run = try await sentio(["import", "Data/market", "--db", database])
        #expect(run.status == 0, "\(run.stderr)")
        return (directory, database)
    }

    /// The statistics of a `--format json` run without `config` (which names the data source).
    static func statistics(_ run: Run) throws -> [String: Any] {
        var object = try BacktestCLITests.json(run.stdout)
        object["config"] = nil
        return object
    }

    static func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    // MARK: - backtest

    @Test("backtest --db on imported bars equals backtest on the CSV files: statistics, trades and equity curve")
    func backtestFromStoreEqualsCSV() async throws {
        let (dir, db) = try await Self.importedSampleMarket()
        for strategy in ["rsi", "buy-and-hold"] {
            let csvTrades = dir.appendingPathComponent("csv-trades-\(strategy).csv")
            let csvEquity = dir.appendingPathComponent("csv-equity-\(strategy).csv")
            let dbTrades = dir.appendingPathComponent("db-trades-\(strategy).csv")
            let dbEquity = dir.appendingPathComponent("db-equity-\(strategy).csv")
            let fromCSV = try await Self.sentio([
                "backtest", "Data/market", "--strategy", strategy, "--format", "json",
                "--trades", csvTrades.path, "--equity", csvEquity.path,
            ])
            let fromStore = try await Self.sentio([
                "backtest", "--db", db, "--strategy", strategy, "--format", "json",
                "--trades", dbTrades.path, "--equity", dbEquity.path,
            ])
            #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
            #expect(fromStore.status == 0, "\(fromStore.stderr)")
            let a = try Self.statistics(fromCSV), b = try Self.statistics(fromStore)
            #expect(a["finalEquity"] as? Double == b["finalEquity"] as? Double)
            #expect(a["tradeCount"] as? Int == b["tradeCount"] as? Int)
            #expect((a["symbols"] as? [String])?.count == 12 && a["symbols"] as? [String] == b["symbols"] as? [String])
            #expect(NSDictionary(dictionary: a).isEqual(to: b), "statistics differ for \(strategy)")
            #expect(try Self.text(csvTrades) == Self.text(dbTrades))
            #expect(try Self.text(csvEquity) == Self.text(dbEquity))
            let config = try #require(try BacktestCLITests.json(fromStore.stdout)["config"] as? [String: Any])
            #expect(config["database"] as? String == db && (config["paths"] as? [Any])?.isEmpty == true)
        }
        // The rsi run trades on this data, so the trade comparison above compared something.
        #expect(try Self.text(dir.appendingPathComponent("db-trades-rsi.csv")).split(separator: "\n").count > 1)
    }

    @Test("--symbols, --from and --to select the same bars from CSV and from the store; the range is inclusive")
    func rangeFilteringMatchesCSV() async throws {
        let (dir, db) = try await Self.importedSampleMarket()
        let selection = ["--symbols", "tqqq,SQQQ", "--from", "2023-03-01", "--to", "2024-06-28"]
        let csvEquity = dir.appendingPathComponent("csv-equity.csv"), dbEquity = dir.appendingPathComponent("db-equity.csv")
        let fromCSV = try await Self.sentio(["backtest", "Data/market", "--format", "json", "--equity", csvEquity.path] + selection)
        let fromStore = try await Self.sentio(["backtest", "--db", db, "--format", "json", "--equity", dbEquity.path] + selection)
        #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
        #expect(fromStore.status == 0, "\(fromStore.stderr)")
        let a = try Self.statistics(fromCSV), b = try Self.statistics(fromStore)
        #expect(NSDictionary(dictionary: a).isEqual(to: b))
        #expect(try Self.text(csvEquity) == Self.text(dbEquity))
        #expect(a["symbols"] as? [String] == ["TQQQ", "SQQQ"])
        // Independently of the code under test: the dates of TQQQ.csv inside the range, both ends included.
        let dates = try Self.text(repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv"))
            .split(separator: "\n").dropFirst().map { String($0.prefix(10)) }
            .filter { $0 >= "2023-03-01" && $0 <= "2024-06-28" }
        #expect(dates.first == "2023-03-01" && dates.last == "2024-06-28")
        #expect(a["bars"] as? Int == dates.count)
        #expect(a["start"] as? String == "2023-03-01T00:00:00Z" && a["end"] as? String == "2024-06-28T00:00:00Z")
        let config = try #require(try BacktestCLITests.json(fromStore.stdout)["config"] as? [String: Any])
        #expect(config["from"] as? String == "2023-03-01T00:00:00Z" && config["to"] as? String == "2024-06-28T23:59:59Z")
    }

    @Test("--to DATE includes the whole day; an ISO-8601 timestamp bound is exact (intraday bars, CSV and store)")
    func intradayBounds() async throws {
        let (dir, db) = try Self.scratch()
        // Hourly bars over three days: 2023-01-02 00:00 .. 2023-01-04 23:00 UTC.
        var csv = "timestamp,open,high,low,close,volume\n"
        for hour in 0..<72 {
            let t = 1_672_617_600 + Int64(hour) * 3_600
            let price = 100 + Double(hour % 7)
            csv += "\(t),\(price),\(price + 1),\(price - 1),\(price + 0.5),1000\n"
        }
        let file = dir.appendingPathComponent("HOURLY.csv")
        try csv.write(to: file, atomically: true, encoding: .utf8)
        await #expect(try Self.sentio(["import", file.path, "--db", db]).status == 0)
        let cases: [([String], Int)] = [
            (["--from", "2023-01-03", "--to", "2023-01-03"], 24),
            (["--to", "2023-01-02"], 24),
            (["--from", "2023-01-03T12:00:00Z", "--to", "2023-01-03T14:00:00Z"], 3),
            (["--from", "2023-01-04T22:00:00Z"], 2),
        ]
        for (bounds, expected) in cases {
            for source in [[file.path], ["--db", db]] {
                let run = try await Self.sentio(["backtest"] + source + ["--strategy", "buy-and-hold", "--format", "json"] + bounds)
                #expect(run.status == 0, "\(bounds) \(source): \(run.stderr)")
                #expect(try Self.statistics(run)["bars"] as? Int == expected, "\(bounds) \(source)")
            }
        }
    }

    @Test("backtest --save with stored bars records the same input fingerprint as with the CSV files")
    func saveFromBothSources() async throws {
        let (_, db) = try await Self.importedSampleMarket()
        let selection = ["--strategy", "rsi", "--symbols", "FAS,FAZ", "--from", "2023-06-01"]
        let fromCSV = try await Self.sentio(["backtest", "Data/market", "--save", "--db", db, "--label", "csv"] + selection)
        let fromStore = try await Self.sentio(["backtest", "--db", db, "--save", "--label", "store"] + selection)
        #expect(fromCSV.status == 0 && fromCSV.stderr.contains("saved run 1"), "\(fromCSV.stderr)")
        #expect(fromStore.status == 0 && fromStore.stderr.contains("saved run 2"), "\(fromStore.stderr)")
        let store = try SentioDatabase(path: db, mode: .existingOnly)
        let runs = try store.runs().sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        #expect(runs.map(\.label) == ["csv", "store"])
        #expect(runs[0].inputFingerprint == runs[1].inputFingerprint)
        #expect(runs[0].finalEquity == runs[1].finalEquity && runs[0].tradeCount == runs[1].tradeCount)
        // The fingerprint is that of the selected bars: the same bars loaded from the store by the API.
        let bars = try store.loadSeries(symbols: ["FAS", "FAZ"], from: 1_685_577_600)
        #expect(runs[1].inputFingerprint == ContentFingerprint.of(series: bars))
        let full = try await Self.sentio(["backtest", "--db", db, "--save", "--strategy", "rsi", "--symbols", "FAS,FAZ"])
        #expect(full.status == 0)
        #expect(try store.runs().first { $0.id == 3 }?.inputFingerprint != runs[1].inputFingerprint)
    }

    // MARK: - signals

    @Test("signals --history --save stores every bar's signal; read back they equal the model's, bit for bit")
    func signalsSaveRoundTrip() async throws {
        let (_, db) = try Self.scratch()
        let plain = try await Self.sentio(["signals", "Data/market", "--history", "--format", "csv", "--symbols", "TQQQ,SQQQ"])
        let saving = try await Self.sentio(["signals", "Data/market", "--history", "--format", "csv", "--symbols", "TQQQ,SQQQ", "--save", "--db", db])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(saving.status == 0, "\(saving.stderr)")
        #expect(saving.stdout == plain.stdout)  // --save does not change the output
        #expect(saving.stderr.contains("saved 1008 signal(s)"))
        // Expected: the model evaluated in-process on the CSV files.
        let expected = try ["SQQQ", "TQQQ"].map { symbol in
            let path = repositoryRoot.appendingPathComponent("Data/market/\(symbol).csv").path
            return try SignalModel.evaluate(try OHLCVReader.read(path: path, options: ReadOptions(symbol: symbol)))
        }
        let stored = try SentioDatabase(path: db, mode: .existingOnly).loadSignals(model: "sentio")
        #expect(stored.count == expected.map(\.count).reduce(0, +))
        let loaded = try ["SQQQ", "TQQQ"].map { symbol in
            try stored.filter { $0.symbol == symbol }.map { try #require(Signal(stored: $0)) }
        }
        // Every field printed at full precision: equal text means equal values (NaN where NaN).
        #expect(loaded.map { $0.map { "\($0)" } } == expected.map { $0.map { "\($0)" } })
        #expect(loaded.flatMap { $0 }.contains { $0.signalType != .hold })
    }

    @Test("signals --db reads stored bars: the same bytes as from the CSV files, with and without a range")
    func signalsFromStore() async throws {
        let (_, db) = try await Self.importedSampleMarket()
        let variants: [[String]] = [
            [],
            ["--history", "--symbols", "LABU,LABD"],
            ["--history", "--format", "csv", "--symbols", "SPXL", "--from", "2023-09-01", "--to", "2024-03-31"],
        ]
        for options in variants {
            let fromCSV = try await Self.sentio(["signals", "Data/market"] + options)
            let fromStore = try await Self.sentio(["signals", "--db", db] + options)
            #expect(fromCSV.status == 0, "\(options): \(fromCSV.stderr)")
            #expect(fromStore.status == 0, "\(options): \(fromStore.stderr)")
            #expect(!fromCSV.stdout.isEmpty && fromCSV.stdout == fromStore.stdout, "\(options)")
        }
        // The range really cut the input: the model saw only the bars in the range, so the CSV history (one row per
        // bar past the warm-up; deliberate change of issue 12: warm-up bars have no row) has that many rows fewer.
        let ranged = try await Self.sentio(["signals", "--db", db, "--history", "--format", "csv", "--symbols", "SPXL", "--from", "2023-09-01", "--to", "2024-03-31"])
        let rows = ranged.stdout.split(separator: "\n").dropFirst()
        let spxl = try OHLCVReader.read(path: repositoryRoot.appendingPathComponent("Data/market/SPXL.csv").path)
        let lower = CivilDate(iso: "2023-09-01")!.epochSeconds, upper = CivilDate(iso: "2024-03-31")!.epochSeconds + 86_399
        let inRange = spxl.timestamps.filter { $0 >= lower && $0 <= upper }.count
        #expect(inRange > SignalModelConfig().firstSignalIndex && rows.count == inRange - SignalModelConfig().firstSignalIndex)
        // With --save and --db only, the stored bars are read and the latest signals saved.
        let saving = try await Self.sentio(["signals", "--db", db, "--save"])
        #expect(saving.status == 0 && saving.stderr.contains("saved 12 signal(s)"), "\(saving.stderr)")
        #expect(try SentioDatabase(path: db, mode: .existingOnly).loadSignals().count == 12)
    }

    // MARK: - fund

    @Test("fund FILE --save then fund --db prints the same report as fund FILE")
    func fundSaveThenReadBack() async throws {
        let (_, db) = try Self.scratch()
        let sources = ["Data/funds/events.csv", "--meta", "Data/funds/funds.json"]
        for format in ["json", "table"] {
            let fromFile = try await Self.sentio(["fund"] + sources + ["--index", "Data/funds/index.csv", "--format", format])
            let saving = try await Self.sentio(["fund"] + sources + ["--index", "Data/funds/index.csv", "--format", format, "--save", "--db", db])
            let fromStore = try await Self.sentio(["fund", "--db", db, "--index", "Data/funds/index.csv", "--format", format])
            #expect(fromFile.status == 0, "\(fromFile.stderr)")
            #expect(saving.status == 0 && saving.stderr.contains("saved 239 event(s) of 4 fund(s)"), "\(saving.stderr)")
            #expect(fromStore.status == 0, "\(fromStore.stderr)")
            #expect(saving.stdout == fromFile.stdout)
            #expect(!fromFile.stdout.isEmpty && fromStore.stdout == fromFile.stdout, "\(format)")
        }
        // Saving again replaces each fund's events instead of adding to them.
        let store = try SentioDatabase(path: db, mode: .existingOnly)
        #expect(try store.loadFundEvents().count == 239)
        #expect(try store.loadFundMetadata().map(\.fundID) == ["AEG-VII", "BRM-I", "KST-II", "NVP-III"])
        // As-of and day count apply to stored events too.
        let asOfFile = try await Self.sentio(["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.json", "--as-of", "2019-12-31", "--day-count", "act360", "--format", "json"])
        let asOfStore = try await Self.sentio(["fund", "--db", db, "--as-of", "2019-12-31", "--day-count", "act360", "--format", "json"])
        #expect(asOfFile.status == 0 && asOfStore.status == 0 && asOfStore.stdout == asOfFile.stdout)
    }

    @Test("fund --db without stored metadata reports the stored funds with null names")
    func fundWithoutMetadata() async throws {
        let (_, db) = try Self.scratch()
        let events = "fund_id,date,type,amount\nB,2020-01-01,commitment,100\nB,2020-02-01,call,40\nA,2021-01-01,commitment,50\nA,2021-03-01,call,10\nA,2021-06-01,nav,12\n"
        let file = try temporaryFile("ev.csv", events)
        let fromFile = try await Self.sentio(["fund", file, "--format", "json", "--save", "--db", db])
        let fromStore = try await Self.sentio(["fund", "--db", db, "--format", "json"])
        #expect(fromFile.status == 0 && fromStore.status == 0, "\(fromFile.stderr) \(fromStore.stderr)")
        #expect(fromStore.stdout == fromFile.stdout)
        let object = try BacktestCLITests.json(fromStore.stdout)
        let funds = try #require(object["funds"] as? [[String: Any]])
        #expect(funds.map { $0["id"] as? String } == ["B", "A"])  // by first event date, as in the file
        #expect(funds.allSatisfy { $0["name"] is NSNull })
    }

    // MARK: - bad input

    @Test("bad store input exits 2 with a message naming the problem", arguments: [
        (["backtest", "--db", "$DB", "--symbols", "FAS,NOPE"], "unknown symbol NOPE in --symbols; the store $DB has FAS, FAZ"),
        (["backtest", "--db", "$DB", "--from", "2030-01-01"], "no bars from 2030-01-01T00:00:00Z in the store $DB"),
        (["backtest", "Data/market", "--from", "2030-01-01", "--symbols", "FAS"], "symbol FAS has no bars from 2030-01-01T00:00:00Z in Data/market"),
        (["backtest", "--db", "$DB", "--from", "2024-01-01", "--to", "2023-01-01"], "--from 2024-01-01 is after --to 2023-01-01"),
        (["backtest", "--db", "$DB", "--to", "next week"], "--to 'next week': expected YYYY-MM-DD"),
        (["backtest", "Data/market", "--db", "$DB"], "give either PATH (CSV input) or --db FILE (stored bars), not both"),
        (["backtest", "--db", "$MISSING"], "no database at $MISSING"),
        (["signals", "--db", "$DB", "--symbols", "NOPE"], "unknown symbol NOPE in --symbols; the store $DB has"),
        (["signals", "--db", "$DB", "--symbols", "FAS", "--from", "2024-12-06"], "symbol FAS has no bars from 2024-12-06T00:00:00Z in the store $DB"),
        (["signals", "--db", "$MISSING", "--history"], "no database at $MISSING"),
        (["signals", "--db", "$DB", "--lenient"], "--lenient applies to CSV input only"),
        (["signals", "--db", "$DB", "--symbols", "FAS,fas"], "--symbols lists fas twice"),
        (["backtest", "--db", "$DB", "--symbols", "FAS,FAZ,FAS"], "--symbols lists FAS twice"),
        (["fund", "--db", "$DB"], "the store $DB holds no fund events"),
        (["fund", "--db", "$MISSING"], "no database at $MISSING"),
        (["fund"], "give a fund events FILE, or --db DB"),
        (["fund", "Data/funds/events.csv", "--db", "$DB"], "give either FILE or --db DB"),
        (["fund", "--db", "$DB", "--meta", "Data/funds/funds.csv"], "--meta applies to FILE input"),
    ])
    func badInputExits2(arguments: [String], message: String) async throws {
        let (dir, db) = try Self.scratch()
        let market = dir.appendingPathComponent("market")
        try FileManager.default.createDirectory(at: market, withIntermediateDirectories: true)
        for symbol in ["FAS", "FAZ"] {
            try FileManager.default.copyItem(
                at: repositoryRoot.appendingPathComponent("Data/market/\(symbol).csv"), to: market.appendingPathComponent("\(symbol).csv"))
        }
        await #expect(try Self.sentio(["import", market.path, "--db", db]).status == 0)
        let missing = dir.appendingPathComponent("missing.sqlite").path
        func substitute(_ s: String) -> String { s.replacingOccurrences(of: "$DB", with: db).replacingOccurrences(of: "$MISSING", with: missing) }
        let run = try await Self.sentio(arguments.map(substitute))
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(substitute(message)), "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: missing))  // reading never creates a store
    }

    // MARK: - in-process parsing

    @Test("the options parse as documented: --db without PATH reads the store; PATH with --db needs --save")
    func parsing() throws {
        let fromStore = try BacktestCommand.parse(["--db", "x.sqlite", "--from", "2023-01-02", "--to", "2023-01-02"])
        #expect(fromStore.readsStore)
        #expect(fromStore.resolvedRange == BarRange(lower: 1_672_617_600, upper: 1_672_617_600 + 86_399))
        #expect(try BacktestCommand.parse(["Data/market", "--db", "x.sqlite", "--save"]).readsStore == false)
        #expect(throws: (any Error).self) { try BacktestCommand.parse(["Data/market", "--db", "x.sqlite"]) }
        #expect(throws: (any Error).self) { try BacktestCommand.parse(["--label", "x"]) }
        let signals = try SignalsCommand.parse(["--db", "x.sqlite", "--save", "--history"])
        #expect(signals.readsStore && signals.save)
        #expect(try SignalsCommand.parse([]).readsStore == false)
        #expect(throws: (any Error).self) { try FundCommand.parse(["--db", "x.sqlite", "--save"]) }
    }

    @Test("BarRange slices by binary search, both bounds inclusive, equal to a linear filter")
    func rangeSlicing() throws {
        var rng = SplitMix64(seed: 42)
        var series = OHLCVSeries(symbol: "R")
        var t: Int64 = 0
        for _ in 0..<500 {
            t += Int64(rng.next() % 5) + 1
            series.append(timestamp: t, open: 1, high: 1, low: 1, close: 1, volume: 1)
        }
        for _ in 0..<200 {
            let a = Int64(rng.next() % UInt64(t + 10)) - 5, b = Int64(rng.next() % UInt64(t + 10)) - 5
            let lower: Int64? = rng.next() % 4 == 0 ? nil : min(a, b)
            let upper: Int64? = rng.next() % 4 == 0 ? nil : max(a, b)
            let sliced = BarRange(lower: lower, upper: upper).apply(to: series)
            let expected = series.timestamps.filter { time in
                (lower.map { time >= $0 } ?? true) && (upper.map { time <= $0 } ?? true)
            }
            #expect(sliced.timestamps == expected)
            #expect(sliced.close.count == expected.count)
        }
    }
}
