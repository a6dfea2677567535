import Foundation
import GRDB
import SentioCore
import SentioTestSupport
import Testing
@testable import SentioStore

@Suite("Bars: import and load")
struct BarsTests {
    @Test("import then load gives back the same bits, for several symbols and sub-ranges")
    func roundTrip() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let inputs = (0..<4).map { randomSeries(symbol: "S\($0)", count: 3_000 + 500 * $0, seed: UInt64(10 + $0)) }
        for input in inputs {
            let report = try store.importSeries(input, sourcePath: "\(input.symbol).csv", fingerprint: "fp-\(input.symbol)")
            #expect(report.outcome == .imported)
            #expect(report.inserted == input.count)
            #expect(report.identical == 0 && report.conflicts == 0 && report.replaced == 0)
        }
        let loaded = try store.loadSeries(symbols: ["S3", "S0", "S2", "S1"])
        #expect(loaded.map(\.symbol) == ["S3", "S0", "S2", "S1"])
        for series in loaded {
            let input = inputs.first { $0.symbol == series.symbol }!
            #expect(sameBits(series, input))
        }
        #expect(try store.loadSeries().map(\.symbol) == ["S0", "S1", "S2", "S3"])

        // Inclusive bounds select exactly the slice.
        let input = inputs[1]
        let from = input.timestamps[100], to = input.timestamps[2_000]
        let part = try store.loadSeries(symbols: ["S1"], from: from, to: to)[0]
        #expect(sameBits(part, input.slice(100..<2_001)))
        let afterEnd = try store.loadSeries(symbols: ["S1"], from: input.timestamps.last! + 1)[0]
        #expect(afterEnd.isEmpty)

        let summary = try store.instruments().first { $0.symbol == "S1" }!
        #expect(summary.barCount == input.count)
        #expect(summary.firstTimestamp == input.timestamps.first)
        #expect(summary.lastTimestamp == input.timestamps.last)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test("re-importing an identical file changes nothing and says so")
    func identicalReimport() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let series = randomSeries(symbol: "AAA", count: 2_000, seed: 5)
        let first = try store.importSeries(series, sourcePath: "a/AAA.csv", fingerprint: "abc")
        #expect(first.outcome == .imported)
        let logBefore = try store.importLog()
        let dataVersionBefore = try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bars") }

        let second = try store.importSeries(series, sourcePath: "b/AAA.csv", fingerprint: "abc")
        guard case .unchanged(let previousPath, _, 0) = second.outcome else {
            Issue.record("expected unchanged, got \(second.outcome)")
            return
        }
        #expect(previousPath == "a/AAA.csv")
        #expect(second.inserted == 0)
        #expect(second.description.contains("unchanged"))
        #expect(try store.importLog() == logBefore)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bars") } == dataVersionBefore)

        // The same rows under another fingerprint are merged: all identical, nothing new.
        let third = try store.importSeries(series, sourcePath: "c/AAA.csv", fingerprint: "other")
        #expect(third.outcome == .imported)
        #expect(third.identical == series.count && third.inserted == 0 && third.conflicts == 0)
        #expect(try store.instruments()[0].barCount == series.count)
    }

    @Test("overlapping data: conflicts are counted exactly and stored rows kept unless replace")
    func overlapAndConflicts() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let original = randomSeries(symbol: "AAA", count: 1_000, seed: 6)
        try store.importSeries(original, sourcePath: "old.csv", fingerprint: "old")

        // New file: bars 500..<1500 (500 overlapping, 500 new); change some of the overlapping bars.
        var incoming = randomSeries(symbol: "AAA", count: 1_500, seed: 6).slice(500..<1_500)
        var rng = SplitMix64(seed: 77)
        var changedIndices = Set<Int>()
        while changedIndices.count < 37 { changedIndices.insert(Int.random(in: 0..<500, using: &rng)) }
        for i in changedIndices {
            incoming.close[i] += 0.01
            incoming.high[i] = max(incoming.high[i], incoming.close[i])  // still a valid bar (high >= close)
        }
        let expectedConflictTimestamps = changedIndices.sorted().map { incoming.timestamps[$0] }

        let report = try store.importSeries(incoming, sourcePath: "new.csv", fingerprint: "new")
        #expect(report.inserted == 500)
        #expect(report.conflicts == 37)
        #expect(report.identical == 500 - 37)
        #expect(report.replaced == 0)
        #expect(report.conflictSamples.map(\.timestamp) == Array(expectedConflictTimestamps.prefix(5)))
        let sample = report.conflictSamples[0]
        let index = original.timestamps.firstIndex(of: sample.timestamp)!
        #expect(sample.stored == original[bar: index])
        #expect(sample.incoming.close == original.close[index] + 0.01)
        #expect(report.description.contains("37 conflicts"))

        var merged = try store.loadSeries(symbols: ["AAA"])[0]
        #expect(merged.count == 1_500)
        #expect(sameBits(merged.prefix(1_000), original))  // stored rows kept
        #expect(try store.instruments()[0].barCount == 1_500)

        // With replace, the conflicting rows take the file's values and only those change.
        let replaced = try store.importSeries(incoming, sourcePath: "new.csv", fingerprint: "new", replace: true)
        #expect(replaced.conflicts == 37 && replaced.replaced == 37 && replaced.inserted == 0)
        merged = try store.loadSeries(symbols: ["AAA"])[0]
        #expect(sameBits(merged.slice(500..<1_500), incoming))
        #expect(sameBits(merged.prefix(500), original.prefix(500)))
        #expect(try store.instruments()[0].barCount == 1_500)

        // The old file was overwritten in part, so re-importing it is not "unchanged": it reports the conflicts.
        let again = try store.importSeries(original, sourcePath: "old.csv", fingerprint: "old")
        #expect(again.outcome == .imported)
        #expect(again.conflicts == 37)
    }

    @Test("column blocks stay equal to the bars table through appends, overlaps, gaps and replaces")
    func blocksFollowBars() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        let blockSize = SentioDatabase.barBlockSize
        // One long reference series; import pieces of it (and altered copies) in an awkward order.
        let full = randomSeries(symbol: "AAA", count: 3 * blockSize + 123, seed: 21)
        var expected = [Int64: Bar]()
        func importPiece(_ range: Range<Int>, shift: Double = 0, replace: Bool = false) throws {
            var piece = full.slice(range)
            for i in 0..<piece.count { piece.close[i] += shift; piece.high[i] += shift }
            let report = try store.importSeries(piece, sourcePath: "p", fingerprint: "\(range)-\(shift)", replace: replace)
            for i in 0..<piece.count where expected[piece.timestamps[i]] == nil || replace {
                expected[piece.timestamps[i]] = piece[bar: i]
            }
            #expect(report.inserted + report.identical + report.conflicts == piece.count)
        }
        try importPiece(blockSize..<(blockSize + 500))  // middle first
        for start in stride(from: blockSize + 500, to: blockSize + 520, by: 1) {
            try importPiece(start..<(start + 1))  // one-bar appends must not fragment the blocks
        }
        try importPiece(0..<100)  // before, with a gap
        try importPiece(50..<(2 * blockSize))  // overlapping both, filling the gap
        try importPiece(300..<400, shift: 1)  // conflicts kept
        try importPiece(350..<450, shift: 2, replace: true)  // conflicts replaced
        try importPiece((2 * blockSize)..<full.count)  // append the rest

        let blockCount = try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bar_blocks") ?? 0 }
        #expect(blockCount <= 6, "blocks fragmented: \(blockCount)")
        #expect(try store.integrityCheck() == ["ok"])
        let loaded = try store.loadSeries(symbols: ["AAA"])[0]
        let keys = expected.keys.sorted()
        #expect(loaded.timestamps == keys)
        #expect((0..<loaded.count).allSatisfy { loaded[bar: $0] == expected[keys[$0]]! })
        // Ranges cutting through blocks.
        for (a, b) in [(0, 1), (17, blockSize + 3), (blockSize - 1, blockSize), (2 * blockSize + 5, full.count - 1)] {
            let part = try store.loadSeries(symbols: ["AAA"], from: keys[a], to: keys[b])[0]
            #expect(part == loaded.slice(a..<(b + 1)))
        }
    }

    @Test("the integrity check notices bar blocks that disagree with the bars table")
    func integrityNoticesBlockMismatch() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        try store.importSeries(randomSeries(symbol: "AAA", count: 100, seed: 4), sourcePath: "a", fingerprint: "a")
        try store.pool.write { try $0.execute(sql: "UPDATE bars SET close = close + 1 WHERE timestamp = 1700000060") }
        let messages = try store.integrityCheck()
        #expect(messages.count == 1 && messages[0].contains("bar blocks of AAA differ"))
        #expect(throws: StoreError.self) { try store.verifyIntegrity() }
    }

    @Test("an unstorable series is rejected and nothing is written")
    func invalidSeries() throws {
        let store = try SentioDatabase(path: try temporaryDatabasePath())
        var series = randomSeries(symbol: "AAA", count: 10, seed: 7)
        series.timestamps[5] = series.timestamps[4]
        #expect(throws: StoreError.self) { try store.importSeries(series, sourcePath: "x.csv", fingerprint: "x") }
        var nan = randomSeries(symbol: "AAA", count: 10, seed: 7)
        nan.high[3] = .nan
        #expect(throws: StoreError.self) { try store.importSeries(nan, sourcePath: "x.csv", fingerprint: "x") }
        #expect(try store.instruments().isEmpty)
        #expect(try store.importLog().isEmpty)
        #expect(throws: StoreError.unknownSymbol(symbol: "AAA", path: store.path)) {
            try store.loadSeries(symbols: ["AAA"])
        }
    }

    @Test("WAL: a second connection reads the committed state while a write transaction is open")
    func readerDuringWrite() throws {
        let path = try temporaryDatabasePath()
        let writer = try SentioDatabase(path: path)
        let reader = try SentioDatabase(path: path, mode: .existingOnly, busyTimeoutSeconds: 0.1)
        let before = randomSeries(symbol: "AAA", count: 1_000, seed: 8)
        try writer.importSeries(before, sourcePath: "a.csv", fingerprint: "a")

        let during = try writer.pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "INSERT INTO instruments (symbol, updated_at) VALUES ('BBB', 0)")
                try db.execute(sql: "INSERT INTO bars VALUES ('BBB', 1, 1, 1, 1, 1, 1)")
                try db.execute(sql: "DELETE FROM bars WHERE symbol = 'AAA' AND timestamp > ?", arguments: [before.timestamps[9]])
                // The writer holds the write lock here; the reader must neither block nor see uncommitted rows.
                let seen = try reader.loadSeries()
                #expect(seen.map(\.symbol) == ["AAA"])
                #expect(sameBits(seen[0], before))
                return .rollback
            }
            return try reader.loadSeries()
        }
        #expect(during.count == 1 && sameBits(during[0], before))
        // A writer from the second connection waits for the lock and then fails with a typed error.
        try writer.pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                #expect(throws: StoreError.busy(path: path, timeoutSeconds: 0.1)) {
                    try reader.importSeries(randomSeries(symbol: "CCC", count: 3, seed: 1), sourcePath: "c", fingerprint: "c")
                }
                return .commit
            }
        }
    }
}
