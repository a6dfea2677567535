import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication

/// `sentio import`: loads OHLCV CSV files into the store's `bars` table, one transaction per file
/// (the library's `StoreImport`), and names the instruments.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import OHLCV CSV files into a Sentio store (one transaction per file).",
        discussion: """
            Each file is read and validated by the same reader as every other command (a bad row stops with FILE:LINE: field 'NAME' and exit code 2; that file is not imported, files before it stay imported).
            The symbol is the file name without its extension; a long-form file (a Ticker or Symbol column, many symbols in one file) is imported as one series per symbol, each in its own transaction, with the same reading rules (--adjust, --actions, --date-format, --timezone) as every other command. A file whose content was imported before is recognised by its fingerprint (XXH64 of the bytes, recorded per symbol) and changes nothing.
            Bars that overlap stored bars with different values are conflicts: reported, and the stored values are kept unless --replace.
            Instrument names (the "name" of `sentio signals --detail`): an imported symbol that has no stored name gets its built-in name (the twelve sample ETFs, e.g. TQQQ "Nasdaq 3x Bull"). --metadata FILE stores the names of a CSV file with the header symbol,name (any order and case, no other column; one row per symbol; RFC 4180 quoting) before the bars are imported; its names replace stored and built-in ones, and may name symbols whose bars come later. A metadata error (missing or unknown column, wrong cell count, empty symbol or name, a symbol listed twice) names FILE:LINE and the field, exits with 2, and imports nothing.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories (a directory stands for its *.csv files, sorted by symbol).", valueName: "PATH"))
    var paths: [String]

    @OptionGroup var store: StoreOptions

    @Flag(help: "Overwrite stored bars whose values differ from the file's (default: keep the stored values and report the conflicts).")
    var replace = false

    @Option(help: ArgumentHelp("Instrument names to store: a CSV file with the header symbol,name.", valueName: "FILE"))
    var metadata: String?

    @OptionGroup var lenient: LenientOptions

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one CSV file or directory") }
    }

    func run() throws {
        // On a terminal: the phases and the files done (standard error; nothing when it is not a terminal).
        let progress = TerminalProgress("import", phases: ["reading metadata", "reading and writing"])
        defer { progress.finish() }
        progress.begin("reading metadata")
        let files = try OHLCVReader.expand(paths: paths)
        // Before anything is read or stored: --rejects must not replace an input or the store, and must be writable.
        try checkOutputPath(
            lenient.rejects, option: "--rejects",
            against: inputFiles(files + (metadata.map { [$0] } ?? [])) + [(store.path, "the store")])
        let names = try metadata.map(InstrumentMetadataFile.read)
        let database = try store.open(mode: .createIfMissing)
        if let names { try database.setInstrumentNames(names, overwrite: true) }
        let builtIn = InstrumentNames.shippedNames
        let result: StoreImportResult
        progress.begin("reading and writing", unit: "files")
        progress.update(0, of: files.count)
        var imported = 0
        var lastFile: String?
        // The per-file lines cannot throw out of the import's callback: the first failure to write them is
        // kept and reported once the import has finished (the files are imported either way).
        var outputFailure: WriteError?
        let readOptions = try marketFile.analysisReadOptions(lenient: lenient.enabled)
        do {
            result = try StoreImport.run(
                files: files, into: database, readOptions: readOptions, replace: replace, defaultNames: builtIn,
                progress: { report in
                    progress.clearLine()
                    if outputFailure == nil {
                        do throws(WriteError) { try StandardOutput.write(report.description + "\n") } catch { outputFailure = error }
                    }
                    // A long-form file reports one series per symbol: count it once.
                    if report.sourcePath != lastFile {
                        lastFile = report.sourcePath
                        imported += 1
                    }
                    progress.update(imported, of: files.count)
                })
        } catch {
            // The skipped rows of the files read so far are still reported (and --rejects written).
            if lenient.enabled { try lenient.report(error.completed.skipped) }
            let done = error.completed.reports.count
            if done > 0 {
                printError("note: \(done) earlier file(s) were imported into \(database.path); \(error.file) and later files were not")
            }
            throw error.underlying
        }
        progress.finish()
        if let outputFailure { throw outputFailure }
        if lenient.enabled { try lenient.report(result.skipped) }
        print(result.summary(databasePath: database.path, replace: replace))
    }
}
