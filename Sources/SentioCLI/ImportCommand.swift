import ArgumentParser
import Foundation
import Sentio

/// `sentio import`: loads OHLCV CSV files into the store's `bars` table, one transaction per file.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import OHLCV CSV files into a Sentio store (one transaction per file).",
        discussion: """
            Each file is read and validated by the same reader as every other command (a bad row stops with \
            FILE:LINE: field 'NAME' and exit code 2; that file is not imported, files before it stay imported). \
            The symbol is the file name without its extension. A file whose content was imported before is \
            recognised by its fingerprint (XXH64 of the bytes) and changes nothing. Bars that overlap stored bars \
            with different values are conflicts: reported, and the stored values are kept unless --replace.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories (a directory stands for its *.csv files, sorted by symbol).", valueName: "PATH"))
    var paths: [String]

    @OptionGroup var store: StoreOptions

    @Flag(help: "Overwrite stored bars whose values differ from the file's (default: keep the stored values and report the conflicts).")
    var replace = false

    @OptionGroup var lenient: LenientOptions

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one CSV file or directory") }
    }

    func run() throws {
        let files = try OHLCVReader.expand(paths: paths)
        let database = try store.open(mode: .createIfMissing)
        var totals = (files: 0, inserted: 0, identical: 0, conflicts: 0, replaced: 0, unchanged: 0)
        // Parsing file k+1 overlaps with writing file k (two cores); results are still handled strictly in order.
        let reader = PrefetchingReader(files: files, options: lenient.readOptions)
        var skippedRows: [(file: String, skipped: [SkippedRow])] = []
        for (index, file) in files.enumerated() {
            let parsed: (result: ReadResult, fingerprint: String)
            do {
                parsed = try reader.next()
            } catch {
                // The skipped rows of the files read so far are still reported (and --rejects written).
                if lenient.enabled { try lenient.report(skippedRows) }
                if index > 0 {
                    printError("note: \(index) earlier file(s) were imported into \(database.path); \(file) and later files were not")
                }
                throw error
            }
            skippedRows.append((file, parsed.result.skipped))
            let report = try database.importSeries(
                parsed.result.series, sourcePath: file, fingerprint: parsed.fingerprint, replace: replace)
            print(report.description)
            totals.files += 1
            if case .unchanged = report.outcome { totals.unchanged += 1 }
            totals.inserted += report.inserted
            totals.identical += report.identical
            totals.conflicts += report.conflicts
            totals.replaced += report.replaced
        }
        if lenient.enabled { try lenient.report(skippedRows) }
        var summary = "\(totals.files) file(s) into \(database.path): \(totals.inserted) new bars, \(totals.identical) already stored"
        if totals.unchanged > 0 { summary += ", \(totals.unchanged) file(s) unchanged" }
        if totals.conflicts > 0 {
            summary += replace ? ", \(totals.replaced) conflicting bars replaced" : ", \(totals.conflicts) conflicts kept as stored"
        }
        print(summary)
    }
}

/// Reads files in order, parsing the next file on a background thread while the caller stores the current one.
///
/// Each file is parsed by `OHLCVReader.readWithReport`, so errors are exactly the reader's, then fingerprinted
/// (XXH64 of its bytes). At most two files are in memory at once.
private final class PrefetchingReader: @unchecked Sendable {
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
