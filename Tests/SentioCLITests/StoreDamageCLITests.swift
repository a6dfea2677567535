import Foundation
import GRDB
import Sentio
import SentioTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Store opening and damage through the `sentio` executable: a damaged block is an exit-2 error naming it, an empty
// --db is bad input, and a read-only store is read without creating -wal/-shm files.

private let goog = repositoryRoot.appendingPathComponent("Tests/Fixtures/backtest/goog_daily.csv").path

/// A store holding GOOG (imported with `sentio import`) in a fresh folder.
private func importedStore(_ label: String) async throws -> (folder: URL, db: String) {
    let folder = try temporaryDirectory(label)
    let db = folder.appendingPathComponent("store.sqlite").path
    let run = try await runSentio(["import", goog, "--db", db])
    #expect(run.status == 0, "\(run.stderr)")
    return (folder, db)
}

@Suite("sentio and damaged, empty-path and read-only stores", .serialized)
struct StoreDamageCLITests {
    @Test("a close changed inside a stored block: backtest and signals exit 2 naming the block; import --replace repairs")
    func damagedBlock() async throws {
        let (_, db) = try await importedStore("sentio-damaged")
        let before = try await runSentio(["backtest", "--db", db, "--strategy", "rsi", "--format", "json"])
        #expect(before.status == 0, "\(before.stderr)")
        // Multiply one close by 10 inside the BLOB (the issue's 28.2439 → 282.439), outside SQLite's sight.
        let queue = try DatabaseQueue(path: db)
        try await queue.write { db in
            let blob = try Data.fetchOne(db, sql: "SELECT close FROM bar_blocks LIMIT 1")!
            var closes = blob.withUnsafeBytes { raw in (0..<(blob.count / 8)).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: Double.self) } }
            closes[75] *= 10
            try db.execute(sql: "UPDATE bar_blocks SET close = ?", arguments: [closes.withUnsafeBytes { Data($0) }])
        }
        try queue.close()
        for arguments in [["backtest", "--db", db, "--strategy", "rsi"], ["signals", "--db", db]] {
            let run = try await runSentio(arguments)
            #expect(run.status == 2, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("database \(db) is damaged (goog_daily, block 1): re-import the file"), "\(run.stderr)")
        }
        let repaired = try await runSentio(["import", goog, "--db", db, "--replace"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let after = try await runSentio(["backtest", "--db", db, "--strategy", "rsi", "--format", "json"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout == before.stdout)
    }

    @Test("--db '' is bad input (exit 2) for every command that writes or reads a store")
    func emptyDatabasePath() async throws {
        let folder = try temporaryDirectory("sentio-empty-db")
        let funds = repositoryRoot.appendingPathComponent("Data/funds/events.csv").path
        for arguments in [
            ["import", goog, "--db", ""], ["backtest", goog, "--save", "--db", ""], ["signals", goog, "--save", "--db", ""],
            ["fund", funds, "--save", "--db", ""], ["runs", "list", "--db", ""],
        ] {
            let run = try await runSentio(arguments, in: folder)
            #expect(run.status == 2, "\(arguments.joined(separator: " ")): exit \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("internal error"), "\(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a read-only store (0444) is read by backtest, signals, runs and fund without creating or changing files")
    func readOnlyStore() async throws {
        let (folder, db) = try await importedStore("sentio-readonly-cli")
        let funds = repositoryRoot.appendingPathComponent("Data/funds/events.csv").path
        #expect(try await runSentio(["fund", funds, "--save", "--db", db]).status == 0)
        #expect(try await runSentio(["backtest", goog, "--strategy", "rsi", "--save", "--db", db]).status == 0)
        func listing() async throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
            }
            return files
        }
        chmod(db, 0o444)
        defer { chmod(db, 0o644) }
        let before = try await listing()
        #expect(before.keys.allSatisfy { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, "\(before.keys.sorted())")
        for arguments in [
            ["backtest", "--db", db, "--strategy", "rsi"], ["signals", "--db", db], ["runs", "list", "--db", db],
            ["runs", "show", "1", "--db", db], ["fund", "--db", db],
        ] {
            let run = try await runSentio(arguments)
            #expect(run.status == 0, "\(arguments.joined(separator: " ")): \(run.stderr)")
            await #expect(try listing() == before, "\(arguments.joined(separator: " ")) created or changed a file")
        }
    }

    @Test("60 copies of a store with seeded random bytes overwritten: backtest --db prints the same result or exits 2")
    func randomPageDamage() async throws {
        let (folder, db) = try await importedStore("sentio-page-damage")
        let arguments = ["backtest", "--strategy", "rsi", "--format", "json", "--db"]
        let clean = try await runSentio(arguments + [db])
        #expect(clean.status == 0, "\(clean.stderr)")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: db)))
        // The pages holding the column blocks (SQLite's dbstat table), where half of the rounds aim.
        let queue = try DatabaseQueue(path: db)
        let (blockPages, pageSize) = try await queue.read { db in
            (
                try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = 'bar_blocks'"),
                try Int.fetchOne(db, sql: "PRAGMA page_size")!
            )
        }
        try queue.close()
        #expect(!blockPages.isEmpty)
        var rng = SplitMix64(seed: 0xC11)
        var outcomes: [Int32: Int] = [:]
        for round in 0..<60 {
            var bytes = original
            // 1-3 runs of 1-64 random bytes: anywhere after the 100-byte file header, or in a page of bar_blocks.
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                var at = Int.random(in: 100..<bytes.count, using: &rng)
                if round % 2 == 0 {
                    let page = blockPages[Int.random(in: 0..<blockPages.count, using: &rng)]
                    at = (page - 1) * pageSize + Int.random(in: 0..<pageSize, using: &rng)
                }
                for i in at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)) {
                    bytes[i] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            let copy = folder.appendingPathComponent("copy-\(round).sqlite").path
            try Data(bytes).write(to: URL(fileURLWithPath: copy))
            let run = try await runSentio(arguments + [copy])
            outcomes[run.status, default: 0] += 1
            if run.status == 0 {
                // (The output names the store it read.)
                #expect(
                    run.stdout.replacingOccurrences(of: copy, with: db) == clean.stdout,
                    "round \(round): exit 0 with a different result")
            } else {
                #expect(run.status == 2, "round \(round): exit \(run.status): \(run.stderr)")
                #expect(run.stderr.contains(copy), "round \(round): \(run.stderr)")
            }
            for suffix in ["", "-wal", "-shm"] { unlink(copy + suffix) }
        }
        print("damaged stores: exit codes \(outcomes.sorted { $0.key < $1.key })")
    }
}
