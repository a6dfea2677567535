import Foundation
import GRDB
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

@Suite("Opening, schema versions and damaged files")
struct SchemaAndFileTests {
    @Test("a new store is WAL, has foreign keys on, the Sentio marker and the current schema version")
    func freshStore() throws {
        let path = try temporaryDatabasePath()
        let store = try SentioDatabase(path: path)
        #expect(try store.storedSchemaVersion() == SentioDatabase.schemaVersion)
        let (journal, foreignKeys, applicationID, tables) = try store.pool.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try Int32.fetchOne(db, sql: "PRAGMA application_id"),
                Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            )
        }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
        #expect(applicationID == Schema.applicationID)
        for table in [
            "instruments", "bars", "imports", "runs", "run_trades", "run_equity", "signal_history", "fund_events",
            "fund_metadata",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        #expect(try store.integrityCheck() == ["ok"])
        // Reopening an up-to-date store changes nothing.
        let again = try SentioDatabase(path: path, mode: .existingOnly)
        #expect(try again.storedSchemaVersion() == SentioDatabase.schemaVersion)
    }

    @Test("a store from schema version 1 (frozen SQL dump) is migrated and keeps its bars")
    func migratesVersion1() throws {
        let path = try temporaryDatabasePath()
        let dump = try fixtureText("store/schema-v1.sql")
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: dump) }
        try queue.close()

        let store = try SentioDatabase(path: path, mode: .existingOnly)
        #expect(try store.storedSchemaVersion() == SentioDatabase.schemaVersion)
        let series = try store.loadSeries(symbols: ["OLD"])
        #expect(series.count == 1)
        #expect(series[0].timestamps == [1_700_000_000, 1_700_000_060, 1_700_000_120])
        #expect(series[0].close == [11.0, 11.25, 11.75])
        #expect(try store.importLog().map(\.path) == ["data/OLD.csv"])
        // The tables added by version 2 work.
        let id = try store.saveRun(
            StoredRun(strategy: "rsi", symbols: ["OLD"], configJSON: "{}", statisticsJSON: "{}", inputFingerprint: "x"),
            trades: [], equity: [])
        #expect(try store.run(id: id).run.strategy == "rsi")
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test("a schema version newer than this build's is refused")
    func refusesNewerUserVersion() throws {
        let path = try temporaryDatabasePath()
        try SentioDatabase(path: path).close()
        let queue = try DatabaseQueue(path: path)
        let newer = SentioDatabase.schemaVersion + 1
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(newer)") }
        try queue.close()
        #expect(
            throws: StoreError.newerSchema(
                path: path, foundVersion: newer, supportedVersion: SentioDatabase.schemaVersion, unknownMigrations: [])
        ) {
            try SentioDatabase(path: path)
        }
    }

    @Test("a migration this build does not know is refused and not touched")
    func refusesUnknownMigration() throws {
        let path = try temporaryDatabasePath()
        try SentioDatabase(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v3-from-the-future')") }
        try queue.close()
        do {
            _ = try SentioDatabase(path: path)
            Issue.record("expected a newer-schema error")
        } catch let error as StoreError {
            guard case .newerSchema(_, _, let supported, let unknown) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(supported == SentioDatabase.schemaVersion)
            #expect(unknown == ["v3-from-the-future"])
            #expect(error.description.contains("newer Sentio"))
        }
    }

    @Test("a file of random bytes is not a database: typed error, no crash")
    func randomBytes() throws {
        let path = try temporaryDatabasePath()
        var rng = SplitMix64(seed: 42)
        let bytes = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path: path)) { try SentioDatabase(path: path) }
        // Still untouched: the store must not have rewritten a foreign file.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }

    @Test("a file with a valid SQLite header but garbage pages fails with a typed error, not a crash")
    func garbageAfterHeader() throws {
        let path = try temporaryDatabasePath()
        let store = try SentioDatabase(path: path)
        try store.importSeries(randomSeries(symbol: "AAA", count: 5_000, seed: 1), sourcePath: "a", fingerprint: "f")
        try store.checkpoint()
        try store.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        var rng = SplitMix64(seed: 9)
        // Overwrite everything after the first page (the schema page stays readable) with random bytes.
        let pageSize = Int(SQLiteHeader(data)!.pageSize)
        #expect(data.count > 2 * pageSize)
        for i in pageSize..<data.count { data[i] = UInt8.random(in: 0...255, using: &rng) }
        try data.write(to: URL(fileURLWithPath: path))
        do {
            let reopened = try SentioDatabase(path: path)
            _ = try reopened.loadSeries(symbols: ["AAA"])
            let messages = try reopened.integrityCheck()
            #expect(messages != ["ok"])
            #expect(throws: StoreError.self) { try reopened.verifyIntegrity() }
        } catch let error as StoreError {
            // Any typed error is acceptable; it must name the file.
            #expect(error.description.contains(path))
        }
    }

    @Test("a truncated database is reported as truncated")
    func truncatedFile() throws {
        let path = try temporaryDatabasePath()
        let store = try SentioDatabase(path: path)
        try store.importSeries(randomSeries(symbol: "AAA", count: 20_000, seed: 2), sourcePath: "a", fingerprint: "f")
        try store.checkpoint()
        try store.close()
        let full = try Data(contentsOf: URL(fileURLWithPath: path))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(
            throws: StoreError.truncated(path: path, expectedBytes: Int64(full.count), actualBytes: Int64(full.count / 2))
        ) {
            try SentioDatabase(path: path)
        }
        // Cut inside the 100-byte header: not a database at all.
        try full.prefix(50).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path: path)) { try SentioDatabase(path: path) }
    }

    @Test("an SQLite file that is not a Sentio store is refused, a missing one too in read mode")
    func foreignAndMissing() throws {
        let path = try temporaryDatabasePath()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
        try queue.close()
        #expect(throws: StoreError.notASentioDatabase(path: path)) { try SentioDatabase(path: path) }

        let missing = try temporaryDatabasePath() + ".nothing"
        #expect(throws: StoreError.missingDatabase(path: missing)) {
            try SentioDatabase(path: missing, mode: .existingOnly)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))

        let directory = try temporaryDirectory("sentio-dir").path
        #expect(throws: StoreError.self) { try SentioDatabase(path: directory) }
    }

    @Test("default location: $SENTIO_DB, else ./sentio.sqlite")
    func defaultLocation() {
        #expect(SentioDatabase.defaultPath(environment: [:]) == "sentio.sqlite")
        #expect(SentioDatabase.defaultPath(environment: ["SENTIO_DB": ""]) == "sentio.sqlite")
        #expect(SentioDatabase.defaultPath(environment: ["SENTIO_DB": "/data/s.sqlite"]) == "/data/s.sqlite")
    }
}

@Suite("Content fingerprint")
struct ContentFingerprintTests {
    /// Expected values from `xxhsum -H1` (xxHash 0.8.1, Debian package `xxhash`) over the byte strings
    /// `(0..<n).map { "a" + (i * 7) % 26 }`.
    static let reference: [(Int, String)] = [
        (0, "ef46db3751d8e999"), (1, "d24ec4f1a98c6e5b"), (3, "f0a146ee97aaeb7b"), (4, "259fc8aa66266ab8"),
        (7, "4bd8db38b35746f8"), (8, "327c72a78988cb58"), (31, "c60b040c0aa3c968"), (32, "ecb57311ef028954"),
        (33, "aafb3e2eb53be3e9"), (63, "c101e7626cf2b342"), (64, "99942a6c8ba86017"), (100, "e645df0208c9f1d6"),
        (1000, "8e59a86212175cf6"),
    ]

    @Test("XXH64 matches xxhsum on every tail length path", arguments: reference)
    func matchesXXHSum(length: Int, expected: String) throws {
        let bytes = Data((0..<length).map { UInt8(97 + ($0 * 7) % 26) })
        #expect(ContentFingerprint.of(bytes) == expected)
        let path = try temporaryDirectory("sentio-fp").appendingPathComponent("f").path
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try ContentFingerprint.ofFile(atPath: path) == expected)
    }

    @Test("series fingerprint changes with any value and not with a copy")
    func seriesFingerprint() {
        let series = randomSeries(symbol: "AAA", count: 100, seed: 3)
        let base = ContentFingerprint.of(series: [series])
        #expect(ContentFingerprint.of(series: [series]) == base)
        var changed = series
        changed.close[57] = changed.close[57].nextUp
        #expect(ContentFingerprint.of(series: [changed]) != base)
        var renamed = series
        renamed.symbol = "AAB"
        #expect(ContentFingerprint.of(series: [renamed]) != base)
    }
}
