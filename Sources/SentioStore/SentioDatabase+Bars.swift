import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import SentioCore

/// A bar already stored whose values differ from the incoming file's bar at the same timestamp.
public struct BarConflict: Sendable, Equatable {
    public var timestamp: Int64
    public var stored: Bar
    public var incoming: Bar
}

/// What `importSeries` did with one file.
public struct ImportReport: Sendable, Equatable, CustomStringConvertible {
    public enum Outcome: Sendable, Equatable {
        /// The rows were merged into the store (possibly zero new rows).
        case imported
        /// A file with the same fingerprint was imported before for this symbol and nothing replaced its rows
        /// since: nothing was read or written.
        case unchanged(previousPath: String, importedAt: Int64, previousConflicts: Int)
    }

    public var symbol: String
    public var sourcePath: String
    public var fingerprint: String
    public var outcome: Outcome
    /// Bars in the incoming series.
    public var rowCount: Int
    /// Bars that were new to the store.
    public var inserted: Int
    /// Bars already stored with exactly the same values.
    public var identical: Int
    /// Bars already stored with different values (kept unless `replace`).
    public var conflicts: Int
    /// Conflicting bars overwritten by the incoming values (`replace: true`); otherwise 0.
    public var replaced: Int
    /// The first few conflicts (at most `ImportReport.conflictSampleLimit`), oldest first.
    public var conflictSamples: [BarConflict]

    /// How many conflicts are kept as examples.
    public static let conflictSampleLimit = 5

    public var description: String {
        switch outcome {
        case .unchanged(let previousPath, let importedAt, let previousConflicts):
            var text = "\(sourcePath): \(symbol) unchanged (same content as \(previousPath) imported \(iso8601(epochSeconds: importedAt))); nothing written"
            if previousConflicts > 0 { text += "; that import kept \(previousConflicts) conflicting stored bars" }
            return text
        case .imported:
            var text = "\(sourcePath): \(symbol) \(rowCount) bars: \(inserted) new, \(identical) already stored"
            if conflicts > 0 {
                text += replace ? ", \(conflicts) conflicts replaced by the file's values"
                    : ", \(conflicts) conflicts (stored values kept; use --replace to overwrite)"
                for sample in conflictSamples {
                    text += "\n  conflict at \(iso8601(epochSeconds: sample.timestamp)): stored "
                        + "\(Self.format(sample.stored)), file \(Self.format(sample.incoming))"
                }
                if conflicts > conflictSamples.count { text += "\n  ... \(conflicts - conflictSamples.count) more" }
            }
            return text
        }
    }

    private var replace: Bool { replaced > 0 }

    private static func format(_ bar: Bar) -> String {
        func text(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)" }
        return "O \(text(bar.open)) H \(text(bar.high)) L \(text(bar.low)) C \(text(bar.close)) V \(text(bar.volume))"
    }
}

/// A stored instrument and the extent of its bars.
public struct InstrumentSummary: Sendable, Equatable {
    public var symbol: String
    /// The display name stored for the instrument (`instruments.name`), `nil` when none was stored.
    public var name: String? = nil
    public var barCount: Int
    public var firstTimestamp: Int64?
    public var lastTimestamp: Int64?
}

/// One entry of the import log.
public struct ImportRecord: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var fingerprint: String
    public var symbol: String
    public var rowCount: Int
    public var inserted: Int
    public var identical: Int
    public var conflicts: Int
    public var replaced: Int
    public var importedAt: Int64
}

/// SQLite's "copy the bytes now" destructor for bound text.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension SentioDatabase {
    // MARK: - Import

    /// Merges `series` into the `bars` table in one transaction and logs the import.
    ///
    /// - A bar whose `(symbol, timestamp)` is new is inserted.
    /// - A bar already stored with identical values is counted as `identical`.
    /// - A bar already stored with different values is a conflict: reported, and overwritten only if `replace`.
    /// - If a file with the same `fingerprint` was imported before for this symbol, and no later import replaced
    ///   any of the symbol's bars, nothing is written and the outcome is `.unchanged` (unless `replace`).
    ///
    /// The whole file is one transaction: killed mid-way, the store holds all of it or none of it.
    /// Rows go through one prepared `INSERT ... ON CONFLICT DO NOTHING` statement bound column by column, so no
    /// memory is allocated per bar; existing rows are compared only when the insert did not happen.
    ///
    /// - Parameters:
    ///   - series: strictly increasing timestamps, finite values, non-empty symbol.
    ///   - sourcePath: the file the series came from (logged and reported).
    ///   - fingerprint: the file's content fingerprint (`ContentFingerprint.ofFile(atPath:)`).
    ///   - replace: overwrite conflicting stored bars with the incoming values.
    /// - Throws: `StoreError.invalidSeries` for an unstorable series, other `StoreError`s for database problems.
    @discardableResult
    public func importSeries(
        _ series: OHLCVSeries, sourcePath: String, fingerprint: String, replace: Bool = false
    ) throws -> ImportReport {
        try Self.validate(series)
        return try withStoreErrors {
            try pool.writeWithoutTransaction { db in
                var report = ImportReport(
                    symbol: series.symbol, sourcePath: sourcePath, fingerprint: fingerprint, outcome: .imported,
                    rowCount: series.count, inserted: 0, identical: 0, conflicts: 0, replaced: 0, conflictSamples: [])
                // The transaction below creates the instrument row before any of its bars, so per-row foreign-key
                // lookups would only re-prove that; switching them off for it saves ~8 % of the insert cost.
                // (The pragma is a no-op inside a transaction, hence here; `integrityCheck()` still runs
                // `PRAGMA foreign_key_check`.)
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.inTransaction(.immediate) {
                    if !replace, let previous = try Self.unchangedImport(db, symbol: series.symbol, fingerprint: fingerprint) {
                        report.outcome = previous
                        return .commit
                    }
                    let now = Int64(Date().timeIntervalSince1970)
                    try InstrumentRecord(symbol: series.symbol, updatedAt: now).insert(db, onConflict: .ignore)
                    try Self.mergeBars(db, series, replace: replace, into: &report)
                    if replace {
                        // Rebuilt whole from the bars table, with fresh checksums: this is how a symbol whose
                        // blocks were reported damaged is repaired.
                        try Self.rebuildBlocks(db, symbol: series.symbol)
                    } else if report.inserted > 0 {
                        try Self.updateBlocks(db, series)
                    }
                    var logEntry = ImportLogRecord(
                        path: sourcePath, fingerprint: fingerprint, symbol: series.symbol, rowCount: report.rowCount,
                        inserted: report.inserted, identical: report.identical, conflicts: report.conflicts,
                        replaced: report.replaced, firstTimestamp: series.timestamps.first,
                        lastTimestamp: series.timestamps.last, importedAt: now)
                    try logEntry.insert(db)
                    if let first = series.timestamps.first, let last = series.timestamps.last {
                        try db.execute(
                            sql: """
                                UPDATE instruments SET bar_count = bar_count + ?,
                                    first_timestamp = min(coalesce(first_timestamp, ?), ?),
                                    last_timestamp = max(coalesce(last_timestamp, ?), ?),
                                    updated_at = ?
                                WHERE symbol = ?
                                """,
                            arguments: [report.inserted, first, first, last, last, now, series.symbol])
                    }
                    return .commit
                }
                return report
            }
        }
    }

    /// Checks what the schema cannot: ordering, finiteness and the bar rules every stored bar obeys (prices and
    /// volume ≥ 0, `low ≤ min(open, close)`, `high ≥ max(open, close)`: the rules of `OHLCVReader`), which loads
    /// check again.
    static func validate(_ series: OHLCVSeries) throws {
        guard !series.symbol.isEmpty else { throw StoreError.invalidSeries(symbol: "", detail: "empty symbol") }
        let timestamps = series.timestamps
        for i in 1..<max(1, timestamps.count) where timestamps[i] <= timestamps[i - 1] {
            throw StoreError.invalidSeries(
                symbol: series.symbol,
                detail: "timestamps not strictly increasing at bar \(i) (\(timestamps[i - 1]) then \(timestamps[i]))")
        }
        for (name, column) in [
            ("open", series.open), ("high", series.high), ("low", series.low), ("close", series.close),
            ("volume", series.volume),
        ] {
            if let i = column.firstIndex(where: { !$0.isFinite }) {
                throw StoreError.invalidSeries(symbol: series.symbol, detail: "\(name) is \(column[i]) at bar \(i)")
            }
        }
        for i in 0..<series.count {
            if let rule = barRuleViolation(
                open: series.open[i], high: series.high[i], low: series.low[i], close: series.close[i],
                volume: series.volume[i])
            {
                throw StoreError.invalidSeries(symbol: series.symbol, detail: "bar \(i): \(rule)")
            }
        }
    }

    /// The earlier import of the same content, if re-importing it would change nothing.
    private static func unchangedImport(_ db: Database, symbol: String, fingerprint: String) throws -> ImportReport.Outcome? {
        guard
            let earlier = try ImportLogRecord.filter(
                sql: """
                    symbol = ?1 AND fingerprint = ?2
                      AND NOT EXISTS (SELECT 1 FROM imports AS later
                                      WHERE later.symbol = ?1 AND later.id > imports.id AND later.replaced > 0)
                    """,
                arguments: [symbol, fingerprint]
            ).order(ImportLogRecord.Columns.id.desc).fetchOne(db)
        else { return nil }
        return .unchanged(previousPath: earlier.path, importedAt: earlier.importedAt, previousConflicts: earlier.conflicts)
    }

    /// The insert loop: one prepared statement, columns bound straight from the series' arrays.
    ///
    /// This is the import's hot path, hence SQLite's C API rather than a record type: binding six columns per bar
    /// from the arrays allocates nothing, where a record per bar would build a value and its column dictionary.
    private static func mergeBars(_ db: Database, _ series: OHLCVSeries, replace: Bool, into report: inout ImportReport) throws {
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO bars (symbol, timestamp, open, high, low, close, volume) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (symbol, timestamp) DO NOTHING
                """)
        let lookup = try db.makeStatement(
            sql: "SELECT open, high, low, close, volume FROM bars WHERE symbol = ?1 AND timestamp = ?2")
        let update = try db.makeStatement(
            sql: "UPDATE bars SET open = ?3, high = ?4, low = ?5, close = ?6, volume = ?7 WHERE symbol = ?1 AND timestamp = ?2")
        let connection = db.sqliteConnection
        let insertHandle = insert.sqliteStatement
        let lookupHandle = lookup.sqliteStatement
        let updateHandle = update.sqliteStatement
        for handle in [insertHandle, lookupHandle, updateHandle] {
            sqlite3_bind_text(handle, 1, series.symbol, -1, sqliteTransient)
        }
        // `Statement.sql` is computed (it trims the text): evaluate it only on the error path.
        @inline(__always) func check(_ code: CInt, _ expected: CInt, _ sql: @autoclosure () -> String) throws {
            if code != expected { try fail(code, sql()) }
        }
        func fail(_ code: CInt, _ sql: String) throws -> Never {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }

        var inserted = 0, identical = 0, conflicts = 0, replaced = 0
        var samples: [BarConflict] = []
        try series.timestamps.withUnsafeBufferPointer { t in
            try series.open.withUnsafeBufferPointer { o in
                try series.high.withUnsafeBufferPointer { h in
                    try series.low.withUnsafeBufferPointer { l in
                        try series.close.withUnsafeBufferPointer { c in
                            try series.volume.withUnsafeBufferPointer { v in
                                // Parameters 2...7 of the insert and the update statements are the bar's columns.
                                @inline(__always) func bindBar(_ handle: OpaquePointer?, _ i: Int) {
                                    sqlite3_bind_int64(handle, 2, t[i])
                                    sqlite3_bind_double(handle, 3, o[i])
                                    sqlite3_bind_double(handle, 4, h[i])
                                    sqlite3_bind_double(handle, 5, l[i])
                                    sqlite3_bind_double(handle, 6, c[i])
                                    sqlite3_bind_double(handle, 7, v[i])
                                }
                                for i in 0..<t.count {
                                    bindBar(insertHandle, i)
                                    let code = sqlite3_step(insertHandle)
                                    sqlite3_reset(insertHandle)
                                    try check(code, SQLITE_DONE, insert.sql)
                                    if sqlite3_changes(connection) == 1 {
                                        inserted += 1
                                        continue
                                    }
                                    // Already stored: compare, the rare path.
                                    sqlite3_bind_int64(lookupHandle, 2, t[i])
                                    try check(sqlite3_step(lookupHandle), SQLITE_ROW, lookup.sql)
                                    let stored = Bar(
                                        timestamp: t[i], open: sqlite3_column_double(lookupHandle, 0),
                                        high: sqlite3_column_double(lookupHandle, 1),
                                        low: sqlite3_column_double(lookupHandle, 2),
                                        close: sqlite3_column_double(lookupHandle, 3),
                                        volume: sqlite3_column_double(lookupHandle, 4))
                                    sqlite3_reset(lookupHandle)
                                    let incoming = Bar(
                                        timestamp: t[i], open: o[i], high: h[i], low: l[i], close: c[i], volume: v[i])
                                    if stored == incoming {
                                        identical += 1
                                        continue
                                    }
                                    conflicts += 1
                                    if samples.count < ImportReport.conflictSampleLimit {
                                        samples.append(BarConflict(timestamp: t[i], stored: stored, incoming: incoming))
                                    }
                                    if replace {
                                        bindBar(updateHandle, i)
                                        let code = sqlite3_step(updateHandle)
                                        sqlite3_reset(updateHandle)
                                        try check(code, SQLITE_DONE, update.sql)
                                        replaced += 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        report.inserted = inserted
        report.identical = identical
        report.conflicts = conflicts
        report.replaced = replaced
        report.conflictSamples = samples
    }

    // MARK: - Load

    /// Loads stored bars into series, one per symbol, in the order of `symbols`.
    ///
    /// Bars are read from `bar_blocks`: each block's column BLOBs are copied straight into the series' arrays,
    /// sized once up front. Symbols are loaded concurrently on the pool's reader connections; each symbol comes
    /// from one committed state.
    ///
    /// Nothing is trusted blindly: each block read must match its checksum, span its key, keep timestamps
    /// increasing and obey the bar rules, and the symbol's block index must agree with its catalogue entry
    /// (see `loadBlocks`). A block that fails is reported as `StoreError.damaged`, never returned.
    ///
    /// - Parameters:
    ///   - symbols: the symbols to load; `nil` loads every stored instrument, sorted by symbol.
    ///   - from: first timestamp included (UTC epoch seconds), `nil` for no bound.
    ///   - to: last timestamp included (UTC epoch seconds), `nil` for no bound.
    /// - Returns: one series per symbol (possibly empty when the range holds no bars).
    /// - Throws: `StoreError.unknownSymbol` naming a symbol the store does not hold; `StoreError.damaged` naming the
    ///   symbol and block when stored bars fail their checks; other `StoreError`s for SQLite-level damage.
    public func loadSeries(symbols: [String]? = nil, from: Int64? = nil, to: Int64? = nil) throws -> [OHLCVSeries] {
        let stored = Dictionary(uniqueKeysWithValues: try instruments().map { ($0.symbol, $0) })
        let wanted = symbols ?? stored.keys.sorted()
        for symbol in wanted where stored[symbol] == nil {
            let orphanBlocks = try withStoreErrors {
                try pool.read { try BarBlockKey.all().blocks(of: symbol).fetchCount($0) }
            }
            if orphanBlocks > 0 {
                throw StoreError.damaged(path: path, symbol: symbol, block: nil, detail: "its catalogue entry is missing")
            }
            throw StoreError.unknownSymbol(symbol: symbol, path: path)
        }
        let lower = from ?? Int64.min, upper = to ?? Int64.max
        let results = ResultSlots<OHLCVSeries>(count: wanted.count)
        DispatchQueue.concurrentPerform(iterations: wanted.count) { index in
            let symbol = wanted[index]
            results.set(index) {
                try self.withStoreErrors {
                    try self.pool.read { db in
                        try Self.loadBlocks(db, symbol: symbol, from: lower, to: upper, checksums: self.blocksHaveChecksums)
                    }
                }
            }
        }
        return try results.values()
    }

    /// A symbol's bars in `[from, to]` from the `bars` table (the second copy, read to check or rebuild blocks),
    /// read column by column through SQLite's C API straight into the series' arrays.
    static func loadBars(_ db: Database, symbol: String, from: Int64, to: Int64, capacity: Int) throws -> OHLCVSeries {
        let select = try db.makeStatement(
            sql: """
                SELECT timestamp, open, high, low, close, volume FROM bars
                WHERE symbol = ?1 AND timestamp BETWEEN ?2 AND ?3 ORDER BY timestamp
                """)
        let handle = select.sqliteStatement
        sqlite3_bind_text(handle, 1, symbol, -1, sqliteTransient)
        sqlite3_bind_int64(handle, 2, from)
        sqlite3_bind_int64(handle, 3, to)
        defer { sqlite3_reset(handle) }
        var series = OHLCVSeries(symbol: symbol)
        series.reserveCapacity(capacity)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                    sql: select.sql)
            }
            series.timestamps.append(sqlite3_column_int64(handle, 0))
            series.open.append(sqlite3_column_double(handle, 1))
            series.high.append(sqlite3_column_double(handle, 2))
            series.low.append(sqlite3_column_double(handle, 3))
            series.close.append(sqlite3_column_double(handle, 4))
            series.volume.append(sqlite3_column_double(handle, 5))
        }
        return series
    }

    // MARK: - Catalogue

    /// Every stored instrument with its bar count and time extent, sorted by symbol.
    ///
    /// An instrument recorded with no bars must indeed have no column blocks (one index lookup each), so that a
    /// damaged count cannot silently drop a symbol from "all symbols"; every other disagreement between the
    /// catalogue and the blocks is caught when the symbol is loaded (`loadSeries`).
    ///
    /// - Throws: `StoreError.damaged` for an instrument recorded empty that has blocks.
    public func instruments() throws -> [InstrumentSummary] {
        try withStoreErrors {
            try pool.read { db in
                let instruments = try InstrumentRecord.order(InstrumentRecord.Columns.symbol).fetchAll(db)
                for instrument in instruments where instrument.barCount == 0 {
                    if try !BarBlockKey.all().blocks(of: instrument.symbol).isEmpty(db) {
                        throw BlockDamage(
                            symbol: instrument.symbol, block: nil, detail: "the catalogue records no bars but it has blocks")
                    }
                }
                return instruments.map(\.summary)
            }
        }
    }

    /// Stores display names of instruments (`instruments.name`), in one transaction.
    ///
    /// - With `overwrite`, each name replaces the stored one; a symbol without an instrument row gets one with no
    ///   bars (so that names can be given before the bars are imported).
    /// - Without `overwrite`, a name is stored only for an instrument that already has a row and no name yet:
    ///   this is how `sentio import` fills the built-in names without undoing a name given earlier.
    ///
    /// - Returns: how many instruments got a new or changed name.
    /// - Throws: `StoreError.invalidRecord` for an empty symbol or name; other `StoreError`s for database problems.
    @discardableResult
    public func setInstrumentNames(_ names: [(symbol: String, name: String)], overwrite: Bool) throws -> Int {
        for (symbol, name) in names where symbol.isEmpty || name.isEmpty {
            throw StoreError.invalidRecord(kind: "instrument", detail: symbol.isEmpty ? "empty symbol" : "empty name for \(symbol)")
        }
        return try withStoreErrors {
            try pool.write { db in
                let now = Int64(Date().timeIntervalSince1970)
                var changed = 0
                for (symbol, name) in names {
                    if overwrite {
                        // A conditional upsert (only a changed name counts as a change): GRDB's `upsert` has no
                        // `WHERE` clause, hence the statement.
                        try db.execute(
                            sql: """
                                INSERT INTO instruments (symbol, name, updated_at) VALUES (?, ?, ?)
                                ON CONFLICT (symbol) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
                                WHERE instruments.name IS NOT excluded.name
                                """,
                            arguments: [symbol, name, now])
                        changed += db.changesCount
                    } else {
                        changed += try InstrumentRecord.filter(key: symbol).filter(InstrumentRecord.Columns.name == nil)
                            .updateAll(db, InstrumentRecord.Columns.name.set(to: name), InstrumentRecord.Columns.updatedAt.set(to: now))
                    }
                }
                return changed
            }
        }
    }

    /// The import log, oldest first.
    public func importLog() throws -> [ImportRecord] {
        try withStoreErrors {
            try pool.read { db in
                try ImportLogRecord.order(ImportLogRecord.Columns.id).fetchAll(db).map(\.entry)
            }
        }
    }
}

/// Result slots filled concurrently by index, each written once.
final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [Result<Value, any Error>?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ body: () throws -> Value) {
        let result = Result { try body() }
        lock.lock()
        slots[index] = result
        lock.unlock()
    }

    /// The values in index order; rethrows the first error by index.
    func values() throws -> [Value] {
        lock.lock()
        defer { lock.unlock() }
        return try slots.map { try $0!.get() }
    }
}
