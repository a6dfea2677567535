import Foundation
import GRDB
import SentioCore

/// A Sentio store: one SQLite file holding market data, backtest runs, signal history and fund events.
///
/// The file is opened through a GRDB `DatabasePool` in WAL mode with foreign keys on, so one writer and any
/// number of readers (threads or other processes) work at once: a reader sees the last committed state and is
/// never blocked by a writer. Every write method is one transaction: a process killed mid-way (even by
/// SIGKILL) leaves the file consistent, with the interrupted import or run either fully present or absent.
///
/// Opening checks, in order: the file is an SQLite database (`StoreError.notADatabase`), it is not cut off
/// (`.truncated`), it is a Sentio store or empty (`.notASentioDatabase`), and its schema is not newer than this
/// build's (`.newerSchema`). An older schema is migrated in place (see `Schema`).
public final class SentioDatabase: Sendable {
    /// How `init(path:mode:)` treats a missing file.
    public enum OpenMode: Sendable {
        /// Create an empty store when the file does not exist (commands that write: import, `--save`).
        case createIfMissing
        /// Refuse a missing file with `StoreError.missingDatabase`.
        case existingOnly
        /// For commands that only read: refuse a missing file like `.existingOnly`; when the file or its folder is
        /// not writable, open it read-only without creating `-wal`/`-shm` files and without migrating (see
        /// `init(path:mode:busyTimeoutSeconds:)`). A writable file is opened as with `.existingOnly`.
        case readOnly
    }

    /// The database file's path as given.
    public let path: String
    /// How long a write waits for another process's write lock before `StoreError.busy`.
    public let busyTimeoutSeconds: Double
    let pool: DatabasePool
    /// Whether the file was opened read-only (`.readOnly` on a file or folder that is not writable).
    public let isReadOnly: Bool
    /// Whether the schema has block checksums (version ≥ 3). Only an older store opened read-only lacks them; its
    /// loads are then checked against the `bars` table instead.
    let blocksHaveChecksums: Bool

    /// The environment variable naming the default database file.
    public static let environmentVariable = "SENTIO_DB"
    /// The file used when neither `--db` nor `$SENTIO_DB` is given, relative to the working directory.
    public static let fallbackFileName = "sentio.sqlite"

    /// The default database path: `$SENTIO_DB` when set and non-empty, else `./sentio.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let value = environment[environmentVariable], !value.isEmpty { return value }
        return fallbackFileName
    }

    /// The schema version this build writes (the value of `PRAGMA user_version` after migration).
    public static var schemaVersion: Int { Schema.currentVersion }

    /// Opens (and, for `.createIfMissing`, creates) the store at `path`, migrating an older schema.
    ///
    /// Read-only opening (`.readOnly`, when the file or its folder is not writable — judged by `access(2)` and by
    /// the permission bits, so that a 0444 file counts as read-only even for root): SQLite opens the file with
    /// `immutable=1`, so no `-wal`/`-shm` file is created and nothing is written; this assumes no other process
    /// writes the file meanwhile, which its permissions say. A file with a non-empty `-wal` (transactions not yet
    /// folded into the file) is opened `mode=ro` instead so that they are seen; SQLite then needs the `-shm` file.
    /// An older schema is not migrated then: its blocks are checked against the `bars` table on load.
    ///
    /// - Throws: `StoreError` for an empty path, a missing, unreadable, non-SQLite, truncated, foreign or
    ///   newer-schema file.
    public init(path: String, mode: OpenMode = .createIfMissing, busyTimeoutSeconds: Double = 10) throws {
        self.path = path
        self.busyTimeoutSeconds = busyTimeoutSeconds
        guard !path.isEmpty else { throw StoreError.cannotOpen(path: "''", reason: "the path is empty") }
        let openingLock = OpeningLock(forFileAt: path)
        defer { openingLock.release() }
        try Self.checkFile(path: path, mode: mode)
        let readOnly = mode == .readOnly && !Self.isWritable(path)
        isReadOnly = readOnly

        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeoutSeconds)
        configuration.label = "SentioStore"
        configuration.prepareDatabase { db in
            // 64 KiB pages (applies only when the file is created): bulk bar imports write fewer, fuller pages and
            // the column blocks span fewer overflow pages. Measured: ~20 % less CPU per imported bar than 4 KiB.
            try db.execute(sql: "PRAGMA page_size = 65536")
            // A larger page cache keeps big imports from spilling to the WAL mid-transaction.
            try db.execute(sql: "PRAGMA cache_size = -65536")
            // Memory-mapped reads: loading column blocks copies straight from the mapped file (no read() copies).
            // SQLite maps only what the file holds, so a file cut off before opening is safe (and refused by
            // checkFile); truncating the file from another process while Sentio has it open is not supported.
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        }
        var openPath = path
        if readOnly {
            configuration.readonly = true
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int64) ?? 0
            // URI filenames: the system SQLite is built with SQLITE_USE_URI.
            openPath = Self.uri(forPath: path) + (walSize > 0 ? "?mode=ro" : "?immutable=1")
        }
        do {
            let pool = try DatabasePool(path: openPath, configuration: configuration)
            self.pool = pool
            let version = try Self.prepareSchema(
                pool: pool, path: path, busyTimeoutSeconds: busyTimeoutSeconds, migrating: !readOnly)
            blocksHaveChecksums = version >= Schema.checksumVersion
        } catch {
            throw StoreError.translating(error, path: path, busyTimeout: busyTimeoutSeconds) ?? error
        }
    }

    /// Whether the file at `path` (and its folder, where SQLite creates `-wal`/`-shm`) can be written: `access(2)`
    /// says so and some write permission bit is set (root passes `access` for any file).
    static func isWritable(_ path: String) -> Bool {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        for item in [path, directory] {
            if access(item, W_OK) != 0 { return false }
            var info = stat()
            if stat(item, &info) == 0, info.st_mode & 0o222 == 0 { return false }
        }
        return true
    }

    /// A `file:` URI for `path`: absolute, with `%`, `?`, `#` and every non-ASCII or control byte of its UTF-8
    /// written as `%HH` (SQLite decodes them back to the same bytes).
    static func uri(forPath path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var text = "file:"
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        for byte in absolute.utf8 {
            if byte < 0x21 || byte >= 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                text.unicodeScalars.append("%")
                text.unicodeScalars.append(hex[Int(byte >> 4)])
                text.unicodeScalars.append(hex[Int(byte & 15)])
            } else {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return text
    }

    /// Checks the file before SQLite sees it, so that the common ways a file can be wrong get precise messages.
    private static func checkFile(path: String, mode: OpenMode) throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !exists {
            if mode != .createIfMissing { throw StoreError.missingDatabase(path: path) }
            return
        }
        if isDirectory.boolValue { throw StoreError.cannotOpen(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.cannotOpen(path: path, reason: "permission denied")
        }
        defer { try? handle.close() }
        let fileSize = Int64((try? handle.seekToEnd()) ?? 0)
        if fileSize == 0 { return }  // SQLite treats an empty file as an empty database.
        try? handle.seek(toOffset: 0)
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard let declared = SQLiteHeader(header) else { throw StoreError.notADatabase(path: path) }
        // Pages committed to the WAL but not yet checkpointed may declare a size the main file does not have yet;
        // SQLite recovers those on open, so only a file without a pending WAL can be judged by its header.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int64) ?? 0
        if walSize == 0, let expected = declared.databaseSize, fileSize < expected {
            throw StoreError.truncated(path: path, expectedBytes: expected, actualBytes: fileSize)
        }
    }

    /// Refuses foreign and newer-schema files, then migrates an older schema (unless `migrating` is false);
    /// returns the schema version in use.
    private static func prepareSchema(
        pool: DatabasePool, path: String, busyTimeoutSeconds: Double, migrating: Bool
    ) throws -> Int {
        let migrator = Schema.migrator
        let state = try pool.read { db in
            (
                userVersion: try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                applicationID: try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                applied: try migrator.appliedIdentifiers(db),
                // GRDB creates `grdb_migrations` outside (before) the first migration's transaction, so a file that
                // another process is creating right now may hold only that table: it is still an empty store.
                tableCount: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM sqlite_master
                        WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                        """) ?? 0
            )
        }
        let known = Set(migrator.migrations)
        let unknown = state.applied.subtracting(known)
        if !unknown.isEmpty || state.userVersion > Schema.currentVersion {
            throw StoreError.newerSchema(
                path: path, foundVersion: max(state.userVersion, state.applied.count),
                supportedVersion: Schema.currentVersion, unknownMigrations: unknown.sorted())
        }
        let isEmpty = state.tableCount == 0
        if !isEmpty && state.applicationID != Schema.applicationID {
            throw StoreError.notASentioDatabase(path: path)
        }
        if state.applied != known {
            guard migrating else {
                if isEmpty { throw StoreError.cannotOpen(path: path, reason: "it is empty and read-only") }
                return state.userVersion
            }
            try migrate(
                migrator, pool: pool, path: path, busyTimeoutSeconds: busyTimeoutSeconds, known: known, isEmpty: isEmpty)
        }
        return Schema.currentVersion
    }

    /// Applies the missing migrations, tolerating another process that migrates the same file at the same moment.
    ///
    /// Each migration runs in its own transaction, but GRDB reads the list of applied migrations before taking
    /// the write lock; two processes creating the same new file can both decide to run a migration, and the
    /// second then fails on `CREATE TABLE`. Nothing is half-applied in that case, so re-reading what is applied and
    /// trying again converges.
    ///
    /// A migration that fails while nothing else applied one meanwhile made no progress: on a store that already
    /// has tables, that means its recorded migrations do not match its tables (a damaged file), reported as
    /// `StoreError.corrupt` rather than retried.
    private static func migrate(
        _ migrator: DatabaseMigrator, pool: DatabasePool, path: String, busyTimeoutSeconds: Double,
        known: Set<String>, isEmpty: Bool
    ) throws {
        var attempt = 0
        var before = try pool.read { try migrator.appliedIdentifiers($0) }
        while true {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                if let storeError = StoreError.translating(error, path: path, busyTimeout: busyTimeoutSeconds),
                    storeError != .busy(path: path, timeoutSeconds: busyTimeoutSeconds)
                {
                    throw storeError
                }
                attempt += 1
                let applied = try pool.read { try migrator.appliedIdentifiers($0) }
                if applied == known { return }
                if applied == before && !isEmpty {
                    throw StoreError.corrupt(
                        path: path, detail: "its schema does not match its recorded migrations (\(error))")
                }
                if attempt >= 20 || !applied.isSubset(of: known) { throw error }
                before = applied
                usleep(UInt32.random(in: 10_000...50_000))
            }
        }
    }

    /// Runs `body`, translating SQLite conditions a user can cause (corruption, locks, full disk) to `StoreError`.
    func withStoreErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StoreError.translating(error, path: path, busyTimeout: busyTimeoutSeconds) ?? error
        }
    }

    /// The schema version recorded in the file (`PRAGMA user_version`).
    public func storedSchemaVersion() throws -> Int {
        try withStoreErrors { try pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 } }
    }

    /// Runs SQLite's full `PRAGMA integrity_check` and `PRAGMA foreign_key_check`, then checks that the column
    /// blocks pass their load checks (checksums, bar rules), hold exactly the bars of the `bars` table and that each
    /// instrument's bar count is right; returns the messages (`["ok"]` for a sound file).
    ///
    /// This reads every page: seconds for a store of millions of bars, so it is not done on open.
    public func integrityCheck() throws -> [String] {
        try withStoreErrors {
            try pool.read { db in
                var messages = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                for violation in violations.prefix(10) {
                    messages.append("foreign key violation: \(violation)")
                }
                if messages == ["ok"] { messages += try Self.verifyBlocks(db, checksums: blocksHaveChecksums) }
                if messages.count > 1 { messages.removeAll { $0 == "ok" } }
                return messages
            }
        }
    }

    /// Runs `PRAGMA integrity_check` and throws `StoreError.corrupt` unless it reports ok.
    public func verifyIntegrity() throws {
        let messages = try integrityCheck()
        if messages != ["ok"] {
            throw StoreError.corrupt(path: path, detail: messages.prefix(5).joined(separator: "; "))
        }
    }

    /// Copies the WAL into the main file and empties it (`PRAGMA wal_checkpoint(TRUNCATE)`).
    public func checkpoint() throws {
        try withStoreErrors { _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) } }
    }

    /// Closes every connection. Further use of the store throws.
    public func close() throws {
        try pool.close()
    }
}

/// The fields of an SQLite file header this store checks (https://www.sqlite.org/fileformat.html, 1.3).
struct SQLiteHeader {
    var pageSize: Int64
    var pageCount: Int64
    var changeCounter: UInt32
    var versionValidFor: UInt32

    init?(_ bytes: Data) {
        let magic = Array("SQLite format 3\0".utf8)
        guard bytes.count >= 100, Array(bytes.prefix(16)) == magic else { return nil }
        let b = [UInt8](bytes.prefix(100))
        func u32(_ offset: Int) -> UInt32 {
            UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
        }
        let rawPageSize = Int64(b[16]) << 8 | Int64(b[17])
        pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        changeCounter = u32(24)
        pageCount = Int64(u32(28))
        versionValidFor = u32(92)
    }

    /// The database size the header declares, when SQLite itself would trust it (a non-zero page count written
    /// by a version that also updated the version-valid-for field).
    var databaseSize: Int64? {
        guard pageCount > 0, changeCounter == versionValidFor else { return nil }
        return pageCount * pageSize
    }
}
