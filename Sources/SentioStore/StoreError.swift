import Foundation
import GRDB
import SentioCore

/// A problem with a Sentio database file or with what was asked of it.
///
/// Every case is a user-facing condition (a wrong path, a file that is not a database, a database written by a
/// newer Sentio, an unknown run id...), so the type conforms to `UserInputError` and the command-line tool exits
/// with code 2 and prints `description`. Genuine bugs surface as other errors.
public enum StoreError: UserInputError, Equatable {
    /// No file at `path` and the operation does not create one.
    case missingDatabase(path: String)
    /// SQLite could not open the file (a directory, no permission, a missing parent directory...).
    case cannotOpen(path: String, reason: String)
    /// The file exists but is not an SQLite database (SQLite's `SQLITE_NOTADB`).
    case notADatabase(path: String)
    /// An SQLite database, but not one written by Sentio (it has tables and no Sentio schema marker).
    case notASentioDatabase(path: String)
    /// The file is shorter than the size its own header declares: it was cut off.
    case truncated(path: String, expectedBytes: Int64, actualBytes: Int64)
    /// SQLite found damaged pages (`SQLITE_CORRUPT`) or `PRAGMA integrity_check` failed.
    case corrupt(path: String, detail: String)
    /// The schema was written by a newer Sentio: a higher schema version or migrations this build does not know.
    case newerSchema(path: String, foundVersion: Int, supportedVersion: Int, unknownMigrations: [String])
    /// Another process held the database lock for longer than the busy timeout.
    case busy(path: String, timeoutSeconds: Double)
    /// The database or its directory is read-only but the operation writes.
    case readOnly(path: String)
    /// A stored column block failed its checks on load (checksum, ordering, bar rules) or disagrees with the
    /// catalogue: the file was changed outside SQLite or damaged. `block` is the 1-based block of `symbol`
    /// (oldest first), `nil` when the symbol's catalogue entry is what disagrees.
    case damaged(path: String, symbol: String, block: Int?, detail: String)
    /// The disk is full.
    case diskFull(path: String)
    /// A series given to `importSeries` is not storable (empty symbol, unordered timestamps, non-finite values).
    case invalidSeries(symbol: String, detail: String)
    /// A record given to a `save...` method is not storable.
    case invalidRecord(kind: String, detail: String)
    /// No run with this id.
    case runNotFound(id: Int64, path: String)
    /// The store holds no bars for this symbol.
    case unknownSymbol(symbol: String, path: String)

    public var description: String {
        switch self {
        case .missingDatabase(let path):
            return "no database at \(path) (create one with `sentio import CSV... --db \(path)`)"
        case .cannotOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .notADatabase(let path):
            return "\(path) is not an SQLite database (SQLite: file is not a database)"
        case .notASentioDatabase(let path):
            return "\(path) is an SQLite database but not a Sentio store (no Sentio schema marker); refusing to modify it"
        case .truncated(let path, let expected, let actual):
            return "database \(path) is truncated: its header declares \(expected) bytes but the file has \(actual)"
        case .corrupt(let path, let detail):
            return "database \(path) is corrupt: \(detail)"
        case .newerSchema(let path, let found, let supported, let unknown):
            var text =
                "database \(path) was written by a newer Sentio (schema version \(found); this build supports up to \(supported))"
            if !unknown.isEmpty { text += "; unknown migrations: \(unknown.sorted().joined(separator: ", "))" }
            return text + ". Upgrade Sentio to use it."
        case .busy(let path, let timeout):
            return "database \(path) is locked by another process (waited \(timeout) s)"
        case .readOnly(let path):
            return "database \(path) is read-only"
        case .damaged(let path, let symbol, let block, let detail):
            let place = block.map { "\(symbol), block \($0)" } ?? symbol
            return "database \(path) is damaged (\(place)): re-import the file (`sentio import FILE --replace --db \(path)`); \(detail)"
        case .diskFull(let path):
            return "disk full while writing database \(path)"
        case .invalidSeries(let symbol, let detail):
            return "cannot store series '\(symbol)': \(detail)"
        case .invalidRecord(let kind, let detail):
            return "cannot store \(kind): \(detail)"
        case .runNotFound(let id, let path):
            return "no run with id \(id) in \(path)"
        case .unknownSymbol(let symbol, let path):
            return "no bars for symbol '\(symbol)' in \(path) (import its CSV with `sentio import`)"
        }
    }

    /// Translates SQLite conditions a user can cause into `StoreError`; returns `nil` for anything else.
    static func translating(_ error: any Error, path: String, busyTimeout: Double) -> StoreError? {
        if let storeError = error as? StoreError { return storeError }
        if let damage = error as? BlockDamage {
            return .damaged(path: path, symbol: damage.symbol, block: damage.block, detail: damage.detail)
        }
        guard let databaseError = error as? DatabaseError else { return nil }
        switch databaseError.resultCode {
        case .SQLITE_NOTADB:
            return .notADatabase(path: path)
        case .SQLITE_CORRUPT:
            return .corrupt(path: path, detail: databaseError.message ?? "database disk image is malformed")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(path: path, timeoutSeconds: busyTimeout)
        case .SQLITE_CANTOPEN:
            return .cannotOpen(path: path, reason: databaseError.message ?? "unable to open database file")
        case .SQLITE_READONLY:
            return .readOnly(path: path)
        case .SQLITE_FULL:
            return .diskFull(path: path)
        case .SQLITE_ERROR:
            // Sentio's statements are fixed and tested against its schema: a table or column that is missing means
            // the schema stored in the file was damaged.
            let message = databaseError.message ?? ""
            if message.hasPrefix("no such table") || message.hasPrefix("no such column") {
                return .corrupt(path: path, detail: "its schema is damaged (\(message))")
            }
            return nil
        case .SQLITE_IOERR:
            // A short read past the end of a cut-off file surfaces as an I/O error in some SQLite builds.
            return .corrupt(path: path, detail: databaseError.message ?? "disk I/O error")
        default:
            return nil
        }
    }
}
