import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication

/// `sentio signals`: the latest model signal per symbol (`GET /signals`), every bar's with `--history`, or one
/// symbol's detail (`GET /symbols/{symbol}`) with `--detail`. The shapes and their JSON/CSV forms are SentioAPI's.
struct SignalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signals",
        abstract: "BUY/SELL/HOLD signals from the Sentio rolling-regression model, per symbol.",
        discussion: """
            Reads OHLCV CSV files (or directories of SYMBOL.csv files; the symbol is the file name) and prints the latest signal of each symbol in the GET /signals JSON shape: {"timestamp", "signals": [...], "warmingUp": [...]}, where "timestamp" is the latest bar time and a symbol whose model has not seen enough bars yet is listed under "warmingUp" with "barsRemaining" (the bars still needed before its first signal) instead of as a signal.
            --history writes every bar's signal instead: JSON {"model", "config", "timestamp", "signals", "warmingUp"} with the parameters used and one signal per bar past the warm-up; CSV one row per signal, the columns being the signal's fields (id, symbol, timestamp, price, change, changePercent, signalType, confidence, targetReturn, stopLoss, profitTarget, aiSignal, rsi, volumeRatio, recommendation, reasoning). History rows also carry the outcome: horizonBars (h), realizedReturn (percent, 100 x (C[t+h]/C[t] - 1); null in JSON and empty in CSV until bar t+h exists) and right (BUY: realizedReturn > 0, SELL: < 0; null/empty for HOLD and until known). Without --history, CSV has the signal columns only, one row per symbol with a signal; warming-up symbols are named on standard error.
            --detail SYMBOL writes that symbol's GET /symbols/{symbol} JSON: {"symbol", "name", "price", "signal", "historicalData"} with the bars (the last --last N of them). The name is the one in --metadata FILE (CSV symbol,name, as in `sentio import --metadata`), else the name stored with --db FILE, else the built-in name of the twelve sample ETFs, else the symbol itself. A symbol still warming up has no detail (exit 2).
            Units: price, change and profitTarget are prices; changePercent, targetReturn and stopLoss are percents (2.5 = 2.5%; stopLoss is negative); confidence is the calibrated probability that the signal is right, a fraction in [0, 1] (0.55 = 55%; see `sentio evaluate`). Numbers are written exactly (shortest round-trip form); a number the model cannot give (e.g. the volume ratio of an all-zero-volume window) is an error naming the symbol, field and bar, never null. The model is described in the SentioSignals documentation (SignalModel). Output is deterministic; files given with --output are written atomically.
            Store: with --db FILE and no PATH the bars come from that store (see `sentio import`); --symbols, --from and --to select bars the same way from CSV files and from the store (the model sees only the selected bars, so --from shortens its warm-up history). --save writes the signals printed (every bar's with --history, else the latest per symbol) to the store's signal history as model "sentio", replacing stored signals of the same symbol and time; the store is --db FILE, else the default. PATH and --db together are allowed only with --save: PATH is then the data and --db where the signals are saved.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories of SYMBOL.csv files (default: Data/market; with --db, the stored bars).", valueName: "PATH"))
    var paths: [String] = []

    @Flag(help: "Write every bar's signal (for charts and research) instead of the latest per symbol.")
    var history = false

    @Option(help: ArgumentHelp("Write this symbol's detail (GET /symbols/{symbol} JSON: name, price, signal, bars) instead of the latest signals.", valueName: "SYMBOL"))
    var detail: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --detail: the number of most recent bars in historicalData (default: all).", valueName: "N"))
    var last: Int?

    @Option(help: ArgumentHelp("Instrument names for --detail: a CSV file with the header symbol,name.", valueName: "FILE"))
    var metadata: String?

    @Option(help: ArgumentHelp("Output format: json or csv (--detail: json only).", valueName: "json|csv"))
    var format: OutputFormat = .json

    @Option(help: ArgumentHelp("Write to this file (atomically) instead of standard output.", valueName: "PATH"))
    var output: String?

    @OptionGroup var lenient: LenientOptions

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    @OptionGroup var selection: SymbolSelectionOptions

    @OptionGroup var range: BarRangeOptions

    @Flag(help: "Save the signals printed in the store's signal history (--db FILE, else the default store).")
    var save = false

    @OptionGroup var store: StoreOptions

    @OptionGroup(title: "Model parameters")
    var model: SignalModelOptions

    func validate() throws {
        try format.require([.json, .csv])
        if let last, last < 1 { throw ValidationError("--last must be at least 1, got \(last)") }
        if !paths.isEmpty && store.database != nil && !save {
            throw ValidationError(
                "give either PATH (CSV input) or --db FILE (stored bars), not both; "
                    + "with --save, PATH is the data and --db the store the signals are saved to")
        }
        if readsStore && lenient.enabled { throw ValidationError("--lenient applies to CSV input only, not to stored bars") }
        if let detail {
            if detail.isEmpty { throw ValidationError("--detail needs a symbol") }
            if history { throw ValidationError("--detail and --history are different outputs; give one of them") }
            if selection.symbols != nil { throw ValidationError("--detail SYMBOL selects the symbol; leave out --symbols") }
            if format != .json { throw ValidationError("--detail writes JSON only; leave out --format \(format.rawValue)") }
        } else {
            if last != nil { throw ValidationError("--last applies to --detail only") }
            if metadata != nil { throw ValidationError("--metadata applies to --detail only (names are part of the symbol detail)") }
        }
    }

    func run() throws {
        let progress = TerminalProgress("signals", phases: ["reading", "indicators and signals", "writing"])
        defer { progress.finish() }
        progress.begin("reading")
        let config = try model.resolve()
        let wanted = try detail.map { [$0] } ?? selection.list()
        let inputs = try readsStore ? loadStoredInputs(symbols: wanted) : loadCSVInputs(symbols: wanted)
        progress.begin("indicators and signals", unit: "symbols")
        let perSymbol = try inputs.enumerated().map { k, input in
            let (series, source) = input
            defer { progress.update(k + 1, of: inputs.count) }
            do {
                return try SignalModel.evaluate(series, config: config)
            } catch let error as SignalInputError {
                throw UsageError("\(source): \(error.description)")
            }
        }
        progress.begin("writing")
        let text: String
        if detail != nil {
            text = try APIJSON.encode(try SignalContracts.symbolDetail(
                series: inputs[0].series, config: config, names: try instrumentNames(), historyLimit: last))
        } else if history {
            let document = try SignalContracts.history(perSymbol, config: config)
            text = format == .csv ? try document.csv() : try APIJSON.encode(document)
        } else {
            let response = try SignalContracts.response(perSymbol.compactMap(\.last), config: config)
            if format == .csv {
                text = try APISignal.csv(response.signals)
                for w in response.warmingUp {
                    progress.clearLine()
                    printError("note: \(w.symbol) is still warming up: \(w.barsRemaining) more bar\(w.barsRemaining == 1 ? "" : "s") before its first signal")
                }
            } else {
                text = try APIJSON.encode(response)
            }
        }
        // --output and --save together or not at all: the file is staged, the signals saved, then the file renamed.
        let outputs = OutputTransaction()
        if let output { try outputs.stage(output, text: text) }
        OutputTransaction.reachedStagedPoint()
        progress.finish()
        if save {
            let saved = history ? perSymbol.flatMap { $0 } : perSymbol.compactMap(\.last)
            let database = try store.open(mode: .createIfMissing)
            let count = try database.saveSignals(saved.map { StoredSignal($0) })
            printError("saved \(count) signal(s) to \(database.path)")
        }
        try outputs.commit()
        if output == nil { try StandardOutput.write(text) }
    }

    /// True when the bars come from the store: `--db` given and no PATH.
    var readsStore: Bool { paths.isEmpty && store.database != nil }

    /// Names for `--detail`: `--metadata`, else the names stored in `--db`, else the built-in ones, else the symbol.
    func instrumentNames() throws -> InstrumentNames {
        var overrides: [String: String] = [:]
        if store.database != nil, FileManager.default.fileExists(atPath: store.path) {
            for instrument in try store.open(mode: .readOnly).instruments() {
                if let name = instrument.name { overrides[instrument.symbol] = name }
            }
        }
        if let metadata {
            for row in try InstrumentMetadataFile.read(path: metadata) { overrides[row.symbol] = row.name }
        }
        return InstrumentNames(overrides: overrides, symbolAsLastResort: true)
    }

    /// The CSV series (with the file each came from, for messages), selected by `symbols`, `--from`, `--to`.
    func loadCSVInputs(symbols: [String]?) throws -> [(series: OHLCVSeries, source: String)] {
        let inputs = paths.isEmpty ? ["Data/market"] : paths
        let files = try OHLCVReader.expand(paths: inputs)
        try checkOutputPath(lenient.rejects, option: "--rejects", against: inputFiles(files))
        try checkOutputPath(output, option: "--output", against: inputFiles(files))
        let results = try OHLCVReader.readAllWithReports(
            paths: inputs, options: try marketFile.analysisReadOptions(lenient: lenient.enabled))
        MarketFileOptions.printNotesAndStatement(results)
        var seen: Set<String> = []
        for result in results {
            let symbol = result.series.symbol
            guard seen.insert(symbol).inserted else {
                throw UsageError("symbol \(symbol) appears in more than one input file; give each symbol once")
            }
        }
        if lenient.enabled { try lenient.report(results.map { ($0.file, $0.skipped) }) }
        // Symbols come from file names; they are matched without regard to case, as for stored bars.
        var selected = try SymbolSelection.select(
            symbols, from: results.map { (series: $0.series, source: $0.file) }, symbol: \.series.symbol,
            option: detail != nil ? "--detail" : "--symbols")
        let range = try self.range.resolve()
        if !range.isUnbounded {
            selected = selected.map { (series: range.apply(to: $0.series), source: $0.source) }
            try range.requireBars(in: selected.map(\.series), source: inputs.joined(separator: ", "))
        }
        return selected
    }

    /// The stored series of `symbols` (default all) within `--from`/`--to`; the store must exist.
    func loadStoredInputs(symbols: [String]?) throws -> [(series: OHLCVSeries, source: String)] {
        let database = try store.open(mode: .readOnly)
        let series = try database.selectSeries(
            symbols: symbols, range: try range.resolve(), option: detail != nil ? "--detail" : "--symbols")
        return series.map { (series: $0, source: "\(database.path) symbol \($0.symbol)") }
    }
}
