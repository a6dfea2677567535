import GRDB

/// The versioned schema of a Sentio database.
///
/// Each migration is applied once, in a transaction, and recorded by GRDB in `grdb_migrations`; each also sets
/// `PRAGMA user_version` to its schema version so that other tools (and older Sentio builds) can read the version
/// without knowing GRDB. `PRAGMA application_id` marks the file as a Sentio store.
///
/// Never edit a shipped migration: add a new one and bump `currentVersion`. A frozen copy of the version-1
/// schema lives in `Tests/Fixtures/store/schema-v1.sql` to prove that old files keep migrating.
enum Schema {
    /// `PRAGMA application_id` of a Sentio store: the ASCII bytes "SNTO".
    static let applicationID: Int32 = 0x534E_544F

    /// The schema version this build writes and understands.
    static var currentVersion: Int { migrations.count }

    /// `(identifier, version, sql, then)` in application order; `then` runs after `sql`, in the same transaction.
    static let migrations: [(identifier: String, version: Int, sql: String, then: (@Sendable (Database) throws -> Void)?)] = [
        ("v1-market-data", 1, version1, nil),
        ("v2-runs-signals-funds", 2, version2, nil),
        ("v3-block-checksums", 3, version3, SentioDatabase.checksumExistingBlocks),
        ("v4-live-journal", 4, SentioDatabase.liveJournalSchema, nil),
        ("v5-sweeps", 5, SentioDatabase.sweepsSchema, nil),
        ("v6-accounts", 6, SentioDatabase.accountsSchema, nil),
        ("v7-allowance", 7, SentioDatabase.allowanceSchema, nil),
        ("v8-investing", 8, SentioDatabase.investingSchema, nil),
        ("v9-investing-transfers", 9, SentioDatabase.investingTransfersSchema, nil),
    ]

    /// The first schema version whose `bar_blocks` rows carry a checksum.
    static let checksumVersion = 3

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: migration.sql)
                try migration.then?(db)
                try db.execute(sql: "PRAGMA user_version = \(migration.version)")
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            }
        }
        return migrator
    }

    /// Market data: instruments, bars and the log of imported files.
    ///
    /// `bars` is the canonical, queryable form (one row per bar). `bar_blocks` holds the same bars again as
    /// column blocks (up to `SentioDatabase.barBlockSize` bars per row; each column a BLOB of little-endian
    /// Int64 / IEEE-754 doubles) so that loading into `OHLCVSeries` is a memory copy instead of a row-by-row decode.
    /// Both are written in the same transaction; `integrityCheck()` verifies they agree.
    static let version1 = """
        CREATE TABLE instruments (
            symbol          TEXT PRIMARY KEY NOT NULL CHECK (length(symbol) > 0),
            name            TEXT,
            currency        TEXT,
            bar_count       INTEGER NOT NULL DEFAULT 0,
            first_timestamp INTEGER,
            last_timestamp  INTEGER,
            updated_at      INTEGER NOT NULL
        );
        CREATE TABLE bars (
            symbol    TEXT NOT NULL REFERENCES instruments(symbol) ON DELETE CASCADE,
            timestamp INTEGER NOT NULL,
            open      REAL NOT NULL,
            high      REAL NOT NULL,
            low       REAL NOT NULL,
            close     REAL NOT NULL,
            volume    REAL NOT NULL,
            PRIMARY KEY (symbol, timestamp)
        ) WITHOUT ROWID;
        CREATE TABLE bar_blocks (
            symbol          TEXT NOT NULL REFERENCES instruments(symbol) ON DELETE CASCADE,
            first_timestamp INTEGER NOT NULL,
            last_timestamp  INTEGER NOT NULL,
            row_count       INTEGER NOT NULL CHECK (row_count > 0),
            timestamps      BLOB NOT NULL CHECK (length(timestamps) = 8 * row_count),
            open            BLOB NOT NULL CHECK (length(open) = 8 * row_count),
            high            BLOB NOT NULL CHECK (length(high) = 8 * row_count),
            low             BLOB NOT NULL CHECK (length(low) = 8 * row_count),
            close           BLOB NOT NULL CHECK (length(close) = 8 * row_count),
            volume          BLOB NOT NULL CHECK (length(volume) = 8 * row_count),
            PRIMARY KEY (symbol, first_timestamp)
        ) WITHOUT ROWID;
        CREATE TABLE imports (
            id              INTEGER PRIMARY KEY,
            path            TEXT NOT NULL,
            fingerprint     TEXT NOT NULL,
            symbol          TEXT NOT NULL REFERENCES instruments(symbol) ON DELETE CASCADE,
            row_count       INTEGER NOT NULL,
            inserted        INTEGER NOT NULL,
            identical       INTEGER NOT NULL,
            conflicts       INTEGER NOT NULL,
            replaced        INTEGER NOT NULL,
            first_timestamp INTEGER,
            last_timestamp  INTEGER,
            imported_at     INTEGER NOT NULL
        );
        CREATE INDEX imports_by_symbol_fingerprint ON imports(symbol, fingerprint);
        """

    /// Backtest runs with their trades and equity curves, signal history, fund events and fund metadata.
    static let version2 = """
        CREATE TABLE runs (
            id                 INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at         INTEGER NOT NULL,
            strategy           TEXT NOT NULL,
            label              TEXT,
            symbols            TEXT NOT NULL,
            start_timestamp    INTEGER,
            end_timestamp      INTEGER,
            initial_capital    REAL,
            final_equity       REAL,
            trade_count        INTEGER NOT NULL,
            equity_point_count INTEGER NOT NULL,
            input_fingerprint  TEXT NOT NULL,
            config_json        TEXT NOT NULL CHECK (json_valid(config_json)),
            statistics_json    TEXT NOT NULL CHECK (json_valid(statistics_json))
        );
        CREATE TABLE run_trades (
            run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            seq             INTEGER NOT NULL,
            symbol          TEXT NOT NULL,
            entry_timestamp INTEGER NOT NULL,
            entry_price     REAL NOT NULL,
            exit_timestamp  INTEGER,
            exit_price      REAL,
            shares          REAL NOT NULL,
            pnl             REAL,
            pnl_percent     REAL,
            commission      REAL NOT NULL DEFAULT 0,
            signal_type     TEXT,
            exit_reason     TEXT,
            details_json    TEXT CHECK (details_json IS NULL OR json_valid(details_json)),
            PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID;
        CREATE TABLE run_equity (
            run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            timestamp INTEGER NOT NULL,
            equity       REAL NOT NULL,
            cash         REAL,
            contribution REAL,
            PRIMARY KEY (run_id, timestamp)
        ) WITHOUT ROWID;
        CREATE TABLE signal_history (
            model        TEXT NOT NULL,
            symbol       TEXT NOT NULL,
            timestamp    INTEGER NOT NULL,
            signal       TEXT NOT NULL,
            price        REAL,
            confidence   REAL,
            stop_loss    REAL,
            take_profit  REAL,
            details_json TEXT CHECK (details_json IS NULL OR json_valid(details_json)),
            saved_at     INTEGER NOT NULL,
            PRIMARY KEY (model, symbol, timestamp)
        ) WITHOUT ROWID;
        CREATE TABLE fund_metadata (
            fund_id      TEXT PRIMARY KEY NOT NULL CHECK (length(fund_id) > 0),
            name         TEXT,
            manager      TEXT,
            domicile     TEXT,
            vintage      INTEGER,
            details_json TEXT CHECK (details_json IS NULL OR json_valid(details_json))
        );
        CREATE TABLE fund_events (
            fund_id      TEXT NOT NULL CHECK (length(fund_id) > 0),
            seq          INTEGER NOT NULL,
            date         TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
            type         TEXT NOT NULL CHECK (type IN ('commitment', 'call', 'distribution', 'nav')),
            amount       TEXT NOT NULL,
            due_date     TEXT CHECK (due_date IS NULL OR due_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
            status       TEXT CHECK (status IS NULL OR status IN ('PENDING', 'PAID', 'LATE', 'OVERDUE')),
            details_json TEXT CHECK (details_json IS NULL OR json_valid(details_json)),
            PRIMARY KEY (fund_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX fund_events_by_date ON fund_events(fund_id, date);
        """

    /// A checksum per column block (see `SentioDatabase.blockChecksum`), verified on every load.
    ///
    /// The migration fills it for the blocks already stored, but only after checking each block against the
    /// `bars` table (the second, independent copy of every bar): a block that disagrees keeps a NULL checksum and
    /// is reported as damaged when loaded, so an upgrade never blesses a block that was already damaged.
    static let version3 = """
        ALTER TABLE bar_blocks ADD COLUMN checksum INTEGER;
        """
}
