import ArgumentParser
import Foundation
import Sentio

extension NumberPrecision: ExpressibleByArgument {}

/// Output format of `sentio signals`.
enum SignalsFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv
}

/// Model parameters as command-line options; each overrides the config file, which overrides the defaults.
struct SignalModelOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Model parameters from a JSON file (keys as in the history's \"config\"; missing keys keep their defaults). Flags below override it.", valueName: "FILE.json"))
    var config: String?

    @Option(help: ArgumentHelp("Forecast horizon h: target is the log return over the next h bars (bars; default 5).", valueName: "N"))
    var horizon: Int?

    @Option(name: .customLong("window"), help: ArgumentHelp("Regression window W: (feature, target) pairs per fit (count; default 120).", valueName: "N"))
    var regressionWindow: Int?

    @Option(name: .customLong("reseed-interval"), help: ArgumentHelp("Regression updates between exact re-computations of the window moments (count; default 1000).", valueName: "N"))
    var regressionReseedInterval: Int?

    @Option(name: .customLong("short-momentum"), help: ArgumentHelp("Short momentum lookback s: feature ln(C[t]/C[t-s]) (bars; default 5).", valueName: "N"))
    var shortMomentumPeriod: Int?

    @Option(name: .customLong("medium-momentum"), help: ArgumentHelp("Medium momentum lookback m > s: feature ln(C[t]/C[t-m]) (bars; default 20).", valueName: "N"))
    var mediumMomentumPeriod: Int?

    @Option(name: .customLong("rsi-period"), help: ArgumentHelp("Wilder RSI period (bars; default 14).", valueName: "N"))
    var rsiPeriod: Int?

    @Option(name: .customLong("volume-window"), help: ArgumentHelp("Volume-ratio window, current bar included (bars; default 20).", valueName: "N"))
    var volumeWindow: Int?

    @Option(name: .customLong("atr-period"), help: ArgumentHelp("Wilder ATR period (bars; default 14).", valueName: "N"))
    var atrPeriod: Int?

    @Option(name: .customLong("buy-threshold"), help: ArgumentHelp("BUY needs aiSignal >= this score (default 1.0).", valueName: "Z"))
    var buyScoreThreshold: Double?

    @Option(name: .customLong("sell-threshold"), help: ArgumentHelp("SELL when aiSignal <= minus this score (default 1.0).", valueName: "Z"))
    var sellScoreThreshold: Double?

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("BUY needs confidence >= this, in [0, 1] (default 0.25).", valueName: "P"))
    var minimumConfidence: Double?

    @Option(name: .customLong("rsi-overbought"), help: ArgumentHelp("RSI at or above this blocks BUY and triggers SELL (RSI points; default 70).", valueName: "RSI"))
    var rsiOverbought: Double?

    @Option(name: .customLong("rsi-oversold"), help: ArgumentHelp("RSI at or below this blocks a score SELL; 0 disables (RSI points; default 30).", valueName: "RSI"))
    var rsiOversold: Double?

    @Option(name: .customLong("stop-atr-multiple"), help: ArgumentHelp("Stop loss = -multiple x ATR/price x 100 (ATR multiples; default 1.5).", valueName: "K"))
    var stopLossATRMultiple: Double?

    @Option(name: .customLong("overlap-correction"), help: ArgumentHelp("Inflate the forecast's standard error by sqrt(h) for overlapping targets: true or false (default true).", valueName: "BOOL"))
    var overlapCorrection: Bool?

    @Option(name: .customLong("strong-confidence"), help: ArgumentHelp("Confidence from which the text says Strong/High (default 0.6).", valueName: "P"))
    var strongConfidence: Double?

    @Option(name: .customLong("moderate-confidence"), help: ArgumentHelp("Confidence from which the text says Moderate (default 0.35).", valueName: "P"))
    var moderateConfidence: Double?

    /// Defaults, then the config file, then the flags; validated.
    func resolve() throws -> SignalModelConfig {
        var model = SignalModelConfig()
        if let config {
            model = try Self.load(config)
        }
        if let horizon { model.horizon = horizon }
        if let regressionWindow { model.regressionWindow = regressionWindow }
        if let regressionReseedInterval { model.regressionReseedInterval = regressionReseedInterval }
        if let shortMomentumPeriod { model.shortMomentumPeriod = shortMomentumPeriod }
        if let mediumMomentumPeriod { model.mediumMomentumPeriod = mediumMomentumPeriod }
        if let rsiPeriod { model.rsiPeriod = rsiPeriod }
        if let volumeWindow { model.volumeWindow = volumeWindow }
        if let atrPeriod { model.atrPeriod = atrPeriod }
        if let buyScoreThreshold { model.buyScoreThreshold = buyScoreThreshold }
        if let sellScoreThreshold { model.sellScoreThreshold = sellScoreThreshold }
        if let minimumConfidence { model.minimumConfidence = minimumConfidence }
        if let rsiOverbought { model.rsiOverbought = rsiOverbought }
        if let rsiOversold { model.rsiOversold = rsiOversold }
        if let stopLossATRMultiple { model.stopLossATRMultiple = stopLossATRMultiple }
        if let overlapCorrection { model.overlapCorrection = overlapCorrection }
        if let strongConfidence { model.strongConfidence = strongConfidence }
        if let moderateConfidence { model.moderateConfidence = moderateConfidence }
        try model.validate()
        return model
    }

    /// Reads a (possibly partial) config file; errors name the file and the offending key.
    static func load(_ path: String) throws -> SignalModelConfig {
        let data = Data(try TextFile.read(path).utf8)
        do {
            return try JSONDecoder().decode(SignalModelConfig.self, from: data)
        } catch let error as DecodingError {
            throw UsageError("\(path): invalid model config: \(describe(error))")
        } catch {
            throw UsageError("\(path): invalid model config: \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "top level" : "key '" + keys.map(\.stringValue).joined(separator: ".") + "'"
        }
        switch error {
        case let .typeMismatch(type, context):
            return "\(path(context.codingPath)): expected \(type)"
        case let .valueNotFound(type, context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case let .keyNotFound(key, _):
            return "missing key '\(key.stringValue)'"
        case let .dataCorrupted(context):
            if let underlying = context.underlyingError { return "not valid JSON (\(underlying.localizedDescription))" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// `sentio signals`: the latest model signal per symbol (`GET /signals` JSON), or every bar's with `--history`.
struct SignalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signals",
        abstract: "BUY/SELL/HOLD signals from the Sentio rolling-regression model, per symbol.",
        discussion: """
            Reads OHLCV CSV files (or directories of SYMBOL.csv files; the symbol is the file name) and prints the \
            latest signal of each symbol in the GET /signals JSON shape, with the top-level "timestamp" = the latest \
            bar time. With --history, writes every bar's signal instead (JSON: the config used, then one object per \
            bar with "warmUp" and "status"; CSV: one row per bar). The model (features, target, fit, score, \
            confidence, rules) is described in Sources/SentioSignals/Documentation.docc/SignalModel.md. Output is deterministic: the same input \
            and options give the same bytes. Files given with --output are written atomically.
            Store: with --db FILE and no PATH the bars come from that store (see `sentio import`); --symbols, --from \
            and --to select bars the same way from CSV files and from the store (the model sees only the selected \
            bars, so --from shortens its warm-up history). --save writes the signals printed (every bar's with \
            --history, else the latest per symbol) to the store's signal history as model "sentio", replacing \
            stored signals of the same symbol and time; the store is --db FILE, else the default. PATH and --db \
            together are allowed only with --save: PATH is then the data and --db where the signals are saved.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories of SYMBOL.csv files (default: Data/market; with --db, the stored bars).", valueName: "PATH"))
    var paths: [String] = []

    @Flag(help: "Write every bar's signal (for charts and research) instead of the latest per symbol.")
    var history = false

    @Option(help: ArgumentHelp("Output format: json or csv (default json).", valueName: "json|csv"))
    var format: SignalsFormat = .json

    @Option(help: ArgumentHelp("Write to this file (atomically) instead of standard output.", valueName: "PATH"))
    var output: String?

    @Option(help: ArgumentHelp("Numbers: display (prices 4 decimals, others 2) or full (exact round-trip). Default: display for the latest signals, full for --history. CSV is always full.", valueName: "display|full"))
    var precision: NumberPrecision?

    @OptionGroup var lenient: LenientOptions

    @Option(help: ArgumentHelp("Comma-separated symbols to use, in this order (default: all, in file or stored order).", valueName: "LIST"))
    var symbols: String?

    @OptionGroup var range: BarRangeOptions

    @Flag(help: "Save the signals printed in the store's signal history (--db FILE, else the default store).")
    var save = false

    @OptionGroup var store: StoreOptions

    @OptionGroup(title: "Model parameters")
    var model: SignalModelOptions

    func validate() throws {
        if format == .csv && precision == .display {
            throw ValidationError("--precision display applies to JSON only; CSV output is always full precision")
        }
        if !paths.isEmpty && store.database != nil && !save {
            throw ValidationError(
                "give either PATH (CSV input) or --db FILE (stored bars), not both; "
                    + "with --save, PATH is the data and --db the store the signals are saved to")
        }
        if readsStore && lenient.enabled { throw ValidationError("--lenient applies to CSV input only, not to stored bars") }
    }

    func run() throws {
        let config = try model.resolve()
        let inputs = try readsStore ? loadStoredInputs() : loadCSVInputs()
        let perSymbol = try inputs.map { series, source in
            do {
                return try SignalModel.evaluate(series, config: config)
            } catch let error as SignalInputError {
                throw UsageError("\(source): \(error.description)")
            }
        }
        let text: String
        switch (history, format) {
        case (false, .json):
            text = SignalEncoding.latestDocument(perSymbol.compactMap(\.last), config: config, precision: precision ?? .display)
        case (true, .json):
            text = SignalEncoding.historyDocument(perSymbol, config: config, precision: precision ?? .full)
        case (false, .csv):
            text = SignalEncoding.historyCSV(perSymbol.compactMap { $0.last.map { [$0] } })
        case (true, .csv):
            text = SignalEncoding.historyCSV(perSymbol)
        }
        // --output and --save together or not at all: the file is staged, the signals saved, then the file renamed.
        let outputs = OutputTransaction()
        if let output { try outputs.stage(output, text: text) }
        OutputTransaction.reachedStagedPoint()
        if save {
            let saved = history ? perSymbol.flatMap { $0 } : perSymbol.compactMap(\.last)
            let database = try store.open(mode: .createIfMissing)
            let count = try database.saveSignals(saved.map { StoredSignal($0) })
            printError("saved \(count) signal(s) to \(database.path)")
        }
        try outputs.commit()
        if output == nil { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    /// True when the bars come from the store: `--db` given and no PATH.
    var readsStore: Bool { paths.isEmpty && store.database != nil }

    /// The CSV series (with the file each came from, for messages), selected by `--symbols`, `--from`, `--to`.
    func loadCSVInputs() throws -> [(series: OHLCVSeries, source: String)] {
        let inputs = paths.isEmpty ? ["Data/market"] : paths
        let results = try OHLCVReader.readAllWithReports(paths: inputs, options: lenient.readOptions)
        var seen: Set<String> = []
        for result in results {
            let symbol = result.series.symbol
            guard seen.insert(symbol).inserted else {
                throw UsageError("symbol \(symbol) appears in more than one input file; give each symbol once")
            }
        }
        let files = try OHLCVReader.expand(paths: inputs)
        if lenient.enabled { try lenient.report(zip(files, results).map { ($0, $1.skipped) }) }
        var selected = zip(results, files).map { (series: $0.series, source: $1) }
        if let symbols {
            let available = selected.map(\.series.symbol)
            // Symbols come from file names; match them without regard to case, as `sentio backtest` does.
            selected = try parseSymbolList(symbols).map { wanted in
                guard let match = selected.first(where: { $0.series.symbol.uppercased() == wanted.uppercased() }) else {
                    throw UsageError("unknown symbol \(wanted) in --symbols; the data has \(available.joined(separator: ", "))")
                }
                return match
            }
        }
        let range = try self.range.resolve()
        if !range.isUnbounded {
            selected = selected.map { (series: range.apply(to: $0.series), source: $0.source) }
            try range.requireBars(in: selected.map(\.series), source: inputs.joined(separator: ", "))
        }
        return selected
    }

    /// The stored series of `--symbols` (default all) within `--from`/`--to`; the store must exist.
    func loadStoredInputs() throws -> [(series: OHLCVSeries, source: String)] {
        let database = try store.open(mode: .readOnly)
        let series = try loadStoredSeries(from: database, symbols: try symbols.map(parseSymbolList), range: try range.resolve())
        return series.map { (series: $0, source: "\(database.path) symbol \($0.symbol)") }
    }
}
