import Foundation
import SentioCore
import SentioData
import SentioStore

/// Imports OHLCV CSV files into a store, one transaction per file: the pipeline behind `sentio import`.
///
/// Files are handled strictly in the given order; parsing file k+1 (on a background thread) overlaps with
/// storing file k, so at most two files are in memory at once. Each file is read by `OHLCVReader.readWithReport`
/// (errors are exactly the reader's) and fingerprinted (XXH64 of its bytes, `ContentFingerprint`); then
/// `SentioDatabase.importSeries` merges it (see there for identical bars, conflicts and `replace`). After each
/// file, the symbol gets its entry of `defaultNames` as its instrument name unless the store already has a name
/// for it (`SentioDatabase.setInstrumentNames(_:overwrite:)` without overwrite).
///
/// The first file that fails stops the import: the files before it stay imported, it and the later ones are not
/// read further, and the error is ``StoreImportInterrupted`` carrying what was done.
public enum StoreImport {
    /// - Parameters:
    ///   - files: OHLCV CSV files (already expanded: `OHLCVReader.expand(paths:)`).
    ///   - defaultNames: instrument names by symbol, stored for symbols that have none yet.
    ///   - progress: called after each file is stored, in order.
    /// - Throws: ``StoreImportInterrupted`` (its `underlying` error is the reader's or the store's).
    public static func run(
        files: [String], into database: SentioDatabase, readOptions: ReadOptions = ReadOptions(), replace: Bool = false,
        defaultNames: [String: String] = [:], progress: (ImportReport) -> Void = { _ in }
    ) throws(StoreImportInterrupted) -> StoreImportResult {
        var result = StoreImportResult(reports: [], skipped: [])
        let reader = PrefetchingReader(files: files, options: readOptions)
        for file in files {
            do {
                let parsed = try reader.next()
                result.skipped.append((file, parsed.result.skipped))
                let series = parsed.result.series
                let report = try database.importSeries(series, sourcePath: file, fingerprint: parsed.fingerprint, replace: replace)
                if let name = defaultNames[series.symbol] {
                    try database.setInstrumentNames([(series.symbol, name)], overwrite: false)
                }
                result.reports.append(report)
                progress(report)
            } catch {
                throw StoreImportInterrupted(completed: result, file: file, underlying: error)
            }
        }
        return result
    }
}

/// What ``StoreImport/run(files:into:readOptions:replace:defaultNames:progress:)`` did.
public struct StoreImportResult: Sendable {
    /// One report per imported file, in order.
    public var reports: [ImportReport]
    /// The rows skipped by lenient reading, per file read (empty lists in strict mode).
    public var skipped: [(file: String, skipped: [SkippedRow])]

    public var inserted: Int { reports.reduce(0) { $0 + $1.inserted } }
    public var identical: Int { reports.reduce(0) { $0 + $1.identical } }
    public var conflicts: Int { reports.reduce(0) { $0 + $1.conflicts } }
    public var replaced: Int { reports.reduce(0) { $0 + $1.replaced } }
    /// Files recognised by their fingerprint as imported before (nothing written).
    public var unchanged: Int {
        reports.reduce(0) { n, r in if case .unchanged = r.outcome { return n + 1 } else { return n } }
    }

    /// One line: `N file(s) into PATH: X new bars, Y already stored[, U file(s) unchanged][, conflicts]`.
    public func summary(databasePath: String, replace: Bool) -> String {
        var text = "\(reports.count) file(s) into \(databasePath): \(inserted) new bars, \(identical) already stored"
        if unchanged > 0 { text += ", \(unchanged) file(s) unchanged" }
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
/// Each file is parsed by `OHLCVReader.readWithReport`, so errors are exactly the reader's, then fingerprinted
/// (XXH64 of its bytes). At most two files are in memory at once.
final class PrefetchingReader: @unchecked Sendable {
    typealias Parsed = (result: ReadResult, fingerprint: String)
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
                let result = try OHLCVReader.readWithReport(path: path, options: options)
                return (result, try ContentFingerprint.ofFile(atPath: path))
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
