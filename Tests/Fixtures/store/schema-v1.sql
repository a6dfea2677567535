-- A Sentio store at schema version 1 (migration v1-market-data), frozen when version 2 was added.
-- Produced by sqlite3 .dump of a v1 database; tests load it to prove old files still migrate.
PRAGMA user_version = 1;
PRAGMA application_id = 1397642319;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE instruments (
            symbol          TEXT PRIMARY KEY NOT NULL CHECK (length(symbol) > 0),
            name            TEXT,
            currency        TEXT,
            bar_count       INTEGER NOT NULL DEFAULT 0,
            first_timestamp INTEGER,
            last_timestamp  INTEGER,
            updated_at      INTEGER NOT NULL
        );
INSERT INTO instruments VALUES('OLD',NULL,NULL,3,1700000000,1700000120,1700000200);
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
INSERT INTO bars VALUES('OLD',1700000000,10.499999999999999999,11.25,10.0,11.0,1200.0);
INSERT INTO bars VALUES('OLD',1700000060,11.0,11.499999999999999999,10.75,11.25,900.0);
INSERT INTO bars VALUES('OLD',1700000120,11.25,12.0,11.0,11.749999999999999999,1500.0);
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
INSERT INTO bar_blocks VALUES('OLD',1700000000,1700000120,3,X'00f15365000000003cf153650000000078f1536500000000',X'000000000000254000000000000026400000000000802640',X'000000000080264000000000000027400000000000002840',X'000000000000244000000000008025400000000000002640',X'000000000000264000000000008026400000000000802740',X'0000000000c092400000000000208c400000000000709740');
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
INSERT INTO imports VALUES(1,'data/OLD.csv','0123456789abcdef','OLD',3,3,0,0,0,1700000000,1700000120,1700000200);
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1-market-data');
CREATE INDEX imports_by_symbol_fingerprint ON imports(symbol, fingerprint);
COMMIT;
