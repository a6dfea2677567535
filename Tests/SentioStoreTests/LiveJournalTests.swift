import Foundation
import GRDB
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioStore

@Suite("Live journal")
struct LiveJournalTests {
    /// A random input: mostly bars of a few symbols, sometimes a step closed by the grace delay.
    static func randomInputs(count: Int, start: Int64, rng: inout SplitMix64) -> [LiveJournalInput] {
        let symbols = ["TQQQ", "SQQQ", "SOXL", "Ünï", "a\"b"]
        var inputs: [LiveJournalInput] = []
        var t = start
        var used = Set<String>()
        for _ in 0..<count {
            if rng.next() % 10 == 0 {
                inputs.append(.stepClosed(timestamp: t))
                continue
            }
            if rng.next() % 3 == 0 { t += 60; used.removeAll() }
            let candidates = symbols.filter { !used.contains($0) }
            if candidates.isEmpty { t += 60; used.removeAll(); continue }
            let symbol = candidates[Int(rng.next() % UInt64(candidates.count))]
            used.insert(symbol)
            // Arbitrary doubles (bit patterns of finite values), so the round trip is checked on every bit.
            func value() -> Double {
                var x: Double
                repeat { x = Double(bitPattern: rng.next()) } while !x.isFinite
                return x
            }
            inputs.append(.bar(symbol: symbol, bar: Bar(timestamp: t, open: value(), high: value(), low: value(), close: value(), volume: value())))
        }
        return inputs
    }

    static func bitsEqual(_ a: LiveJournalInput, _ b: LiveJournalInput) -> Bool {
        switch (a, b) {
        case (.stepClosed(let x), .stepClosed(let y)): return x == y
        case (.bar(let s, let x), .bar(let r, let y)):
            return s == r && x.timestamp == y.timestamp && x.open.bitPattern == y.open.bitPattern
                && x.high.bitPattern == y.high.bitPattern && x.low.bitPattern == y.low.bitPattern
                && x.close.bitPattern == y.close.bitPattern && x.volume.bitPattern == y.volume.bitPattern
        default: return false
        }
    }

    /// Seeded: random batches of inputs, events and snapshots, committed and read back after reopening the file.
    @Test(arguments: [1 as UInt64, 2, 3, 4, 5, 6, 7, 8])
    func committedBatchesReadBackExactlyAfterReopening(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let path = try temporaryDatabasePath("live")
        var all: [LiveJournalInput] = []
        var events: [(Int64, String, String)] = []
        var snapshots: [Int64] = []
        do {
            let journal = try LiveJournal(database: try SentioDatabase(path: path))
            try journal.start(configurationJSON: #"{"seed": \#(seed)}"#, resetting: false)
            var start: Int64 = 1_700_000_000
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                var batch = LiveJournalBatch()
                let inputs = Self.randomInputs(count: Int(rng.next() % 40), start: start, rng: &rng)
                start += 60 * 50
                for (k, input) in inputs.enumerated() {
                    batch.append(input)
                    if rng.next() % 4 == 0 {
                        let seq = journal.lastInputSeq + Int64(k + 1)
                        let json = #"{"type": "fill", "n": \#(events.count)}"#
                        batch.appendEvent(type: "fill", json: json, inputSeq: seq)
                        events.append((seq, "fill", json))
                    }
                }
                if rng.next() % 2 == 0 {
                    let covered = journal.lastInputSeq + Int64(inputs.count)
                    batch.setSnapshot(Data("state \(covered)".utf8), coveringInput: covered)
                    snapshots.append(covered)
                }
                try journal.commit(&batch)
                #expect(batch.isEmpty)
                all += inputs
            }
        }
        let journal = try LiveJournal(database: try SentioDatabase(path: path))
        #expect(journal.lastInputSeq == Int64(all.count))
        #expect(try journal.configurationJSON() == #"{"seed": \#(seed)}"#)
        var read: [(Int64, LiveJournalInput)] = []
        try journal.forEachInput(after: 0) { read.append(($0, $1)) }
        #expect(read.map(\.0) == Array(1...Int64(max(1, all.count))).prefix(all.count).map { $0 })
        #expect(read.count == all.count)
        for (k, input) in all.enumerated() where k < read.count {
            #expect(Self.bitsEqual(read[k].1, input), "input \(k + 1)")
        }
        // The tail after any point is the suffix.
        let cut = Int64(rng.next() % UInt64(all.count + 1))
        var tail = 0
        try journal.forEachInput(after: cut) { seq, _ in
            #expect(seq > cut)
            tail += 1
        }
        #expect(tail == all.count - Int(cut))
        // Events in order with the input they followed.
        let stored = try journal.events()
        #expect(stored.map(\.seq) == (0..<events.count).map { Int64($0 + 1) })
        #expect(stored.map(\.inputSeq) == events.map(\.0))
        #expect(stored.map(\.json) == events.map(\.2))
        // The newest snapshot, and at most two kept.
        #expect(try journal.latestSnapshot()?.inputSeq == snapshots.last)
        if let last = snapshots.last { #expect(try journal.latestSnapshot()?.state == Data("state \(last)".utf8)) }
        let kept = try journal.database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM live_snapshots") }
        #expect(kept == min(2, Set(snapshots).count))
        // Every bar can be looked up; each symbol's last timestamp is its newest bar.
        var newest: [String: Int64] = [:]
        for case .bar(let symbol, let bar) in all {
            newest[symbol] = max(newest[symbol] ?? .min, bar.timestamp)
            let found = try journal.storedBar(symbol: symbol, timestamp: bar.timestamp)
            #expect(found.map { Self.bitsEqual(.bar(symbol: symbol, bar: $0), .bar(symbol: symbol, bar: bar)) } == true)
        }
        for (symbol, t) in newest { #expect(journal.lastTimestamp(symbol: symbol) == t) }
        #expect(try journal.storedBar(symbol: "TQQQ", timestamp: 1) == nil)
        #expect(try journal.storedBar(symbol: "NEVER", timestamp: 1_700_000_000) == nil)
        #expect(try journal.barCount() == all.filter { if case .bar = $0 { true } else { false } }.count)
    }

    /// A batch that cannot be written (here: a second bar for a stored symbol and time) writes nothing at all and
    /// leaves the journal's counters and the batch as they were.
    @Test func aFailedCommitWritesNothing() throws {
        let journal = try LiveJournal(database: try SentioDatabase(path: try temporaryDatabasePath("live")))
        let bar = Bar(timestamp: 60, open: 1, high: 2, low: 0.5, close: 1.5, volume: 10)
        var batch = LiveJournalBatch()
        batch.append(.bar(symbol: "A", bar: bar))
        try journal.commit(&batch)
        batch.append(.bar(symbol: "B", bar: bar))
        batch.appendEvent(type: "order", json: "{}", inputSeq: 2)
        batch.append(.bar(symbol: "A", bar: bar))
        #expect(throws: (any Error).self) { try journal.commit(&batch) }
        #expect(batch.inputCount == 2 && batch.eventCount == 1)
        #expect(journal.lastInputSeq == 1 && journal.lastEventSeq == 0)
        #expect(journal.lastTimestamp(symbol: "B") == nil)
        #expect(try journal.events().isEmpty)
        #expect(try journal.barCount() == 1)
        // The journal goes on after the failure: a new symbol gets a fresh id.
        var next = LiveJournalBatch()
        next.append(.bar(symbol: "B", bar: bar))
        try journal.commit(&next)
        #expect(try journal.storedBar(symbol: "B", timestamp: 60) == bar)
        let reopened = try LiveJournal(database: journal.database)
        #expect(reopened.lastInputSeq == 2)
    }

    /// The paper brokerage's rows of a batch go in the journal's commit (`sentio serve`: one transaction, one fsync,
    /// per batch for both): written together, or — when either part cannot be written — neither.
    @Test func aJointCommitWritesTheInvestingRowsInTheSameTransaction() throws {
        let journal = try LiveJournal(database: try SentioDatabase(path: try temporaryDatabasePath("live")))
        let bar = Bar(timestamp: 60, open: 1, high: 2, low: 0.5, close: 1.5, volume: 10)
        var batch = LiveJournalBatch()
        batch.append(.bar(symbol: "A", bar: bar))
        var rows = InvestingRows()
        rows.investors = [StoredInvestor(id: "u", email: nil, firstName: nil, lastName: nil, status: "ACTIVE", createdAt: 0)]
        rows.marks = [StoredFeedMark(symbol: "A", time: 60, open: 1, close: 1.5, previousClose: nil)]
        try journal.commit(&batch, alongside: rows)
        #expect(batch.isEmpty && journal.lastInputSeq == 1)
        #expect(try journal.database.loadInvesting() == rows)
        // Rows alone (no journal input) are still written.
        var empty = LiveJournalBatch()
        var fx = InvestingRows()
        fx.fx = [StoredFXDay(day: 1, rate: 1.25)]
        try journal.commit(&empty, alongside: fx)
        #expect(try journal.database.loadInvesting().fx == fx.fx)

        // A transfer the schema refuses (amount ≤ 0): the bar is not journaled either, and the reverse.
        let later = Bar(timestamp: 120, open: 1, high: 2, low: 0.5, close: 1.5, volume: 10)
        batch.append(.bar(symbol: "A", bar: later))
        var bad = InvestingRows()
        bad.marks = [StoredFeedMark(symbol: "A", time: 120, open: 1, close: 1.5, previousClose: 1.5)]
        bad.transfers = [StoredPaperTransfer(id: "t", userID: "u", direction: "INCOMING", amount: -1, currency: "GBP", status: "COMPLETE", createdAt: 0, sequence: 1)]
        #expect(throws: (any Error).self) { try journal.commit(&batch, alongside: bad) }
        #expect(journal.lastInputSeq == 1 && batch.inputCount == 1)
        #expect(try journal.barCount() == 1)
        #expect(try journal.database.loadInvesting().marks == rows.marks)
        var conflicting = LiveJournalBatch()
        conflicting.append(.bar(symbol: "A", bar: bar))  // a second bar at a journaled time
        var good = InvestingRows()
        good.marks = bad.marks
        #expect(throws: (any Error).self) { try journal.commit(&conflicting, alongside: good) }
        #expect(try journal.database.loadInvesting().marks == rows.marks)
        try journal.commit(&batch, alongside: good)
        #expect(journal.lastInputSeq == 2)
        #expect(try journal.database.loadInvesting().marks == good.marks)
    }

    @Test func resetDeletesEventsAndSnapshotsAndKeepsTheBars() throws {
        let journal = try LiveJournal(database: try SentioDatabase(path: try temporaryDatabasePath("live")))
        try journal.start(configurationJSON: #"{"a": 1}"#, resetting: false)
        var batch = LiveJournalBatch()
        batch.append(.bar(symbol: "A", bar: Bar(timestamp: 60, open: 1, high: 1, low: 1, close: 1, volume: 0)))
        batch.append(.stepClosed(timestamp: 60))
        batch.appendEvent(type: "rejected", json: #"{"x": 1}"#, inputSeq: 1)
        batch.setSnapshot(Data([1, 2, 3]), coveringInput: 2)
        try journal.commit(&batch)
        #expect(try journal.events().count == 1)
        try journal.start(configurationJSON: #"{"a": 2}"#, resetting: true)
        #expect(try journal.configurationJSON() == #"{"a": 2}"#)
        #expect(try journal.events().isEmpty)
        #expect(try journal.latestSnapshot() == nil)
        var inputs: [LiveJournalInput] = []
        try journal.forEachInput(after: 0) { inputs.append($1) }
        #expect(inputs.count == 2)
        #expect(throws: StoreError.invalidRecord(kind: "live session configuration", detail: "not valid JSON")) {
            try journal.start(configurationJSON: "{not json", resetting: false)
        }
    }

    @Test(arguments: LiveJournal.Synchronous.allCases)
    func theWriterRunsAtTheChosenSynchronousLevel(level: LiveJournal.Synchronous) throws {
        let journal = try LiveJournal(
            database: try SentioDatabase(path: try temporaryDatabasePath("live")), synchronous: level)
        let value = try journal.database.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(value == (level == .full ? 2 : 1))
        let mode = try journal.database.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }
}
