import Foundation
import GRDB
import SentioCore

/// A saved parameter sweep (`sentio sweep --save`): a few columns to list it by, and the sweep's output JSON
/// (SentioSweep's `SweepOutput`) kept byte for byte, so `sentio sweep show ID` prints what `sentio sweep --format json`
/// printed.
public struct StoredSweep: Sendable, Equatable {
    /// Assigned by the store; `nil` before saving.
    public var id: Int64?
    /// UTC epoch seconds.
    public var createdAt: Int64
    public var label: String?
    public var strategy: String
    public var metric: String
    /// Combinations of the grid, and rows saved (fewer for a shard).
    public var combinations: Int
    public var rowCount: Int
    public var symbols: [String]
    public var startTimestamp: Int64
    public var endTimestamp: Int64
    /// The whole output as JSON (a JSON object).
    public var outputJSON: String

    public init(
        id: Int64? = nil, createdAt: Int64 = Int64(Date().timeIntervalSince1970), label: String?, strategy: String,
        metric: String, combinations: Int, rowCount: Int, symbols: [String], startTimestamp: Int64, endTimestamp: Int64,
        outputJSON: String
    ) {
        self.id = id
        self.createdAt = createdAt
        self.label = label
        self.strategy = strategy
        self.metric = metric
        self.combinations = combinations
        self.rowCount = rowCount
        self.symbols = symbols
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.outputJSON = outputJSON
    }
}

/// No sweep with this id in the store.
public struct SweepNotFoundError: UserInputError, Equatable {
    public var id: Int64
    public var path: String
    public var description: String { "no sweep \(id) in \(path) (list them with `sentio sweep list --db \(path)`)" }
}

extension SentioDatabase {
    /// Migration "v5-sweeps": one row per saved sweep.
    static let sweepsSchema = """
        CREATE TABLE sweeps (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at      INTEGER NOT NULL,
            label           TEXT,
            strategy        TEXT NOT NULL CHECK (length(strategy) > 0),
            metric          TEXT NOT NULL,
            combinations    INTEGER NOT NULL CHECK (combinations >= 1),
            row_count       INTEGER NOT NULL CHECK (row_count >= 0),
            symbols         TEXT NOT NULL,
            start_timestamp INTEGER NOT NULL,
            end_timestamp   INTEGER NOT NULL,
            output_json     TEXT NOT NULL CHECK (json_valid(output_json))
        );
        """

    /// Saves a sweep and returns its id.
    ///
    /// - Throws: `StoreError.invalidRecord` when `outputJSON` is not a JSON object or the strategy is empty; other
    ///   `StoreError`s for database problems.
    @discardableResult
    public func saveSweep(_ sweep: StoredSweep) throws -> Int64 {
        if sweep.strategy.isEmpty { throw StoreError.invalidRecord(kind: "sweep", detail: "empty strategy name") }
        if !isJSONObject(sweep.outputJSON) {
            throw StoreError.invalidRecord(kind: "sweep", detail: "output is not a JSON object: \(sweep.outputJSON.prefix(80))")
        }
        return try withStoreErrors {
            try pool.write { db in
                var record = SweepRecord(sweep)
                try record.insert(db)
                return record.id!
            }
        }
    }

    /// Every saved sweep, oldest first.
    public func sweeps() throws -> [StoredSweep] {
        try withStoreErrors {
            try pool.read { db in try SweepRecord.order(SweepRecord.Columns.id).fetchAll(db).map(\.sweep) }
        }
    }

    /// One saved sweep.
    ///
    /// - Throws: ``SweepNotFoundError`` for an unknown id.
    public func sweep(id: Int64) throws -> StoredSweep {
        let found = try withStoreErrors {
            try pool.read { db in try SweepRecord.fetchOne(db, key: id)?.sweep }
        }
        guard let found else { throw SweepNotFoundError(id: id, path: path) }
        return found
    }
}
