import Foundation
import GRDB
import GRDBSQLite
import SentioCore

// The column blocks (`bar_blocks`): the fast-load copy of every stored bar, each block checksummed and checked on
// every load. SQLite's own checks (`PRAGMA integrity_check`, page checksums it does not have) cannot see a changed
// byte inside a BLOB, so the store checks its blocks itself.

/// A column block that failed its checks on load; translated to `StoreError.damaged` (with the file's path) by
/// `withStoreErrors`.
struct BlockDamage: Error {
    var symbol: String
    /// 1-based position of the block among the symbol's blocks (oldest first); `nil` for the symbol's catalogue row.
    var block: Int?
    var detail: String
}

extension SentioDatabase {
    /// Bars per row of `bar_blocks`: 8,192 bars make 64 KiB per column BLOB.
    public static let barBlockSize = 8_192

    // MARK: - Checksum

    /// The checksum of one block: XXH64 (seed 0) chained over the symbol (UTF-8), the block's first and last
    /// timestamps and bar count (3 × Int64, little-endian), then the six column BLOBs in table order (timestamps,
    /// open, high, low, close, volume). Stored as the signed 64-bit integer with the same bits.
    ///
    /// Every byte a load trusts is covered: a changed value, a changed key (which moves a block in time or to
    /// another symbol) and a changed row count all change the checksum.
    static func blockChecksum(_ series: OHLCVSeries, _ range: Range<Int>) -> Int64 {
        var hash = Array(series.symbol.utf8).withUnsafeBytes { ContentFingerprint.xxh64($0, seed: 0) }
        let header = [
            series.timestamps[range.lowerBound].littleEndian, series.timestamps[range.upperBound - 1].littleEndian,
            Int64(range.count).littleEndian,
        ]
        hash = header.withUnsafeBytes { ContentFingerprint.xxh64($0, seed: hash) }
        hash = series.timestamps[range].withUnsafeBytes { ContentFingerprint.xxh64($0, seed: hash) }
        for column in [series.open, series.high, series.low, series.close, series.volume] {
            hash = column[range].withUnsafeBytes { ContentFingerprint.xxh64($0, seed: hash) }
        }
        return Int64(bitPattern: hash)
    }

    /// Checks what a load can check without the checksum: ordering within the block and after `previousLast`, the
    /// block's key matching its first and last bar, and the bar rules every stored bar obeys (finite values,
    /// prices and volume ≥ 0, `low ≤ min(open, close)`, `high ≥ max(open, close)`). Returns the first problem.
    static func blockProblem(
        _ s: OHLCVSeries, _ range: Range<Int>, first: Int64, last: Int64, previousLast: Int64?
    ) -> String? {
        if s.timestamps[range.lowerBound] != first || s.timestamps[range.upperBound - 1] != last {
            return "its bars do not span its recorded time range"
        }
        if let previousLast, first <= previousLast { return "it overlaps the previous block" }
        // Fast pass over raw buffers (no bounds checks, no early exits); only a block that fails is scanned again
        // bar by bar for the message.
        let sound = s.timestamps.withUnsafeBufferPointer { t in
            s.open.withUnsafeBufferPointer { o in
                s.high.withUnsafeBufferPointer { h in
                    s.low.withUnsafeBufferPointer { l in
                        s.close.withUnsafeBufferPointer { c in
                            s.volume.withUnsafeBufferPointer { v in
                                var ok = true
                                var previous = t[range.lowerBound] &- 1
                                for i in range {
                                    let (open, high, low, close, volume) = (o[i], h[i], l[i], c[i], v[i])
                                    // `<=` and `>=` are false for NaN; `high < .infinity` rejects +infinity, and
                                    // low >= 0 with low <= open, close <= high bounds every price.
                                    ok = ok && t[i] > previous && low >= 0 && low <= open && low <= close
                                        && high >= open && high >= close && high < .infinity
                                        && volume >= 0 && volume < .infinity
                                    previous = t[i]
                                }
                                return ok
                            }
                        }
                    }
                }
            }
        }
        if sound { return nil }
        var previous = Int64.min
        for i in range {
            let t = s.timestamps[i]
            if i > range.lowerBound && t <= previous { return "timestamps not increasing at bar \(i - range.lowerBound + 1)" }
            previous = t
            if let rule = barRuleViolation(open: s.open[i], high: s.high[i], low: s.low[i], close: s.close[i], volume: s.volume[i]) {
                return "bar \(i - range.lowerBound + 1) of the block: \(rule)"
            }
        }
        return nil
    }

    /// The rule a bar breaks, or `nil`: finite values, prices ≥ 0, volume ≥ 0, `low ≤ min(open, close)`,
    /// `high ≥ max(open, close)` (the rules `OHLCVReader` enforces on every CSV row).
    @inline(__always)
    static func barRuleViolation(open: Double, high: Double, low: Double, close: Double, volume: Double) -> String? {
        // NaN fails every comparison below, so `!(x >= 0)` also rejects NaN; +infinity is caught explicitly.
        guard open.isFinite, high.isFinite, low.isFinite, close.isFinite, volume.isFinite else {
            return "a value is not finite"
        }
        guard low >= 0, volume >= 0 else { return "a negative price or volume" }
        guard low <= open, low <= close, high >= open, high >= close else {
            return "low \(low) / high \(high) do not bracket open \(open) and close \(close)"
        }
        return nil
    }

    // MARK: - Write

    /// Keeps `bar_blocks` equal to `bars` after `series` was merged into `bars`.
    ///
    /// Blocks overlapping the series' time range are rebuilt from `bars`; when none overlaps, the range held no
    /// stored bars (blocks cover every stored bar), so the series itself is the new content — appended to the
    /// preceding block when that one is not full, so that repeated small appends do not fragment the blocks.
    static func updateBlocks(_ db: Database, _ series: OHLCVSeries) throws {
        guard let first = series.timestamps.first, let last = series.timestamps.last else { return }
        let symbol = series.symbol
        typealias Columns = BarBlockRecord.Columns
        let overlapping = try BarBlockKey.all().blocks(of: symbol)
            .filter(Columns.lastTimestamp >= first && Columns.firstTimestamp <= last).fetchAll(db)
        if overlapping.isEmpty {
            var content = series
            let previous = try BarBlockKey.filter(Columns.symbol == symbol && Columns.firstTimestamp < first)
                .order(Columns.firstTimestamp.desc).fetchOne(db)
            if let previous {
                let start = previous.first
                // The catalogue row is updated after the blocks, so it cannot be compared yet.
                var head = try loadBlocks(db, symbol: symbol, from: start, to: first - 1, checkCatalogue: false)
                if head.count < barBlockSize {
                    try BarBlockRecord.block(symbol: symbol, first: start).deleteAll(db)
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
        let lower = min(first, overlapping.map(\.first).min()!)
        let upper = max(last, overlapping.map(\.last).max()!)
        // The blocks are rebuilt from the bars table, so that copy is checked first: this import only added bars
        // (conflicting ones are kept without `replace`), so every bar the old blocks held — verified by their
        // checksums — must be in the bars table unchanged. A difference means one copy is damaged; rebuilding would
        // otherwise give a damaged bars row a fresh checksum.
        let before = try loadBlocks(db, symbol: symbol, from: lower, to: upper, checkCatalogue: false)
        let rebuilt = try loadBars(db, symbol: symbol, from: lower, to: upper, capacity: before.count + series.count)
        var j = 0
        for i in 0..<before.count {
            let t = before.timestamps[i]
            while j < rebuilt.count && rebuilt.timestamps[j] < t { j += 1 }
            guard j < rebuilt.count, rebuilt.timestamps[j] == t,
                rebuilt.open[j].bitPattern == before.open[i].bitPattern,
                rebuilt.high[j].bitPattern == before.high[i].bitPattern,
                rebuilt.low[j].bitPattern == before.low[i].bitPattern,
                rebuilt.close[j].bitPattern == before.close[i].bitPattern,
                rebuilt.volume[j].bitPattern == before.volume[i].bitPattern
            else {
                throw BlockDamage(
                    symbol: symbol, block: nil,
                    detail: "its bars table disagrees with its column blocks at \(iso8601(epochSeconds: t))")
            }
        }
        try BarBlockRecord.filter(Columns.symbol == symbol && Columns.lastTimestamp >= first && Columns.firstTimestamp <= last)
            .deleteAll(db)
        try writeBlocks(db, rebuilt)
    }

    /// Rebuilds every block of `symbol` from the `bars` table (import with `replace`: this also repairs blocks that
    /// were reported damaged).
    static func rebuildBlocks(_ db: Database, symbol: String) throws {
        try BarBlockRecord.filter(BarBlockRecord.Columns.symbol == symbol).deleteAll(db)
        try writeBlocks(db, try loadBars(db, symbol: symbol, from: .min, to: .max, capacity: 0))
    }

    /// Writes `series` as consecutive blocks of at most `barBlockSize` bars, each with its checksum.
    ///
    /// Through SQLite's C API: each column BLOB is bound straight from a slice of the series' arrays (a record
    /// would first copy every column into a `Data`).
    static func writeBlocks(_ db: Database, _ series: OHLCVSeries) throws {
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO bar_blocks (symbol, first_timestamp, last_timestamp, row_count, timestamps, open, high, low,
                                        close, volume, checksum)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
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
            sqlite3_bind_int64(handle, 11, blockChecksum(series, start..<end))
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

    // MARK: - Load

    /// Loads a symbol's bars in `[from, to]` from its column blocks, checking every block it reads.
    ///
    /// 1. The symbol's whole block index (keys and bar counts, no BLOBs) is read and checked: positive counts,
    ///    blocks in increasing, non-overlapping time order, and (`checkCatalogue`) their total equal to the
    ///    instrument's recorded bar count and extent. A block whose key was damaged so that it would drop out of a
    ///    range is caught here.
    /// 2. The blocks overlapping `[from, to]` are read; each one's checksum (`blockChecksum`) must match, its bars
    ///    must span its key, increase, and obey the bar rules (`blockProblem`).
    ///
    /// With `checksums == false` (an older store opened read-only, which cannot be migrated), blocks carry no
    /// checksum; the loaded bars are then compared with the `bars` table, the independent second copy.
    ///
    /// - Throws: `BlockDamage` naming the symbol and block; `DatabaseError` from SQLite.
    static func loadBlocks(
        _ db: Database, symbol: String, from: Int64, to: Int64, checkCatalogue: Bool = true, checksums: Bool = true
    ) throws -> OHLCVSeries {
        // 1. The block index, read through SQLite's C API: every key is checked as it is read, and a damaged value
        // must be reported as damage (`sqlite3_column_int64` reads any value; a record decoder would throw).
        var keys: [BarBlockKey] = []
        let index = try db.makeStatement(
            sql: "SELECT first_timestamp, last_timestamp, row_count FROM bar_blocks WHERE symbol = ? ORDER BY first_timestamp")
        index.arguments = [symbol]
        let indexHandle = index.sqliteStatement
        while true {
            let code = sqlite3_step(indexHandle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                sqlite3_reset(indexHandle)
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let key = BarBlockKey(
                symbol: symbol, first: sqlite3_column_int64(indexHandle, 0), last: sqlite3_column_int64(indexHandle, 1),
                rows: Int(truncatingIfNeeded: sqlite3_column_int64(indexHandle, 2)))
            let number = keys.count + 1
            if key.rows <= 0 || key.rows > barBlockSize {
                sqlite3_reset(indexHandle)
                throw BlockDamage(symbol: symbol, block: number, detail: "it records \(key.rows) bars")
            }
            if key.first > key.last || (key.rows == 1) != (key.first == key.last) {
                sqlite3_reset(indexHandle)
                throw BlockDamage(symbol: symbol, block: number, detail: "its time range is inconsistent")
            }
            if let previous = keys.last, key.first <= previous.last {
                sqlite3_reset(indexHandle)
                throw BlockDamage(symbol: symbol, block: number, detail: "it overlaps the previous block")
            }
            keys.append(key)
        }
        sqlite3_reset(indexHandle)
        if checkCatalogue {
            let total = keys.reduce(0) { $0 + $1.rows }
            let instrument = try InstrumentRecord.fetchOne(db, key: symbol)
            let recorded = instrument?.barCount
            let first = instrument?.firstTimestamp, last = instrument?.lastTimestamp
            if recorded != total || (total > 0 && (first != keys.first?.first || last != keys.last?.last)) {
                throw BlockDamage(
                    symbol: symbol, block: nil,
                    detail: "the catalogue records \(recorded.map(String.init) ?? "no") bars but the blocks hold \(total)")
            }
        }

        // 2. The blocks overlapping [from, to].
        let firstIndex = keys.firstIndex { $0.last >= from } ?? keys.count
        let endIndex = keys[firstIndex...].firstIndex { $0.first > to } ?? keys.count
        let wanted = keys[firstIndex..<endIndex]
        let capacity = wanted.reduce(0) { $0 + $1.rows }
        var series = OHLCVSeries(symbol: symbol)
        guard let firstKey = wanted.first, let lastKey = wanted.last else { return series }

        let select = try db.makeStatement(
            sql: """
                SELECT first_timestamp, last_timestamp, row_count, checksum, timestamps, open, high, low, close, volume
                FROM bar_blocks WHERE symbol = ?1 AND first_timestamp BETWEEN ?2 AND ?3 ORDER BY first_timestamp
                """.replacingOccurrences(of: "checksum,", with: checksums ? "checksum," : "NULL,"))
        let handle = select.sqliteStatement
        sqlite3_bind_text(handle, 1, symbol, -1, sqliteTransient)
        sqlite3_bind_int64(handle, 2, firstKey.first)
        sqlite3_bind_int64(handle, 3, lastKey.first)
        defer { sqlite3_reset(handle) }

        // Each column is allocated once at its final size, then filled block by block with memcpy from the BLOBs
        // (which SQLite may hand out unaligned, hence byte copies rather than typed loads).
        series.timestamps = [Int64](repeating: 0, count: capacity)
        series.open = [Double](repeating: 0, count: capacity)
        series.high = series.open
        series.low = series.open
        series.close = series.open
        series.volume = series.open
        var filled = 0
        var position = firstIndex
        var previousLast: Int64? = firstIndex > 0 ? keys[firstIndex - 1].last : nil
        var read: [(number: Int, range: Range<Int>, key: BarBlockKey, checksum: Int64)] = []
        read.reserveCapacity(wanted.count)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let number = position + 1
            func damage(_ detail: String) -> BlockDamage { BlockDamage(symbol: symbol, block: number, detail: detail) }
            guard position < endIndex else { throw damage("the block index changed while loading") }
            let key = keys[position]
            guard sqlite3_column_int64(handle, 0) == key.first, sqlite3_column_int64(handle, 1) == key.last,
                sqlite3_column_int64(handle, 2) == Int64(key.rows)
            else { throw damage("its key changed while loading") }
            let rows = key.rows
            func copy(_ column: CInt, into destination: UnsafeMutableRawBufferPointer) throws {
                let bytes = Int(sqlite3_column_bytes(handle, column))
                guard bytes == rows * 8, let blob = sqlite3_column_blob(handle, column) else {
                    throw damage("a column has \(bytes) bytes for \(rows) bars")
                }
                (destination.baseAddress! + filled * 8).copyMemory(from: blob, byteCount: bytes)
            }
            try series.timestamps.withUnsafeMutableBytes { try copy(4, into: $0) }
            try series.open.withUnsafeMutableBytes { try copy(5, into: $0) }
            try series.high.withUnsafeMutableBytes { try copy(6, into: $0) }
            try series.low.withUnsafeMutableBytes { try copy(7, into: $0) }
            try series.close.withUnsafeMutableBytes { try copy(8, into: $0) }
            try series.volume.withUnsafeMutableBytes { try copy(9, into: $0) }
            let range = filled..<(filled + rows)
            if checksums {
                guard sqlite3_column_type(handle, 3) == SQLITE_INTEGER else {
                    throw damage("it has no checksum (it disagreed with the bars table when the store was upgraded)")
                }
            }
            read.append((number, range, key, sqlite3_column_int64(handle, 3)))
            filled += rows
            position += 1
        }
        guard position == endIndex else {
            throw BlockDamage(symbol: symbol, block: position + 1, detail: "the block is missing")
        }
        // The checks run once every column is filled: checking while the columns are still being written would
        // hold extra references to them and make the next write copy a whole column.
        for (number, range, key, checksum) in read {
            if checksums && checksum != blockChecksum(series, range) {
                throw BlockDamage(symbol: symbol, block: number, detail: "checksum mismatch")
            }
            if let problem = blockProblem(series, range, first: key.first, last: key.last, previousLast: previousLast) {
                throw BlockDamage(symbol: symbol, block: number, detail: problem)
            }
            previousLast = key.last
        }
        if !checksums {
            // No checksums to trust: the bars table must agree bit for bit.
            let rows = try loadBars(db, symbol: symbol, from: firstKey.first, to: lastKey.last, capacity: capacity)
            if !sameBits(rows, series) {
                throw BlockDamage(symbol: symbol, block: nil, detail: "its column blocks differ from its bars table")
            }
        }
        // Edge blocks may reach outside [from, to]: trim by binary search on the sorted timestamps.
        let lowerIndex = partitionPoint(series.timestamps) { $0 >= from }
        let upperIndex = partitionPoint(series.timestamps) { $0 > to }
        if lowerIndex > 0 || upperIndex < series.count {
            series = series.slice(lowerIndex..<upperIndex)
        }
        return series
    }

    /// Bit-exact equality of two series (`==` on doubles would call NaN unequal and -0 equal to 0).
    static func sameBits(_ a: OHLCVSeries, _ b: OHLCVSeries) -> Bool {
        func bits(_ x: [Double]) -> [UInt64] { x.map(\.bitPattern) }
        return a.symbol == b.symbol && a.timestamps == b.timestamps && bits(a.open) == bits(b.open)
            && bits(a.high) == bits(b.high) && bits(a.low) == bits(b.low) && bits(a.close) == bits(b.close)
            && bits(a.volume) == bits(b.volume)
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
    static func verifyBlocks(_ db: Database, checksums: Bool = true) throws -> [String] {
        var messages: [String] = []
        typealias Columns = InstrumentRecord.Columns
        for symbol in try InstrumentRecord.select(Columns.symbol, as: String.self).order(Columns.symbol).fetchAll(db) {
            let rows = try loadBars(db, symbol: symbol, from: .min, to: .max, capacity: 0)
            let blocks: OHLCVSeries
            do {
                blocks = try loadBlocks(db, symbol: symbol, from: .min, to: .max, checkCatalogue: false, checksums: checksums)
            } catch let damage as BlockDamage {
                messages.append("bar blocks of \(symbol) are damaged (block \(damage.block.map(String.init) ?? "-")): \(damage.detail)")
                continue
            }
            if rows != blocks {
                messages.append("bar blocks of \(symbol) differ from its bars (\(blocks.count) vs \(rows.count) bars)")
            }
            let recorded = try InstrumentRecord.select(Columns.barCount, as: Int.self).filter(key: symbol).fetchOne(db)
            if recorded != rows.count {
                messages.append("instrument \(symbol) records \(recorded ?? 0) bars but has \(rows.count)")
            }
        }
        let orphans = try String.fetchAll(
            db, sql: "SELECT DISTINCT symbol FROM bar_blocks WHERE symbol NOT IN (SELECT symbol FROM instruments)")
        for symbol in orphans { messages.append("bar blocks of \(symbol) have no instrument row") }
        return messages
    }

    // MARK: - Migration

    /// Schema version 3: gives every stored block its checksum, but only a block that agrees bit for bit with the
    /// `bars` table (the second copy of its bars) and obeys the bar rules; any other block keeps a NULL checksum
    /// and is reported damaged when loaded (re-importing its file with `--replace` rebuilds it).
    @Sendable static func checksumExistingBlocks(_ db: Database) throws {
        for key in try BarBlockKey.fetchAll(db) {
            let (symbol, first, last, rowCount) = (key.symbol, key.first, key.last, key.rows)
            guard let row = try BarBlockRecord.block(symbol: symbol, first: first).fetchOne(db) else { continue }
            func column<T>(_ data: Data, _: T.Type) -> [T]? {
                guard data.count == rowCount * 8 else { return nil }
                return data.withUnsafeBytes { raw in
                    (0..<rowCount).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: T.self) }
                }
            }
            guard let t = column(row.timestamps, Int64.self), let o = column(row.open, Double.self),
                let h = column(row.high, Double.self), let l = column(row.low, Double.self),
                let c = column(row.close, Double.self), let v = column(row.volume, Double.self), rowCount > 0
            else { continue }
            let block = OHLCVSeries(symbol: symbol, timestamps: t, open: o, high: h, low: l, close: c, volume: v)
            let bars = try loadBars(db, symbol: symbol, from: first, to: last, capacity: rowCount)
            guard sameBits(block, bars),
                blockProblem(block, 0..<rowCount, first: first, last: last, previousLast: nil) == nil
            else { continue }
            try BarBlockRecord.block(symbol: symbol, first: first)
                .updateAll(db, BarBlockRecord.Columns.checksum.set(to: blockChecksum(block, 0..<rowCount)))
        }
    }
}
