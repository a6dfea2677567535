import Foundation
import GRDB
import Sentio
import SentioApplication
import SentioTestSupport
import Testing
@testable import SentioCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// End-to-end tests of `sentio import` and `sentio runs`, and the store's crash-safety, through the built `sentio`
// executable run as a child process.





/// Writes an OHLCV CSV (epoch-second timestamps, 4-decimal prices) for a seeded random walk; returns the row count.
@discardableResult
private func writeCSV(_ path: URL, rows: Int, seed: UInt64, start: Int64 = 1_700_000_000, step: Int64 = 60, closeShift: Double = 0) throws -> Int {
    var rng = SplitMix64(seed: seed)
    var text = "timestamp,open,high,low,close,volume\n"
    text.reserveCapacity(rows * 60)
    var price = 100.0
    for i in 0..<rows {
        let open = (price * 10_000).rounded() / 10_000
        price *= 1 + 0.001 * rng.nextGaussian()
        let close = (price * 10_000).rounded() / 10_000 + closeShift
        let high = max(open, close) + 0.01, low = min(open, close) - 0.01
        text += "\(start + Int64(i) * step),\(open),\(high),\(low),\(close),\(Int.random(in: 100...9_999, using: &rng))\n"
    }
    try text.write(to: path, atomically: true, encoding: .utf8)
    return rows
}

/// Polls `condition` every 5 ms until it holds or `timeout` seconds pass.
private func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

@Suite("sentio import and sentio runs, end to end", .serialized)
struct StoreCLITests {
    @Test("import a directory, read back exactly what the CSV reader reads, re-import changes nothing")
    func importDirectory() async throws {
        let directory = try temporaryDirectory("sentio-import")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try writeCSV(data.appendingPathComponent("AAA.csv"), rows: 500, seed: 1)
        try writeCSV(data.appendingPathComponent("BBB.csv"), rows: 300, seed: 2)
        let db = directory.appendingPathComponent("store.sqlite").path

        let first = try await runSentio(["import", data.path, "--db", db])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("AAA 500 bars: 500 new"))
        #expect(first.stdout.contains("BBB 300 bars: 300 new"))

        let store = try SentioDatabase(path: db, mode: .existingOnly)
        let loaded = try store.loadSeries()
        let expected = try OHLCVReader.readAll(paths: [data.path])
        #expect(loaded == expected)
        #expect(try store.integrityCheck() == ["ok"])
        let log = try store.importLog()
        #expect(log.count == 2)
        #expect(log[0].fingerprint == (try ContentFingerprint.ofFile(atPath: data.appendingPathComponent("AAA.csv").path)))

        let second = try await runSentio(["import", data.path, "--db", db])
        #expect(second.status == 0)
        #expect(second.stdout.contains("AAA unchanged"))
        #expect(second.stdout.contains("BBB unchanged"))
        #expect(second.stdout.contains("0 new bars"))
        #expect(try store.importLog() == log)
        #expect(try store.loadSeries() == expected)
    }

    @Test("overlapping file: conflicts reported and stored bars kept; --replace overwrites them")
    func overlapConflicts() async throws {
        let directory = try temporaryDirectory("sentio-overlap")
        let db = directory.appendingPathComponent("s.sqlite").path
        let old = directory.appendingPathComponent("old").appendingPathComponent("XYZ.csv")
        let new = directory.appendingPathComponent("new").appendingPathComponent("XYZ.csv")
        try FileManager.default.createDirectory(at: old.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: new.deletingLastPathComponent(), withIntermediateDirectories: true)
        try writeCSV(old, rows: 200, seed: 5)
        // Same timestamps for the first 100 rows but every close shifted: 100 conflicts, 50 new rows.
        try writeCSV(new, rows: 150, seed: 5, start: 1_700_000_000 + 100 * 60, closeShift: 0.5)
        #expect(try await runSentio(["import", old.path, "--db", db]).status == 0)

        let keep = try await runSentio(["import", new.path, "--db", db])
        #expect(keep.status == 0, "\(keep.stderr)")
        #expect(keep.stdout.contains("XYZ 150 bars: 50 new, 0 already stored, 100 conflicts (stored values kept"))
        let oldSeries = try OHLCVReader.read(path: old.path)
        let newSeries = try OHLCVReader.read(path: new.path)
        var stored = try SentioDatabase(path: db).loadSeries(symbols: ["XYZ"])[0]
        #expect(stored.count == 250)
        #expect(stored.prefix(200) == oldSeries)

        let replace = try await runSentio(["import", new.path, "--db", db, "--replace"])
        #expect(replace.status == 0)
        #expect(replace.stdout.contains("100 conflicts replaced"))
        stored = try SentioDatabase(path: db).loadSeries(symbols: ["XYZ"])[0]
        #expect(stored.slice(100..<250) == newSeries)
        #expect(stored.prefix(100) == oldSeries.prefix(100))
    }

    @Test("a bad file: message names file, line and field, exit 2, that file not imported; --lenient skips the row")
    func badFile() async throws {
        let directory = try temporaryDirectory("sentio-bad")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try writeCSV(data.appendingPathComponent("AAA.csv"), rows: 100, seed: 1)
        let bad = data.appendingPathComponent("BBB.csv")
        try writeCSV(bad, rows: 100, seed: 2)
        // Line 60 (header is line 1): high below low.
        var lines = try String(contentsOf: bad, encoding: .utf8).components(separatedBy: "\n")
        var cells = lines[59].components(separatedBy: ",")
        cells[2] = "1.0"
        lines[59] = cells.joined(separator: ",")
        try lines.joined(separator: "\n").write(to: bad, atomically: true, encoding: .utf8)
        let db = directory.appendingPathComponent("s.sqlite").path

        let strict = try await runSentio(["import", data.path, "--db", db])
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("BBB.csv:60"), "\(strict.stderr)")
        #expect(strict.stderr.contains("high"))
        let store = try SentioDatabase(path: db, mode: .existingOnly)
        #expect(try store.instruments().map(\.symbol) == ["AAA"])
        #expect(try store.importLog().map(\.symbol) == ["AAA"])

        let lenient = try await runSentio(["import", bad.path, "--db", db, "--lenient"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("BBB.csv:60"))
        #expect(try store.instruments().first { $0.symbol == "BBB" }?.barCount == 99)

        let missing = try await runSentio(["import", directory.appendingPathComponent("nothing.csv").path, "--db", db])
        #expect(missing.status == 2)
    }

    @Test("runs list, show and compare print what was saved, as table and json")
    func runsCommands() async throws {
        let db = try temporaryDirectory("sentio-runs").appendingPathComponent("s.sqlite").path
        let store = try SentioDatabase(path: db)
        var ids: [Int64] = []
        for (n, sharpe) in [(1, 0.75), (2, 1.25)] {
            let run = StoredRun(
                strategy: n == 1 ? "rsi" : "sentio", symbols: ["TQQQ", "SQQQ"],
                configJSON: #"{"commission":0.001,"rsiLower":\#(20 + 10 * n)}"#,
                statisticsJSON: #"{"totalReturnPercent":\#(3.5 * Double(n)),"sharpeRatio":\#(sharpe),"tradeCount":\#(n)}"#,
                inputFingerprint: "abcdef0123456789", startTimestamp: 1_672_617_600, endTimestamp: 1_704_067_200,
                initialCapital: 100_000, finalEquity: 100_000 + 3_500 * Double(n))
            let trades = [
                StoredTrade(
                    symbol: "TQQQ", entryTimestamp: 1_672_704_000, entryPrice: 17.5, exitTimestamp: 1_673_000_000,
                    exitPrice: 18.25, shares: 100, pnl: 75, pnlPercent: 4.2857, commission: 3.575, signalType: "BUY",
                    exitReason: "signal")
            ]
            let equity = (0..<10).map { StoredEquityPoint(timestamp: 1_672_617_600 + Int64($0) * 86_400, equity: 100_000 + Double($0)) }
            ids.append(try store.saveRun(run, trades: trades, equity: equity))
        }

        let table = try await runSentio(["runs", "list", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("rsi"))
        #expect(table.stdout.contains("sentio"))
        #expect(table.stdout.contains("2023-01-02..2024-01-01"))

        let list = try await runSentio(["runs", "list", "--db", db, "--format", "json"])
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [String: Any]
        let runs = listed["runs"] as! [[String: Any]]
        #expect(runs.map { ($0["id"] as! NSNumber).int64Value } == ids)
        #expect(((runs[1]["statistics"] as! [String: Any])["sharpeRatio"] as! NSNumber).doubleValue == 1.25)

        let show = try await runSentio(["runs", "show", "\(ids[0])", "--db", db, "--format", "json"])
        #expect(show.status == 0)
        let shown = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as! [String: Any]
        #expect(shown["strategy"] as? String == "rsi")
        #expect((shown["equity"] as! [Any]).count == 10)
        let trade = (shown["trades"] as! [[String: Any]])[0]
        #expect((trade["exitPrice"] as! NSNumber).doubleValue == 18.25)
        #expect(trade["entryTime"] as? String == "2023-01-03T00:00:00Z")
        let showTable = try await runSentio(["runs", "show", "\(ids[0])", "--db", db])
        #expect(showTable.stdout.contains("trades (1)"))
        #expect(showTable.stdout.contains("sharpeRatio"))

        let compare = try await runSentio(["runs", "compare", "\(ids[0])", "\(ids[1])", "--db", db, "--format", "json"])
        #expect(compare.status == 0, "\(compare.stderr)")
        let compared = try JSONSerialization.jsonObject(with: Data(compare.stdout.utf8)) as! [String: Any]
        let sharpe = (compared["statistics"] as! [String: Any])["sharpeRatio"] as! [NSNumber]
        #expect(sharpe.map(\.doubleValue) == [0.75, 1.25])
        let differences = compared["configDifferences"] as! [String: Any]
        #expect(Set(differences.keys) == ["rsiLower"])  // commission is equal, so not listed
        let compareTable = try await runSentio(["runs", "compare", "\(ids[0])", "\(ids[1])", "--db", db])
        #expect(compareTable.stdout.contains("rsiLower"))

        let unknown = try await runSentio(["runs", "show", "99", "--db", db])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no run with id 99"))
        #expect(try await runSentio(["runs", "compare", "\(ids[0])", "--db", db]).status == 2)
    }

    @Test("bad --db files: random bytes, newer schema, missing file; default location from $SENTIO_DB or ./sentio.sqlite")
    func badDatabases() async throws {
        let directory = try temporaryDirectory("sentio-baddb")
        let random = directory.appendingPathComponent("random.sqlite")
        var rng = SplitMix64(seed: 3)
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }).write(to: random)
        let notDB = try await runSentio(["runs", "list", "--db", random.path])
        #expect(notDB.status == 2)
        #expect(notDB.stderr.contains("is not an SQLite database"))
        let csv = directory.appendingPathComponent("AAA.csv")
        try writeCSV(csv, rows: 10, seed: 1)
        #expect(try await runSentio(["import", csv.path, "--db", random.path]).status == 2)

        let newer = directory.appendingPathComponent("newer.sqlite").path
        try SentioDatabase(path: newer).close()
        let queue = try DatabaseQueue(path: newer)
        try await queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        let refused = try await runSentio(["import", csv.path, "--db", newer])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("newer Sentio"))

        // Default location: ./sentio.sqlite in the working directory, or $SENTIO_DB.
        var environment = ProcessInfo.processInfo.environment
        environment["SENTIO_DB"] = nil
        let local = try await runSentio(["import", csv.path], environment: environment, in: directory)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("sentio.sqlite").path))
        let elsewhere = directory.appendingPathComponent("env.sqlite").path
        environment["SENTIO_DB"] = elsewhere
        #expect(try await runSentio(["import", csv.path], environment: environment).status == 0)
        #expect(try SentioDatabase(path: elsewhere, mode: .existingOnly).instruments().map(\.symbol) == ["AAA"])
        let missing = try await runSentio(["runs", "list", "--db", directory.appendingPathComponent("none.sqlite").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no database at"))
    }
}

@Suite("Crash safety: SIGKILL mid-write, concurrent readers", .serialized)
struct StoreCrashTests {
    @Test("import killed mid-way: integrity ok, each file fully present or absent; a reader process works meanwhile")
    func killedImport() async throws {
        let directory = try temporaryDirectory("sentio-kill-import")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        var rowsBySymbol: [String: Int] = [:]
        for n in 0..<8 {
            let symbol = "S\(n)"
            rowsBySymbol[symbol] = try writeCSV(data.appendingPathComponent("\(symbol).csv"), rows: 40_000 + 1_000 * n, seed: UInt64(n))
        }
        let db = directory.appendingPathComponent("s.sqlite").path
        let child = try startSentio(["import", data.path, "--db", db])

        // Wait for the first file to be committed, then read while the child is writing the next ones.
        var reader: SentioDatabase?
        let committed = waitUntil(timeout: 60) {
            if reader == nil { reader = try? SentioDatabase(path: db, mode: .existingOnly) }
            return ((try? reader?.importLog().count) ?? 0) >= 1
        }
        #expect(committed, "the import never committed a file")
        if let reader {
            for series in try reader.loadSeries() {
                #expect(series.count == rowsBySymbol[series.symbol], "reader saw a partial file for \(series.symbol)")
            }
        }
        kill(child.process.processIdentifier, SIGKILL)
        await exited(child.process)
        #expect(
            child.process.terminationReason == .uncaughtSignal,
            "the import finished before it was killed: \((try? String(contentsOf: child.stderr, encoding: .utf8)) ?? "")")

        let store = try SentioDatabase(path: db, mode: .existingOnly)
        #expect(try store.integrityCheck() == ["ok"])
        let imported = Set(try store.importLog().map(\.symbol))
        #expect(!imported.isEmpty && imported.count < 8, "expected an interrupted import, got \(imported.count) files")
        let instruments = try store.instruments()
        #expect(Set(instruments.map(\.symbol)) == imported)
        for series in try store.loadSeries() {
            #expect(series.count == rowsBySymbol[series.symbol], "\(series.symbol) partially imported")
        }
        for instrument in instruments {
            #expect(instrument.barCount == rowsBySymbol[instrument.symbol])
        }
        // The interrupted import can simply be run again.
        let rerun = try await runSentio(["import", data.path, "--db", db])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try store.instruments().count == 8)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test("processes creating the same new store at the same moment all succeed")
    func concurrentCreation() async throws {
        for round in 0..<3 {
            let db = try temporaryDirectory("sentio-race-\(round)").appendingPathComponent("s.sqlite").path
            let children = try (0..<4).map { _ in
                try startSentioDev(["write-synthetic", "--db", db, "--count", "1", "--trades", "1", "--points", "10"])
            }
            for child in children {
                await exited(child.process)
                #expect(
                    child.process.terminationStatus == 0,
                    "\((try? String(contentsOf: child.stderr, encoding: .utf8)) ?? "")")
            }
            let store = try SentioDatabase(path: db, mode: .existingOnly)
            #expect(try store.runs().count == 4)
            #expect(try store.integrityCheck() == ["ok"])
        }
    }

    @Test("run saving killed mid-way: integrity ok, every saved run complete")
    func killedRunSave() async throws {
        let db = try temporaryDirectory("sentio-kill-runs").appendingPathComponent("s.sqlite").path
        let trades = 300, points = 30_000
        let child = try startSentioDev([
            "write-synthetic", "--db", db, "--count", "100", "--trades", "\(trades)", "--points", "\(points)",
        ])
        var reader: SentioDatabase?
        let started = waitUntil(timeout: 60) {
            if reader == nil { reader = try? SentioDatabase(path: db, mode: .existingOnly) }
            return ((try? reader?.runs().count) ?? 0) >= 2
        }
        #expect(started, "no run was saved")
        usleep(UInt32.random(in: 0...20_000))  // land anywhere inside the next save
        kill(child.process.processIdentifier, SIGKILL)
        await exited(child.process)
        #expect(
            child.process.terminationReason == .uncaughtSignal,
            "the writer finished before it was killed: \((try? String(contentsOf: child.stderr, encoding: .utf8)) ?? "")")

        let store = try SentioDatabase(path: db, mode: .existingOnly)
        #expect(try store.integrityCheck() == ["ok"])
        let runs = try store.runs()
        #expect(runs.count >= 2 && runs.count < 100)
        for run in runs {
            let detail = try store.run(id: run.id!)
            #expect(run.tradeCount == trades && detail.trades.count == trades)
            #expect(run.equityPointCount == points && detail.equity.count == points)
        }
        let queue = try DatabaseQueue(path: db)
        let orphans = try await queue.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM run_trades WHERE run_id NOT IN (SELECT id FROM runs))
                         + (SELECT count(*) FROM run_equity WHERE run_id NOT IN (SELECT id FROM runs))
                    """)
        }
        #expect(orphans == 0)
    }
}

@Suite("Adapters for --save: engine types to store records and back")
struct StoreAdapterTests {
    @Test("Sentio signals of the sample market survive the store bit for bit")
    func signalsRoundTrip() throws {
        let series = try OHLCVReader.read(path: repositoryRoot.appendingPathComponent("Data/market/TQQQ.csv").path)
        let signals = try SignalModel.evaluate(series)
        #expect(signals.contains { $0.rsi.isNaN } && signals.contains { !$0.rsi.isNaN })  // both warm-up and live
        let store = try SentioDatabase(path: try temporaryDirectory("sentio-adapt").appendingPathComponent("s.sqlite").path)
        try store.saveSignals(signals.map { StoredSignal($0) })
        let loaded = try store.loadSignals(model: "sentio", symbols: ["TQQQ"])
        #expect(loaded.count == signals.count)
        let back = loaded.compactMap { Signal(stored: $0) }
        #expect(back.count == signals.count)
        // Every number bit-identical, except that any NaN comes back as the canonical NaN (NaN payloads carry no
        // meaning and JSON has no NaN); the first few differences are reported field by field.
        func same(_ a: Double, _ b: Double) -> Bool { (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern }
        var mismatches: [String] = []
        for (a, b) in zip(back, signals) {
            let fields: [(String, Double, Double)] = [
                ("price", a.price, b.price), ("change", a.change, b.change), ("changePercent", a.changePercent, b.changePercent),
                ("confidence", a.confidence, b.confidence), ("targetReturn", a.targetReturn, b.targetReturn),
                ("stopLoss", a.stopLoss, b.stopLoss), ("profitTarget", a.profitTarget, b.profitTarget),
                ("aiSignal", a.aiSignal, b.aiSignal), ("rsi", a.rsi, b.rsi), ("volumeRatio", a.volumeRatio, b.volumeRatio),
                ("forecastLogReturn", a.forecastLogReturn, b.forecastLogReturn),
                ("forecastStandardError", a.forecastStandardError, b.forecastStandardError),
                ("adjustedRSquared", a.adjustedRSquared, b.adjustedRSquared),
                ("averageTrueRange", a.averageTrueRange, b.averageTrueRange),
            ]
            for (name, x, y) in fields where !same(x, y) { mismatches.append("bar \(b.barIndex) \(name): \(x) vs \(y)") }
            if a.symbol != b.symbol || a.timestamp != b.timestamp || a.barIndex != b.barIndex || a.signalType != b.signalType
                || a.reason != b.reason || a.barsUntilReady != b.barsUntilReady
            {
                mismatches.append("bar \(b.barIndex): identity fields differ")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differences, first: \(mismatches.prefix(5))")
    }

    @Test("fund events and metadata of the sample funds survive the store exactly")
    func fundsRoundTrip() throws {
        let root = repositoryRoot.appendingPathComponent("Data/funds")
        let eventsPath = root.appendingPathComponent("events.csv").path
        let file = try FundEventFile(text: String(contentsOfFile: eventsPath, encoding: .utf8), file: eventsPath)
        let metaPath = root.appendingPathComponent("funds.csv").path
        let meta = try FundMetadataFile(text: String(contentsOfFile: metaPath, encoding: .utf8), file: metaPath)
        let events = file.fundIDs.flatMap { file.eventsByFund[$0]! }
        #expect(events.count > 10)
        let store = try SentioDatabase(path: try temporaryDirectory("sentio-adapt").appendingPathComponent("s.sqlite").path)
        try store.saveFundEvents(events.map { StoredFundEvent($0) }, metadata: meta.funds.values.map { StoredFundMetadata($0) })
        for fundID in file.fundIDs {
            let back = try store.loadFundEvents(fundIDs: [fundID]).map { FundEvent(stored: $0) }
            var expected = file.eventsByFund[fundID]!
            for i in expected.indices { expected[i].line = 0 }
            #expect(back == expected)
        }
        let storedMeta = try store.loadFundMetadata().map { FundMetadata(stored: $0) }
        #expect(Dictionary(uniqueKeysWithValues: storedMeta.map { ($0.id, $0) }) == meta.funds)
    }
}
