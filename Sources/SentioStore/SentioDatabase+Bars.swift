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
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

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
                    try db.execute(
                        sql: "INSERT INTO instruments (symbol, updated_at) VALUES (?, ?) ON CONFLICT (symbol) DO NOTHING",
                        arguments: [series.symbol, now])
                    try Self.mergeBars(db, series, replace: replace, into: &report)
                    if report.inserted > 0 || report.replaced > 0 {
                        try Self.updateBlocks(db, series)
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO imports (path, fingerprint, symbol, row_count, inserted, identical, conflicts,
                                                 replaced, first_timestamp, last_timestamp, imported_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            sourcePath, fingerprint, series.symbol, report.rowCount, report.inserted, report.identical,
                            report.conflicts, report.replaced, series.timestamps.first, series.timestamps.last, now,
                        ])
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

    /// Checks what the schema cannot: ordering and finiteness.
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
    }

    /// The earlier import of the same content, if re-importing it would change nothing.
    private static func unchangedImport(_ db: Database, symbol: String, fingerprint: String) throws -> ImportReport.Outcome? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT path, imported_at, conflicts FROM imports AS earlier
                    WHERE symbol = ?1 AND fingerprint = ?2
                      AND NOT EXISTS (SELECT 1 FROM imports AS later
                                      WHERE later.symbol = ?1 AND later.id > earlier.id AND later.replaced > 0)
                    ORDER BY id DESC LIMIT 1
                    """,
                arguments: [symbol, fingerprint])
        else { return nil }
        return .unchanged(previousPath: row["path"], importedAt: row["imported_at"], previousConflicts: row["conflicts"])
    }

    /// The insert loop: one prepared statement, columns bound straight from the series' arrays.
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
    /// sized once up front (no per-bar work beyond the copy). Symbols are loaded concurrently on the pool's reader
    /// connections; each symbol comes from one committed state.
    ///
    /// - Parameters:
    ///   - symbols: the symbols to load; `nil` loads every stored instrument, sorted by symbol.
    ///   - from: first timestamp included (UTC epoch seconds), `nil` for no bound.
    ///   - to: last timestamp included (UTC epoch seconds), `nil` for no bound.
    /// - Returns: one series per symbol (possibly empty when the range holds no bars).
    /// - Throws: `StoreError.invalidRecord` naming a symbol the store does not hold.
    public func loadSeries(symbols: [String]? = nil, from: Int64? = nil, to: Int64? = nil) throws -> [OHLCVSeries] {
        let stored = Dictionary(uniqueKeysWithValues: try instruments().map { ($0.symbol, $0) })
        let wanted = symbols ?? stored.keys.sorted()
        for symbol in wanted where stored[symbol] == nil {
            throw StoreError.unknownSymbol(symbol: symbol, path: path)
        }
        let lower = from ?? Int64.min, upper = to ?? Int64.max
        let results = ResultSlots<OHLCVSeries>(count: wanted.count)
        DispatchQueue.concurrentPerform(iterations: wanted.count) { index in
            let symbol = wanted[index]
            results.set(index) {
                try self.withStoreErrors {
                    try self.pool.read { db in
                        try Self.loadBlocks(db, symbol: symbol, from: lower, to: upper)
                    }
                }
            }
        }
        return try results.values()
    }

    private static func loadBars(_ db: Database, symbol: String, from: Int64, to: Int64, capacity: Int) throws -> OHLCVSeries {
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

    // MARK: - Column blocks

    /// Bars per row of `bar_blocks`: 8,192 bars make 64 KiB per column BLOB.
    public static let barBlockSize = 8_192

    /// Keeps `bar_blocks` equal to `bars` after `series` was merged into `bars`.
    ///
    /// Blocks overlapping the series' time range are rebuilt from `bars`; when none overlaps, the range held no
    /// stored bars (blocks cover every stored bar), so the series itself is the new content — appended to the
    /// preceding block when that one is not full, so that repeated small appends do not fragment the blocks.
    static func updateBlocks(_ db: Database, _ series: OHLCVSeries) throws {
        guard let first = series.timestamps.first, let last = series.timestamps.last else { return }
        let symbol = series.symbol
        let overlapping = try Row.fetchAll(
            db,
            sql: """
                SELECT first_timestamp, last_timestamp FROM bar_blocks
                WHERE symbol = ? AND last_timestamp >= ? AND first_timestamp <= ?
                """,
            arguments: [symbol, first, last])
        if overlapping.isEmpty {
            var content = series
            let previous = try Row.fetchOne(
                db,
                sql: """
                    SELECT first_timestamp FROM bar_blocks WHERE symbol = ? AND first_timestamp < ?
                    ORDER BY first_timestamp DESC LIMIT 1
                    """,
                arguments: [symbol, first])
            if let previous {
                let start: Int64 = previous["first_timestamp"]
                var head = try loadBlocks(db, symbol: symbol, from: start, to: first - 1)
                if head.count < barBlockSize {
                    try db.execute(
                        sql: "DELETE FROM bar_blocks WHERE symbol = ? AND first_timestamp = ?", arguments: [symbol, start])
                    head.timestamps += series.timestamps
                    head.open += series.open
                    head.high += series.high
                    head.low += series.low
                    head.close += series.close
                    head.volume += series.volume
                    content = head
                }
            }
            try writeBlocks(db, content)
            return
        }
        let lower = min(first, overlapping.map { $0["first_timestamp"] as Int64 }.min()!)
        let upper = max(last, overlapping.map { $0["last_timestamp"] as Int64 }.max()!)
        try db.execute(
            sql: "DELETE FROM bar_blocks WHERE symbol = ? AND last_timestamp >= ? AND first_timestamp <= ?",
            arguments: [symbol, first, last])
        try writeBlocks(db, try loadBars(db, symbol: symbol, from: lower, to: upper, capacity: series.count))
    }

    /// Writes `series` as consecutive blocks of at most `barBlockSize` bars.
    private static func writeBlocks(_ db: Database, _ series: OHLCVSeries) throws {
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO bar_blocks (symbol, first_timestamp, last_timestamp, row_count, timestamps, open, high, low,
                                        close, volume)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """)
        let handle = insert.sqliteStatement
        sqlite3_bind_text(handle, 1, series.symbol, -1, sqliteTransient)
        var start = 0
        while start < series.count {
            let end = min(start + barBlockSize, series.count)
            sqlite3_bind_int64(handle, 2, series.timestamps[start])
            sqlite3_bind_int64(handle, 3, series.timestamps[end - 1])
            sqlite3_bind_int64(handle, 4, Int64(end - start))
            series.timestamps[start..<end].withUnsafeBytes { bindBlob(handle, 5, $0) }
            series.open[start..<end].withUnsafeBytes { bindBlob(handle, 6, $0) }
            series.high[start..<end].withUnsafeBytes { bindBlob(handle, 7, $0) }
            series.low[start..<end].withUnsafeBytes { bindBlob(handle, 8, $0) }
            series.close[start..<end].withUnsafeBytes { bindBlob(handle, 9, $0) }
            series.volume[start..<end].withUnsafeBytes { bindBlob(handle, 10, $0) }
            let code = sqlite3_step(handle)
            sqlite3_reset(handle)
            if code != SQLITE_DONE {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            start = end
        }
    }

    /// Binds raw bytes as a BLOB, copied by SQLite (the buffer does not outlive the call).
    private static func bindBlob(_ handle: OpaquePointer?, _ index: CInt, _ bytes: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, bytes.baseAddress, CInt(bytes.count), sqliteTransient)
    }

    /// Loads a symbol's bars in `[from, to]` from its column blocks.
    static func loadBlocks(_ db: Database, symbol: String, from: Int64, to: Int64) throws -> OHLCVSeries {
        let arguments: StatementArguments = [symbol, from, to]
        let capacity = try Int.fetchOne(
            db,
            sql: """
                SELECT coalesce(sum(row_count), 0) FROM bar_blocks
                WHERE symbol = ?1 AND last_timestamp >= ?2 AND first_timestamp <= ?3
                """,
            arguments: arguments) ?? 0
        let select = try db.makeStatement(
            sql: """
                SELECT row_count, timestamps, open, high, low, close, volume FROM bar_blocks
                WHERE symbol = ?1 AND last_timestamp >= ?2 AND first_timestamp <= ?3 ORDER BY first_timestamp
                """)
        let handle = select.sqliteStatement
        sqlite3_bind_text(handle, 1, symbol, -1, sqliteTransient)
        sqlite3_bind_int64(handle, 2, from)
        sqlite3_bind_int64(handle, 3, to)
        defer { sqlite3_reset(handle) }

        // Each column is allocated once at its final size, then filled block by block with memcpy from the BLOBs
        // (which SQLite may hand out unaligned, hence byte copies rather than typed loads).
        var timestamps = [Int64](repeating: 0, count: capacity)
        var open = [Double](repeating: 0, count: capacity), high = open, low = open, close = open, volume = open
        var filled = 0
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let rows = Int(sqlite3_column_int64(handle, 0))
            guard filled + rows <= capacity else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "bar blocks of \(symbol) overlap")
            }
            func copy(_ index: CInt, into destination: UnsafeMutableRawBufferPointer) throws {
                let bytes = Int(sqlite3_column_bytes(handle, index))
                guard bytes == rows * 8, let blob = sqlite3_column_blob(handle, index) else {
                    throw DatabaseError(
                        resultCode: .SQLITE_CORRUPT, message: "a bar block of \(symbol) has \(bytes) bytes for \(rows) bars")
                }
                (destination.baseAddress! + filled * 8).copyMemory(from: blob, byteCount: bytes)
            }
            try timestamps.withUnsafeMutableBytes { try copy(1, into: $0) }
            try open.withUnsafeMutableBytes { try copy(2, into: $0) }
            try high.withUnsafeMutableBytes { try copy(3, into: $0) }
            try low.withUnsafeMutableBytes { try copy(4, into: $0) }
            try close.withUnsafeMutableBytes { try copy(5, into: $0) }
            try volume.withUnsafeMutableBytes { try copy(6, into: $0) }
            filled += rows
        }
        guard filled == capacity else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "bar blocks of \(symbol) changed while loading")
        }
        var series = OHLCVSeries(
            symbol: symbol, timestamps: timestamps, open: open, high: high, low: low, close: close, volume: volume)
        // Edge blocks may reach outside [from, to]: trim by binary search on the sorted timestamps.
        let lowerIndex = partitionPoint(series.timestamps) { $0 >= from }
        let upperIndex = partitionPoint(series.timestamps) { $0 > to }
        if lowerIndex > 0 || upperIndex < series.count {
            series = series.slice(lowerIndex..<upperIndex)
        }
        return series
    }

    /// The first index whose element satisfies `predicate` (false...false true...true), by binary search.
    private static func partitionPoint(_ values: [Int64], _ predicate: (Int64) -> Bool) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(values[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Checks that `bar_blocks` holds exactly the rows of `bars`; returns one message per disagreeing symbol.
    static func verifyBlocks(_ db: Database) throws -> [String] {
        var messages: [String] = []
        for symbol in try String.fetchAll(db, sql: "SELECT symbol FROM instruments ORDER BY symbol") {
            let rows = try loadBars(db, symbol: symbol, from: .min, to: .max, capacity: 0)
            let blocks = try loadBlocks(db, symbol: symbol, from: .min, to: .max)
            if rows != blocks {
                messages.append("bar blocks of \(symbol) differ from its bars (\(blocks.count) vs \(rows.count) bars)")
            }
            let recorded = try Int.fetchOne(db, sql: "SELECT bar_count FROM instruments WHERE symbol = ?", arguments: [symbol])
            if recorded != rows.count {
                messages.append("instrument \(symbol) records \(recorded ?? 0) bars but has \(rows.count)")
            }
        }
        return messages
    }

    // MARK: - Catalogue

    /// Every stored instrument with its bar count and time extent, sorted by symbol.
    public func instruments() throws -> [InstrumentSummary] {
        try withStoreErrors {
            try pool.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT symbol, bar_count, first_timestamp, last_timestamp FROM instruments ORDER BY symbol"
                ).map {
                    InstrumentSummary(
                        symbol: $0["symbol"], barCount: $0["bar_count"], firstTimestamp: $0["first_timestamp"],
                        lastTimestamp: $0["last_timestamp"])
                }
            }
        }
    }

    /// The import log, oldest first.
    public func importLog() throws -> [ImportRecord] {
        try withStoreErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM imports ORDER BY id").map {
                    ImportRecord(
                        id: $0["id"], path: $0["path"], fingerprint: $0["fingerprint"], symbol: $0["symbol"],
                        rowCount: $0["row_count"], inserted: $0["inserted"], identical: $0["identical"],
                        conflicts: $0["conflicts"], replaced: $0["replaced"], importedAt: $0["imported_at"])
                }
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
