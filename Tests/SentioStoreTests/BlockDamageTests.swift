import Foundation
import GRDB
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

#if canImport(Glibc)
import Glibc
#endif

/// Damaged stores: every load returns exactly the stored bars or fails with a typed damage error, never other bars.
@Suite("Damaged bar blocks are detected on load")
struct BlockDamageTests {
    /// Two symbols: AAA spans two blocks (8,192 + 300 bars), BBB one small block.
    static func makeStore(_ label: String, firstCount: Int = SentioDatabase.barBlockSize + 300) throws -> (SentioDatabase, [OHLCVSeries]) {
        let store = try SentioDatabase(path: try temporaryDatabasePath(label))
        let inputs = [
            randomSeries(symbol: "AAA", count: firstCount, seed: 21),
            randomSeries(symbol: "BBB", count: 200, start: 1_700_500_000, seed: 22),
        ]
        for input in inputs {
            try store.importSeries(input, sourcePath: "\(input.symbol).csv", fingerprint: input.symbol)
        }
        return (store, inputs)
    }

    /// Whether `error` is one of the typed errors a damaged file may give (never a silent success).
    static func isDamageError(_ error: any Error) -> Bool {
        if error is BlockDamage { return true }
        guard let error = error as? StoreError else { return false }
        switch error {
        case .damaged, .corrupt, .notADatabase, .truncated, .notASentioDatabase, .newerSchema: return true
        default: return false
        }
    }

    @Test("the issue's example: close 28.2439 changed to 282.439 inside a block is reported, exit-2 error naming it")
    func issueExample() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath("example"))
        var series = randomSeries(symbol: "XYZ", count: 100, seed: 5)
        // Make bar 40 close at 28.2439 with a range that would also admit 282.439 (so only the checksum can tell).
        series.open[40] = 28.0
        series.close[40] = 28.2439
        series.low[40] = 27.9
        series.high[40] = 300
        try store.importSeries(series, sourcePath: "XYZ.csv", fingerprint: "x")
        try store.pool.write { db in
            var close: [Double] = series.close
            close[40] = 282.439
            let blob = close.withUnsafeBytes { Data($0) }
            try db.execute(sql: "UPDATE bar_blocks SET close = ? WHERE symbol = 'XYZ'", arguments: [blob])
        }
        #expect(try store.pool.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        #expect(throws: StoreError.damaged(path: store.path, symbol: "XYZ", block: 1, detail: "checksum mismatch")) {
            try store.loadSeries(symbols: ["XYZ"])
        }
        let message = StoreError.damaged(path: store.path, symbol: "XYZ", block: 1, detail: "checksum mismatch").description
        #expect(message.hasPrefix("database \(store.path) is damaged (XYZ, block 1): re-import the file"))
        #expect((StoreError.damaged(path: "p", symbol: "X", block: 1, detail: "d") as any UserInputError).description
            == message.replacingOccurrences(of: store.path, with: "p").replacingOccurrences(of: "XYZ", with: "X")
            .replacingOccurrences(of: "checksum mismatch", with: "d"))
        // `integrity()` sees it too, and re-importing the file with replace repairs the block.
        #expect(try store.integrityCheck() != ["ok"])
        try store.importSeries(series, sourcePath: "XYZ.csv", fingerprint: "x", replace: true)
        #expect(sameBits(try store.loadSeries(symbols: ["XYZ"])[0], series))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test("a damaged bars-table row is not copied into rebuilt blocks by an overlapping import")
    func damagedBarsRowNotPropagated() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath("bars-row"))
        let full = randomSeries(symbol: "AAA", count: 300, seed: 9)
        try store.importSeries(full.slice(0..<200), sourcePath: "a", fingerprint: "a")
        // A value changed in the bars table only (within the bar's range, so no rule catches it).
        try store.pool.write { db in
            try db.execute(
                sql: "UPDATE bars SET close = ? WHERE symbol = 'AAA' AND timestamp = ?",
                arguments: [(full.close[50] + full.high[50]) / 2, full.timestamps[50]])
        }
        // Bars 150..<300 overlap the stored block: it is rebuilt from the bars table, which must agree first.
        #expect(throws: StoreError.self) {
            try store.importSeries(full.slice(150..<300), sourcePath: "b", fingerprint: "b")
        }
        #expect(sameBits(try store.loadSeries(symbols: ["AAA"])[0], full.slice(0..<200)))
        // The file's values repair the bars table and the blocks.
        try store.importSeries(full, sourcePath: "c", fingerprint: "c", replace: true)
        #expect(sameBits(try store.loadSeries(symbols: ["AAA"])[0], full))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test("a bar breaking the OHLC rules is refused on import")
    func importChecksBarRules() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath("rules"))
        var series = randomSeries(symbol: "AAA", count: 10, seed: 3)
        series.high[4] = series.low[4] / 2
        #expect(throws: StoreError.self) { try store.importSeries(series, sourcePath: "a", fingerprint: "a") }
        #expect(try store.instruments().isEmpty)
    }

    /// Mutates `bytes` in place: a bit flip, a byte set to a random value, or a run of 1–64 random bytes.
    static func mutate(_ bytes: inout [UInt8], in range: Range<Int>, using rng: inout SplitMix64) -> String {
        let at = Int.random(in: range, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            let bit = Int.random(in: 0..<8, using: &rng)
            bytes[at] ^= UInt8(1 << bit)
            return "bit \(bit) of byte \(at)"
        case 1:
            bytes[at] = UInt8.random(in: 0...255, using: &rng)
            return "byte \(at) set"
        default:
            let length = Int.random(in: 1...64, using: &rng)
            for i in at..<min(range.upperBound, at + length) { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
            return "\(length) bytes from \(at) overwritten"
        }
    }

    @Test("property: 4,000 random flips and overwrites inside block BLOBs and keys never load as other bars")
    func blobMutations() throws {
        let (store, inputs) = try Self.makeStore("blob-fuzz")
        var rng = SplitMix64(seed: 0xB10C)
        let columns = ["timestamps", "open", "high", "low", "close", "volume"]
        let keys = try store.pool.read {
            try Row.fetchAll($0, sql: "SELECT symbol, first_timestamp FROM bar_blocks ORDER BY symbol, first_timestamp")
        }
        var detected = 0, unchanged = 0, rejectedBySQLite = 0
        for iteration in 0..<4_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            let symbol: String = key["symbol"], first: Int64 = key["first_timestamp"]
            let input = inputs.first { $0.symbol == symbol }!
            // Half the loads ask for a random sub-range, so blocks outside it are left unread.
            var lower = Int64.min, upper = Int64.max
            if Bool.random(using: &rng) {
                let a = Int.random(in: 0..<input.count, using: &rng), b = Int.random(in: a..<input.count, using: &rng)
                lower = input.timestamps[a]
                upper = input.timestamps[b]
            }
            let expected = input.slice(
                input.timestamps.partitioningIndex { $0 >= lower }..<input.timestamps.partitioningIndex { $0 > upper })
            try store.pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN")
                defer { try? db.execute(sql: "ROLLBACK") }
                var description: String
                let target = Int.random(in: 0..<10, using: &rng)
                do {
                    if target < 7 {
                        let column = target < 6 ? columns[target] : columns[Int.random(in: 0..<6, using: &rng)]
                        var blob = [UInt8](try Data.fetchOne(
                            db, sql: "SELECT \(column) FROM bar_blocks WHERE symbol = ? AND first_timestamp = ?",
                            arguments: [symbol, first])!)
                        description = "\(column): " + Self.mutate(&blob, in: 0..<blob.count, using: &rng)
                        try db.execute(
                            sql: "UPDATE bar_blocks SET \(column) = ? WHERE symbol = ? AND first_timestamp = ?",
                            arguments: [Data(blob), symbol, first])
                    } else {
                        // An integer of the row: its key, its extent, its checksum (one bit flipped).
                        let column = ["first_timestamp", "last_timestamp", "checksum"][target - 7]
                        let bit = Int.random(in: 0..<64, using: &rng)
                        description = "\(column) bit \(bit)"
                        try db.execute(
                            sql: """
                                UPDATE bar_blocks SET \(column) = \(column) # (1 << ?) WHERE symbol = ? AND first_timestamp = ?
                                """.replacingOccurrences(of: "#", with: "^"),
                            arguments: [bit, symbol, first])
                    }
                } catch let error as DatabaseError {
                    // The schema's CHECKs (BLOB length = 8 × row_count) or the key's uniqueness refused the change.
                    _ = error
                    rejectedBySQLite += 1
                    return
                }
                do {
                    let loaded = try SentioDatabase.loadBlocks(db, symbol: symbol, from: lower, to: upper)
                    #expect(
                        SentioDatabase.sameBits(loaded, expected),
                        "case \(iteration): \(description) loaded \(loaded.count) bars, not the stored \(expected.count)")
                    unchanged += 1
                } catch let damage as BlockDamage {
                    #expect(damage.symbol == symbol)
                    detected += 1
                }
            }
        }
        #expect(detected > 2_000)
        #expect(detected + unchanged + rejectedBySQLite == 4_000)
        // Nothing was committed: the store still loads.
        #expect(sameBits(try store.loadSeries(symbols: ["AAA"])[0], inputs[0]))
    }

    @Test("property: 1,500 damaged copies of a store file (random bytes in random pages) load right or fail typed")
    func filePageMutations() throws {
        // Small symbols (one block each) keep each case cheap; the BLOB test above covers multi-block symbols.
        let (store, inputs) = try Self.makeStore("page-fuzz", firstCount: 600)
        try store.checkpoint()
        try store.close()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store.path)))
        let pageSize = Int(SQLiteHeader(Data(original))!.pageSize)
        let directory = try temporaryDirectory("sentio-page-fuzz")
        var rng = SplitMix64(seed: 0xFA6E)
        var outcomes: [String: Int] = [:]
        for iteration in 0..<1_500 {
            var bytes = original
            // 1–3 mutations, each inside one random page (page 1 holds the header and the schema).
            var descriptions: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let page = Int.random(in: 0..<(bytes.count / pageSize), using: &rng)
                descriptions.append("page \(page + 1): " + Self.mutate(&bytes, in: (page * pageSize)..<((page + 1) * pageSize), using: &rng))
            }
            let path = directory.appendingPathComponent("copy-\(iteration).sqlite").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer {
                for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            }
            // Even cases open read-write (migrations may run), odd ones read-only (immutable, no -wal/-shm).
            if iteration % 2 == 1 { chmod(path, 0o444) }
            do {
                let copy = try SentioDatabase(path: path, mode: iteration % 2 == 1 ? .readOnly : .existingOnly)
                defer { try? copy.close() }
                let all = try copy.loadSeries()
                #expect(
                    all.count == inputs.count && zip(all, inputs).allSatisfy { SentioDatabase.sameBits($0, $1) },
                    "case \(iteration) (\(descriptions.joined(separator: "; "))): loaded other bars without an error")
                let a = Int.random(in: 0..<inputs[0].count, using: &rng), b = Int.random(in: a..<inputs[0].count, using: &rng)
                let part = try copy.loadSeries(symbols: ["AAA"], from: inputs[0].timestamps[a], to: inputs[0].timestamps[b])
                #expect(SentioDatabase.sameBits(part[0], inputs[0].slice(a..<(b + 1))), "case \(iteration): range load differs")
                outcomes["same bars", default: 0] += 1
            } catch {
                #expect(Self.isDamageError(error), "case \(iteration) (\(descriptions.joined(separator: "; "))): untyped error \(error)")
                let kind = Mirror(reflecting: error).children.first?.label ?? "\(type(of: error))"
                outcomes[kind, default: 0] += 1
            }
        }
        #expect(outcomes.values.reduce(0, +) == 1_500)
        #expect((outcomes["damaged"] ?? 0) > 0)
        print("page mutation outcomes: \(outcomes.sorted { $0.key < $1.key })")
    }

    @Test("a store opened read-only (0444 file) reads its bars and creates or changes no file")
    func readOnlyOpen() throws {
        let (store, inputs) = try Self.makeStore("readonly")
        try store.checkpoint()
        try store.close()
        let directory = URL(fileURLWithPath: store.path).deletingLastPathComponent().path
        func listing() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            }
            return files
        }
        // Twice: with the (empty) -wal/-shm a closed writer may leave, and with none at all.
        for pass in 0..<2 {
            if pass == 1 {
                for suffix in ["-wal", "-shm"] { unlink(store.path + suffix) }
            }
            chmod(store.path, 0o444)
            defer { chmod(store.path, 0o644) }
            let before = try listing()
            let reader = try SentioDatabase(path: store.path, mode: .readOnly)
            #expect(reader.isReadOnly)
            #expect(SentioDatabase.sameBits(try reader.loadSeries(symbols: ["BBB"])[0], inputs[1]))
            #expect(try reader.runs().isEmpty)
            #expect(throws: StoreError.readOnly(path: store.path)) {
                try reader.importSeries(inputs[1], sourcePath: "x", fingerprint: "other", replace: true)
            }
            #expect(try listing() == before, "pass \(pass): files created or changed")
            try reader.close()
            #expect(try listing() == before, "pass \(pass): files created or changed by closing")
            if pass == 1 {
                #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"))
                #expect(!FileManager.default.fileExists(atPath: store.path + "-shm"))
            }
        }
    }

    @Test("read-only opening works for a path with spaces, %, ?, # and non-ASCII characters")
    func readOnlyOddPath() throws {
        let folder = try temporaryDirectory("sentio-odd path")
        let path = folder.appendingPathComponent("börse 100%?#x.sqlite").path
        let store = try SentioDatabase(path: path)
        let series = randomSeries(symbol: "ÄÖ", count: 50, seed: 8)
        try store.importSeries(series, sourcePath: "x", fingerprint: "x")
        try store.close()
        chmod(path, 0o444)
        defer { chmod(path, 0o644) }
        let reader = try SentioDatabase(path: path, mode: .readOnly)
        #expect(reader.isReadOnly)
        #expect(SentioDatabase.sameBits(try reader.loadSeries(symbols: ["ÄÖ"])[0], series))
        #expect(SentioDatabase.uri(forPath: "/a b/ü%?#.db") == "file:/a%20b/%C3%BC%25%3F%23.db")
    }

    @Test("an empty path is a typed error")
    func emptyPath() {
        #expect(throws: StoreError.cannotOpen(path: "''", reason: "the path is empty")) { try SentioDatabase(path: "") }
    }

    @Test("a version-2 store migrates to checksummed blocks; a block that disagrees with bars stays unverified")
    func migrationChecksumsOnlyAgreeingBlocks() throws {
        let path = try temporaryDatabasePath("v2")
        let queue = try DatabaseQueue(path: path)
        let good = randomSeries(symbol: "GOOD", count: 50, seed: 1)
        let bad = randomSeries(symbol: "BAD", count: 50, seed: 2)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: Schema.version1)
            try db.execute(sql: Schema.version2)
            try db.execute(sql: "PRAGMA user_version = 2; PRAGMA application_id = \(Schema.applicationID)")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v1-market-data'), ('v2-runs-signals-funds')")
            for series in [good, bad] {
                try db.execute(
                    sql: "INSERT INTO instruments (symbol, bar_count, first_timestamp, last_timestamp, updated_at) VALUES (?, ?, ?, ?, 0)",
                    arguments: [series.symbol, series.count, series.timestamps.first, series.timestamps.last])
                for i in 0..<series.count {
                    let bar = series[bar: i]
                    try db.execute(
                        sql: "INSERT INTO bars VALUES (?, ?, ?, ?, ?, ?, ?)",
                        arguments: [series.symbol, bar.timestamp, bar.open, bar.high, bar.low, bar.close, bar.volume])
                }
                var close = series.close
                if series.symbol == "BAD" { close[7] = close[7].nextUp }  // the block disagrees with the bars table
                func blob<T>(_ values: [T]) -> Data { values.withUnsafeBytes { Data($0) } }
                try db.execute(
                    sql: "INSERT INTO bar_blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [
                        series.symbol, series.timestamps.first, series.timestamps.last, series.count,
                        blob(series.timestamps), blob(series.open), blob(series.high), blob(series.low), blob(close),
                        blob(series.volume),
                    ])
            }
        }
        try queue.close()

        // Read-only before any upgrade: no checksums yet, blocks checked against the bars table.
        chmod(path, 0o444)
        let reader = try SentioDatabase(path: path, mode: .readOnly)
        #expect(try reader.storedSchemaVersion() == 2)
        #expect(sameBits(try reader.loadSeries(symbols: ["GOOD"])[0], good))
        #expect(throws: StoreError.damaged(path: path, symbol: "BAD", block: nil, detail: "its column blocks differ from its bars table")) {
            try reader.loadSeries(symbols: ["BAD"])
        }
        try reader.close()
        chmod(path, 0o644)

        let store = try SentioDatabase(path: path, mode: .existingOnly)
        #expect(try store.storedSchemaVersion() == SentioDatabase.schemaVersion)
        #expect(sameBits(try store.loadSeries(symbols: ["GOOD"])[0], good))
        #expect(throws: StoreError.self) { try store.loadSeries(symbols: ["BAD"]) }
        do {
            _ = try store.loadSeries(symbols: ["BAD"])
        } catch let StoreError.damaged(_, symbol, block, detail) {
            #expect(symbol == "BAD" && block == 1 && detail.contains("no checksum"))
        }
        // Re-importing with replace rebuilds the block from the bars table, checksummed.
        try store.importSeries(bad, sourcePath: "BAD.csv", fingerprint: "b", replace: true)
        #expect(sameBits(try store.loadSeries(symbols: ["BAD"])[0], bad))
    }
}

extension Array where Element == Int64 {
    /// The first index whose element satisfies `belongs` (false...false true...true).
    func partitioningIndex(where belongs: (Int64) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
