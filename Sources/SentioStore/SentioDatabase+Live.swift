import Foundation
import GRDB
import GRDBSQLite
import SentioCore

extension SentioDatabase {
    /// The live-session journal (migration "v4-live-journal"); see ``LiveJournal``.
    ///
    /// - `live_session`: the one session's configuration (JSON written by the engine) and when it started.
    /// - `live_symbols`: a small id per symbol (keeps the 12-million-row input table and its index narrow) and the
    ///   latest timestamp journaled for it.
    /// - `live_inputs`: every accepted input in acceptance order (`seq` 1, 2, ...): a bar (`symbol_id` and all five
    ///   values set) or a step closed by the grace delay (`symbol_id` and the values NULL, `timestamp` = the step).
    ///   The unique index answers "is there a stored bar for this symbol and timestamp" for duplicates and conflicts.
    /// - `live_events`: orders, fills and rejections as emitted (`event_json` in the contract's shape), each with the
    ///   input `seq` that was the latest accepted input when it was emitted.
    /// - `live_snapshots`: engine state blobs covering inputs `1...input_seq` (the engine writes states without the
///   session's history, so their size does not grow with it).
    static let liveJournalSchema = """
        CREATE TABLE live_session (
            id                 INTEGER PRIMARY KEY CHECK (id = 1),
            configuration_json TEXT NOT NULL CHECK (json_valid(configuration_json)),
            started_at         INTEGER NOT NULL
        );
        CREATE TABLE live_symbols (
            id             INTEGER PRIMARY KEY,
            symbol         TEXT NOT NULL UNIQUE CHECK (length(symbol) > 0),
            last_timestamp INTEGER NOT NULL
        );
        CREATE TABLE live_inputs (
            seq       INTEGER PRIMARY KEY,
            symbol_id INTEGER,
            timestamp INTEGER NOT NULL,
            open      REAL,
            high      REAL,
            low       REAL,
            close     REAL,
            volume    REAL,
            CHECK ((symbol_id IS NULL) = (open IS NULL) AND (open IS NULL) = (volume IS NULL))
        );
        CREATE UNIQUE INDEX live_inputs_by_symbol ON live_inputs(symbol_id, timestamp);
        CREATE TABLE live_events (
            seq        INTEGER PRIMARY KEY,
            input_seq  INTEGER NOT NULL,
            type       TEXT NOT NULL,
            event_json TEXT NOT NULL CHECK (json_valid(event_json))
        );
        CREATE TABLE live_snapshots (
            input_seq  INTEGER PRIMARY KEY,
            state      BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        """
}

/// One accepted input of a live session, in the order it was accepted.
public enum LiveJournalInput: Sendable, Equatable {
    /// A bar of `symbol`.
    case bar(symbol: String, bar: Bar)
    /// The step at `timestamp` was closed by the grace delay before every symbol delivered its bar (wall-clock
    /// time is not reproducible, so the decision itself is journaled and replayed).
    case stepClosed(timestamp: Int64)
}

/// An event as journaled: its sequence number, the input it followed, its type and its JSON.
public struct LiveJournalEvent: Sendable, Equatable {
    public var seq: Int64
    /// The latest accepted input when the event was emitted (0 before any).
    public var inputSeq: Int64
    public var type: String
    public var json: String
}

/// The work of one group commit: inputs, events, optionally a snapshot; written in one transaction.
public struct LiveJournalBatch: Sendable {
    var inputs: [LiveJournalInput] = []
    var events: [(inputSeq: Int64, type: String, json: String)] = []
    var snapshot: (inputSeq: Int64, state: Data)?

    public init() {}

    public var isEmpty: Bool { inputs.isEmpty && events.isEmpty && snapshot == nil }
    public var inputCount: Int { inputs.count }
    public var eventCount: Int { events.count }
    public var hasSnapshot: Bool { snapshot != nil }

    /// Adds an accepted input; it gets the sequence number after the journal's last one and this batch's earlier
    /// inputs.
    public mutating func append(_ input: LiveJournalInput) { inputs.append(input) }

    /// Adds an event (JSON text) emitted when `inputSeq` was the latest applied input (0: none).
    public mutating func appendEvent(type: String, json: String, inputSeq: Int64) {
        events.append((inputSeq, type, json))
    }

    /// Adds a snapshot of the engine state after inputs `1...inputSeq`.
    public mutating func setSnapshot(_ state: Data, coveringInput inputSeq: Int64) { snapshot = (inputSeq, state) }

    /// The bar of `symbol` at `timestamp` among this batch's inputs (not yet committed), if any.
    public func pendingBar(symbol: String, timestamp: Int64) -> Bar? {
        for input in inputs.reversed() {
            if case .bar(let s, let bar) = input, s == symbol, bar.timestamp == timestamp { return bar }
        }
        return nil
    }

    public mutating func removeAll() {
        inputs.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        snapshot = nil
    }
}

/// A snapshot as stored: the engine state after inputs `1...inputSeq`.
public struct LiveJournalSnapshot: Sendable, Equatable {
    public var inputSeq: Int64
    public var state: Data
}

/// The durable journal of a live paper-trading session, kept in a Sentio store.
///
/// **Write-ahead rule.** The caller appends to a ``LiveJournalBatch`` every input it accepted and every event
/// (order, fill, rejection) it emitted, and calls ``commit(_:alongside:)``; only after `commit` returns may it acknowledge the
/// inputs or publish the events. One commit is one SQLite transaction (group commit: a command batches the bars it
/// read in one chunk of input), so a process killed at any moment leaves the journal at a batch boundary.
///
/// **Synchronous setting.** The store runs in WAL mode. The journal sets `PRAGMA synchronous = FULL` on the
/// writer connection by default: each commit fsyncs the WAL, so an acknowledged batch survives a power loss or an
/// operating-system crash, not only a killed process. With `.normal` a commit only writes the WAL (fsync at
/// checkpoints): a killed process (even SIGKILL) still loses nothing committed, but a power loss can roll back the
/// commits since the last checkpoint (up to ~1000 WAL pages, SQLite's default auto-checkpoint), never leaving the
/// file inconsistent. Measured costs are in the store's DocC catalogue (Journal article).
///
/// **Restart.** The engine state is rebuilt from the newest snapshot (``latestSnapshot()``) and the inputs after
/// it (`forEachInput(...)`); the caller takes a snapshot every N inputs so the tail stays short.
public final class LiveJournal {
    /// The `PRAGMA synchronous` level of the writer connection.
    public enum Synchronous: String, Sendable, CaseIterable {
        /// fsync the WAL on every commit: a committed batch survives power loss.
        case full
        /// fsync only at checkpoints: a committed batch survives a killed process, not a power loss.
        case normal
    }

    public let database: SentioDatabase
    public let synchronous: Synchronous
    /// The sequence number of the latest committed input (0 when none).
    public private(set) var lastInputSeq: Int64 = 0
    /// The sequence number of the latest committed event (0 when none).
    public private(set) var lastEventSeq: Int64 = 0
    private var symbolIDs: [String: Int64] = [:]
    private var lastTimestamps: [String: Int64] = [:]

    /// Opens the journal in `database`, setting the writer's synchronous level and loading the symbol table.
    ///
    /// - Throws: `StoreError` for database problems.
    public init(database: SentioDatabase, synchronous: Synchronous = .full) throws {
        self.database = database
        self.synchronous = synchronous
        try database.withStoreErrors {
            try database.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
            }
            try database.pool.read { db in
                for row in try LiveSymbolRecord.fetchAll(db) {
                    symbolIDs[row.symbol] = row.id
                    lastTimestamps[row.symbol] = row.lastTimestamp
                }
                lastInputSeq = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM live_inputs") ?? 0
                lastEventSeq = try LiveEventRecord.select(max(LiveEventRecord.Columns.seq), as: Int64.self).fetchOne(db) ?? 0
            }
        }
    }

    // MARK: - Session configuration

    /// The stored session configuration (JSON), or `nil` when no session was started.
    public func configurationJSON() throws -> String? {
        try database.withStoreErrors {
            try database.pool.read {
                try LiveSessionRecord.select(LiveSessionRecord.Columns.configurationJSON, as: String.self).fetchOne($0)
            }
        }
    }

    /// Stores the session configuration. With `resetting`, first deletes the events and snapshots (the inputs —
    /// the bars and journaled step closes — are kept, to be replayed under the new configuration).
    ///
    /// - Throws: `StoreError.invalidRecord` when `json` is not valid JSON, other `StoreError`s for the database.
    public func start(configurationJSON json: String, resetting: Bool) throws {
        try database.withStoreErrors {
            try database.pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT json_valid(?)", arguments: [json]) == true else {
                    throw StoreError.invalidRecord(kind: "live session configuration", detail: "not valid JSON")
                }
                if resetting {
                    try LiveEventRecord.deleteAll(db)
                    try LiveSnapshotRecord.deleteAll(db)
                    try LiveSessionRecord.deleteAll(db)
                }
                // A session started earlier keeps its start time.
                _ = try LiveSessionRecord(configurationJSON: json, startedAt: Int64(Date().timeIntervalSince1970))
                    .upsertAndFetch(db) { _ in [LiveSessionRecord.Columns.startedAt.noOverwrite] }
            }
            if resetting { lastEventSeq = 0 }
        }
    }

    // MARK: - Bars

    /// The latest timestamp journaled for `symbol` (committed inputs only).
    public func lastTimestamp(symbol: String) -> Int64? { lastTimestamps[symbol] }

    /// The committed bar of `symbol` at `timestamp`, if any (for telling a duplicate from a conflicting bar).
    public func storedBar(symbol: String, timestamp: Int64) throws -> Bar? {
        guard let id = symbolIDs[symbol] else { return nil }
        return try database.withStoreErrors {
            try database.pool.writeWithoutTransaction { db in
                typealias Columns = LiveInputRecord.Columns
                guard let row = try LiveInputRecord.filter(Columns.symbolID == id && Columns.timestamp == timestamp).fetchOne(db),
                    let open = row.open, let high = row.high, let low = row.low, let close = row.close, let volume = row.volume
                else { return nil }
                return Bar(timestamp: timestamp, open: open, high: high, low: low, close: close, volume: volume)
            }
        }
    }

    /// The number of bars journaled (inputs that are bars).
    public func barCount() throws -> Int {
        try database.withStoreErrors {
            try database.pool.read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM live_inputs WHERE symbol_id IS NOT NULL") ?? 0
            }
        }
    }

    // MARK: - Group commit

    /// Writes `batch` in one transaction and empties it; afterwards its inputs and events are durable (see the
    /// type's synchronous setting) and may be acknowledged.
    ///
    /// `investing`: rows of the paper brokerage (SentioLive's `PaperBrokerage`) changed by the same bars, written in
    /// the same transaction — one commit, one fsync, for both, and a process killed at any moment leaves the two
    /// at the same bar.
    ///
    /// - Throws: `StoreError` (the batch and the rows are then not written at all, and the batch stays as it was).
    public func commit(_ batch: inout LiveJournalBatch, alongside investing: InvestingRows = InvestingRows()) throws {
        if batch.isEmpty && investing.isEmpty { return }
        var newIDs: [String: Int64] = [:]
        var touched: [String: Int64] = [:]
        let firstSeq = lastInputSeq + 1
        let now = Int64(Date().timeIntervalSince1970)
        let batchCopy = batch
        try database.withStoreErrors {
            try database.pool.write { db in
                var nextID = (symbolIDs.values.max() ?? 0) + 1
                let insertBar = try db.cachedStatement(
                    sql: """
                        INSERT INTO live_inputs (seq, symbol_id, timestamp, open, high, low, close, volume)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                        """)
                let insertClose = try db.cachedStatement(
                    sql: "INSERT INTO live_inputs (seq, timestamp) VALUES (?1, ?2)")
                let connection = db.sqliteConnection
                func step(_ statement: Statement) throws {
                    let handle = statement.sqliteStatement
                    let code = sqlite3_step(handle)
                    sqlite3_reset(handle)
                    if code != SQLITE_DONE {
                        throw DatabaseError(
                            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                            sql: statement.sql)
                    }
                }
                var seq = firstSeq
                for input in batchCopy.inputs {
                    switch input {
                    case .bar(let symbol, let bar):
                        var id = symbolIDs[symbol] ?? newIDs[symbol]
                        if id == nil {
                            id = nextID
                            newIDs[symbol] = nextID
                            try LiveSymbolRecord(id: nextID, symbol: symbol, lastTimestamp: bar.timestamp).insert(db)
                            nextID += 1
                        }
                        let handle = insertBar.sqliteStatement
                        sqlite3_bind_int64(handle, 1, seq)
                        sqlite3_bind_int64(handle, 2, id!)
                        sqlite3_bind_int64(handle, 3, bar.timestamp)
                        sqlite3_bind_double(handle, 4, bar.open)
                        sqlite3_bind_double(handle, 5, bar.high)
                        sqlite3_bind_double(handle, 6, bar.low)
                        sqlite3_bind_double(handle, 7, bar.close)
                        sqlite3_bind_double(handle, 8, bar.volume)
                        try step(insertBar)
                        touched[symbol] = max(touched[symbol] ?? .min, bar.timestamp)
                    case .stepClosed(let timestamp):
                        let handle = insertClose.sqliteStatement
                        sqlite3_bind_int64(handle, 1, seq)
                        sqlite3_bind_int64(handle, 2, timestamp)
                        try step(insertClose)
                    }
                    seq += 1
                }
                for (symbol, timestamp) in touched {
                    try db.execute(
                        sql: "UPDATE live_symbols SET last_timestamp = max(last_timestamp, ?) WHERE symbol = ?",
                        arguments: [timestamp, symbol])
                }
                var eventSeq = lastEventSeq + 1
                for event in batchCopy.events {
                    try LiveEventRecord(seq: eventSeq, inputSeq: event.inputSeq, type: event.type, eventJSON: event.json)
                        .insert(db)
                    eventSeq += 1
                }
                if let snapshot = batchCopy.snapshot {
                    try LiveSnapshotRecord(inputSeq: snapshot.inputSeq, state: snapshot.state, createdAt: now).upsert(db)
                    // Two snapshots are kept: the newest, and the one before in case the newest cannot be read.
                    try db.execute(
                        sql: """
                            DELETE FROM live_snapshots WHERE input_seq < (
                                SELECT min(input_seq) FROM (SELECT input_seq FROM live_snapshots ORDER BY input_seq DESC LIMIT 2))
                            """)
                }
                try SentioDatabase.writeInvesting(investing, in: db)
            }
        }
        for (symbol, id) in newIDs { symbolIDs[symbol] = id }
        for (symbol, timestamp) in touched { lastTimestamps[symbol] = max(lastTimestamps[symbol] ?? .min, timestamp) }
        lastInputSeq += Int64(batch.inputs.count)
        lastEventSeq += Int64(batch.events.count)
        batch.removeAll()
    }

    // MARK: - Restart

    /// The newest snapshot, or `nil` when none was taken (since the last reset).
    public func latestSnapshot() throws -> LiveJournalSnapshot? {
        try database.withStoreErrors {
            try database.pool.read { db in
                try LiveSnapshotRecord.order(LiveSnapshotRecord.Columns.inputSeq.desc).fetchOne(db).map {
                    LiveJournalSnapshot(inputSeq: $0.inputSeq, state: $0.state)
                }
            }
        }
    }

    /// Calls `body` with every committed input after `seq` (up to `last`, included), in order, with its sequence
    /// number.
    public func forEachInput(
        after seq: Int64, through last: Int64 = .max, _ body: (Int64, LiveJournalInput) throws -> Void
    ) throws {
        try database.withStoreErrors {
            try database.pool.read { db in
                var names: [Int64: String] = [:]
                for row in try LiveSymbolRecord.fetchAll(db) { names[row.id] = row.symbol }
                let statement = try db.makeStatement(
                    sql: """
                        SELECT seq, symbol_id, timestamp, open, high, low, close, volume FROM live_inputs
                        WHERE seq > ? AND seq <= ? ORDER BY seq
                        """)
                let handle = statement.sqliteStatement
                sqlite3_bind_int64(handle, 1, seq)
                sqlite3_bind_int64(handle, 2, last)
                defer { sqlite3_reset(handle) }
                while true {
                    let code = sqlite3_step(handle)
                    if code == SQLITE_DONE { break }
                    guard code == SQLITE_ROW else {
                        throw DatabaseError(
                            resultCode: ResultCode(rawValue: code),
                            message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
                    }
                    let inputSeq = sqlite3_column_int64(handle, 0)
                    let timestamp = sqlite3_column_int64(handle, 2)
                    if sqlite3_column_type(handle, 1) == SQLITE_NULL {
                        try body(inputSeq, .stepClosed(timestamp: timestamp))
                    } else {
                        let id = sqlite3_column_int64(handle, 1)
                        guard let symbol = names[id] else {
                            throw StoreError.corrupt(path: database.path, detail: "live input \(inputSeq) names unknown symbol id \(id)")
                        }
                        let bar = Bar(
                            timestamp: timestamp, open: sqlite3_column_double(handle, 3),
                            high: sqlite3_column_double(handle, 4), low: sqlite3_column_double(handle, 5),
                            close: sqlite3_column_double(handle, 6), volume: sqlite3_column_double(handle, 7))
                        try body(inputSeq, .bar(symbol: symbol, bar: bar))
                    }
                }
            }
        }
    }

    /// The journaled events after `seq` (all of them by default), in order.
    public func events(after seq: Int64 = 0) throws -> [LiveJournalEvent] {
        try database.withStoreErrors {
            try database.pool.read { db in
                try LiveEventRecord.filter(LiveEventRecord.Columns.seq > seq).order(LiveEventRecord.Columns.seq)
                    .fetchAll(db).map(\.event)
            }
        }
    }
}
