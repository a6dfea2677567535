import Foundation
import SentioCore
import SentioData
import SentioStore

/// Imports OHLCV CSV files into a store, one transaction per file: the pipeline behind `sentio import`.
///
/// Files are handled strictly in the given order; parsing file k+1 (on a background thread) overlaps with
/// storing file k, so at most two files are in memory at once. Each file is read by `OHLCVReader.readResults`
/// (errors are exactly the reader's; a long-form file, with a `Ticker`/`Symbol` column, gives one series per symbol,
/// sorted by symbol) and fingerprinted (XXH64 of its bytes, `ContentFingerprint`); then `SentioDatabase.importSeries`
/// merges each series in its own transaction (see there for identical bars, conflicts and `replace`; the fingerprint
/// is recorded per symbol, so a long-form file imported again changes nothing). After each series, the symbol gets
/// its entry of `defaultNames` as its instrument name unless the store already has a name for it
/// (`SentioDatabase.setInstrumentNames(_:overwrite:)` without overwrite).
///
/// The first file that fails stops the import: the files before it stay imported (and, when storing a series of a
/// long-form file fails, the series of that file before it), the rest is not read further, and the error is
/// ``StoreImportInterrupted`` carrying what was done.
public enum StoreImport {
    /// - Parameters:
    ///   - files: OHLCV CSV files (already expanded: `OHLCVReader.expand(paths:)`).
    ///   - database: the store the series go into.
    ///   - readOptions: how the files are read (SentioData's `ReadOptions`).
    ///   - replace: overwrite conflicting stored bars with the file's values (`SentioDatabase.importSeries`).
    ///   - defaultNames: instrument names by symbol, stored for symbols that have none yet.
    ///   - progress: called after each file is stored, in order.
    /// - Throws: ``StoreImportInterrupted`` (its `underlying` error is the reader's or the store's).
    public static func run(
        files: [String], into database: SentioDatabase, readOptions: ReadOptions = ReadOptions(), replace: Bool = false,
        defaultNames: [String: String] = [:], progress: (ImportReport) -> Void = { _ in }
    ) throws(StoreImportInterrupted) -> StoreImportResult {
        var result = StoreImportResult(reports: [], skipped: [], files: 0)
        let reader = PrefetchingReader(files: files, options: readOptions)
        for file in files {
            do {
                let parsed = try reader.next()
                result.skipped.append((file, parsed.results.flatMap(\.skipped).sorted { $0.line < $1.line }))
                result.files += 1
                for read in parsed.results {
                    let series = read.series
                    let report = try database.importSeries(series, sourcePath: file, fingerprint: parsed.fingerprint, replace: replace)
                    if let name = defaultNames[series.symbol] {
                        try database.setInstrumentNames([(series.symbol, name)], overwrite: false)
                    }
                    result.reports.append(report)
                    progress(report)
                }
            } catch {
                throw StoreImportInterrupted(completed: result, file: file, underlying: error)
            }
        }
        return result
    }
}

/// What ``StoreImport/run(files:into:readOptions:replace:defaultNames:progress:)`` did.
public struct StoreImportResult: Sendable {
    /// One report per imported series, in order (one per file; a long-form file has one per symbol).
    public var reports: [ImportReport]
    /// The rows skipped by lenient reading, per file read (empty lists in strict mode).
    public var skipped: [(file: String, skipped: [SkippedRow])]
    /// Files read and stored.
    public var files: Int

    public var inserted: Int { reports.reduce(0) { $0 + $1.inserted } }
    public var identical: Int { reports.reduce(0) { $0 + $1.identical } }
    public var conflicts: Int { reports.reduce(0) { $0 + $1.conflicts } }
    public var replaced: Int { reports.reduce(0) { $0 + $1.replaced } }
    /// Files recognised by their fingerprint as imported before (nothing written).
    public var unchanged: Int {
        reports.reduce(0) { n, r in if case .unchanged = r.outcome { return n + 1 } else { return n } }
    }

    /// One line: `N file(s)[ (S symbols)] into PATH: X new bars, Y already stored[, U file(s) unchanged][, conflicts]`
    /// (the symbols are counted when a long-form file made them differ from the files; unchanged files are then
    /// counted as symbols).
    public func summary(databasePath: String, replace: Bool) -> String {
        let perSymbol = reports.count != files
        var text = "\(files) file(s)\(perSymbol ? " (\(reports.count) symbols)" : "") into \(databasePath): "
            + "\(inserted) new bars, \(identical) already stored"
        if unchanged > 0 { text += perSymbol ? ", \(unchanged) symbol(s) unchanged" : ", \(unchanged) file(s) unchanged" }
        if conflicts > 0 {
            text += replace ? ", \(replaced) conflicting bars replaced" : ", \(conflicts) conflicts kept as stored"
        }
        return text
    }
}

/// An import stopped by the file `file`: `completed` holds the files imported before it.
public struct StoreImportInterrupted: Error, @unchecked Sendable {
    public var completed: StoreImportResult
    public var file: String
    /// The reader's or the store's error (a `UserInputError` for bad input).
    public var underlying: any Error
}

/// Reads files in order, parsing the next file on a background thread while the caller stores the current one.
///
/// Each file is parsed by `OHLCVReader.readResults`, so errors are exactly the reader's, then fingerprinted
/// (XXH64 of its bytes). At most two files are in memory at once.
final class PrefetchingReader: @unchecked Sendable {
    typealias Parsed = (results: [ReadResult], fingerprint: String)
    private let files: [String]
    private let options: ReadOptions
    private var nextIndex = 0
    private var pending: (group: DispatchGroup, slot: Slot)?

    private final class Slot: @unchecked Sendable {
        var value: Result<Parsed, any Error>?
    }

    init(files: [String], options: ReadOptions) {
        self.files = files
        self.options = options
        pending = start(0)
    }

    private func start(_ index: Int) -> (group: DispatchGroup, slot: Slot)? {
        guard index < files.count else { return nil }
        let group = DispatchGroup(), slot = Slot()
        let path = files[index], options = self.options
        DispatchQueue.global().async(group: group) {
            slot.value = Result {
                // Read first, so that an unreadable file gets the reader's error.
                let results = try OHLCVReader.readResults(path: path, options: options)
                return (results, try ContentFingerprint.ofFile(atPath: path))
            }
        }
        return (group, slot)
    }

    /// The next file's parse result, in order; starts parsing the one after.
    func next() throws -> Parsed {
        guard let current = pending else { preconditionFailure("no more files") }
        current.group.wait()
        nextIndex += 1
        let value = current.slot.value!
        // Only prefetch further when this file parsed: after an error nothing more is read.
        if case .success = value { pending = start(nextIndex) } else { pending = nil }
        return try value.get()
    }
}
