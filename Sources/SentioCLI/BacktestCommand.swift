import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio backtest`: runs a strategy over CSV bars with a virtual portfolio and reports the result.
struct BacktestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Backtest a strategy with a virtual portfolio (default $100,000) and print its statistics.",
        discussion: """
            PATH: CSV files or directories of SYMBOL.csv files (symbol from the file name). Without PATH the \
            bundled sample universe Data/market (relative to the current directory) is used.
            Stored bars: with --db FILE and no PATH the bars come from that store (see `sentio import`). PATH and \
            --db together are allowed only with --save: PATH is then the data and --db the store the run is saved \
            to. --symbols, --from and --to select bars the same way from CSV files and from the store.
            Decisions are taken at a bar's close; by default they fill at the symbol's next open. Stop-loss \
            and take-profit levels are checked against each bar's low and high (a gap fills at the open; a bar \
            touching both exits at the stop) and are live on the entry bar with next-open fills.
            Sizing default: all-in for one symbol, equal-weight over all symbols for several.
            Statistics: simple per-bar returns net of deposits, risk-free 0, ddof 1, periods per year 252 for \
            daily bars or inferred from the bar spacing (stated in the output).
            Benchmark: alpha, beta, correlation, information ratio and tracking error against --benchmark, or by \
            default against the equal-weight buy-and-hold of the universe, on the bars both have (conventions as \
            quantstats: beta = cov(r,b)/var(b), alpha = (mean(r) - beta mean(b)) x periods, information ratio = \
            mean(r-b)/std(r-b) per period).
            Warnings on standard error (and in the JSON summary's warnings) for degenerate runs: commissions above \
            10% of the money put in, more rejected orders than filled ones, a default benchmark that cannot be compared.
            Progress: on a terminal, standard error shows the job's phases (reading, indicators and signals, \
            simulation, writing); nothing is shown when standard error is not a terminal.
            Exit codes: 0 success; 2 bad input or options; 1 internal error.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories of SYMBOL.csv files (default: Data/market; with --db, the stored bars).", valueName: "PATH"))
    var paths: [String] = []

    @OptionGroup var strategyOptions: StrategyOptions

    @Option(help: ArgumentHelp("dca: the investor's currency (e.g. GBP) when the prices are in USD; needs --fx. Contributions (--amount) are in this currency, converted at each execution day's FX close; fractional shares; results in both currencies (default: none, all in the prices' currency).", valueName: "CODE"))
    var currency: String?

    @Option(help: ArgumentHelp("With --currency: daily rates of the pair (e.g. GBPUSD, USD per GBP) as CSV date,rate or OHLCV-style (close = rate). A day without a rate uses the last rate before it (reported on standard error).", valueName: "FILE"))
    var fx: String?

    @Option(help: ArgumentHelp("With --currency: write one NDJSON line per DCA execution (event dca_executed, snake_case, decimals as strings) to FILE.", valueName: "FILE"))
    var events: String?

    @OptionGroup var selection: SymbolSelectionOptions

    @Option(help: ArgumentHelp("Output format: table or json (the summary contract, percents as percents).", valueName: "FORMAT"))
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Write the closed trades as CSV (the Trade contract's columns, id first, then commission and exitReason) to PATH.", valueName: "PATH"))
    var trades: String?

    @Option(help: ArgumentHelp("Write the equity curve as CSV (drawdownPercent in percent) to PATH.", valueName: "PATH"))
    var equity: String?

    @Option(help: ArgumentHelp("Write the final portfolio as JSON (the GET /portfolio contract) to PATH.", valueName: "PATH"))
    var portfolio: String?

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write a self-contained HTML report (statistics, equity vs buy-and-hold, drawdown, monthly returns, trades per symbol) to PATH (default: none).",
        valueName: "PATH.html"))
    var reportPath: String?

    @Option(help: Self.benchmarkHelp)
    var benchmark: String?

    /// `--benchmark`'s help, shared with `sentio sweep`.
    static let benchmarkHelp = ArgumentHelp(
        "Benchmark for alpha, beta, correlation, information ratio and tracking error: an OHLCV CSV file, or a symbol of the data or of the store (--db, else the default store) (default: equal-weight buy-and-hold of the universe).",
        valueName: "FILE|SYMBOL")

    @Flag(help: "Save the run (configuration, statistics, trades, equity curve) in the store given by --db; list it with `sentio runs`.")
    var save = false

    @Option(help: ArgumentHelp("With --save: a label to recognise the run by.", valueName: "TEXT"))
    var label: String?

    @OptionGroup var store: StoreOptions

    @OptionGroup var range: BarRangeOptions

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    /// The options as the library's request (defaults resolved by `BacktestRequest`), with the investor currency.
    var request: BacktestRequest {
        get throws {
            var request = try strategyOptions.request
            request.investorCurrency = currency
            return request
        }
    }

    func validate() throws {
        try format.require([.table, .json])
        if !save && label != nil { throw ValidationError("--label applies to --save only") }
        try validateCurrencyOptions()
        try validateDataSource()
        let outputs = [trades, equity, portfolio, reportPath, events].compactMap { $0 }
        if Set(outputs).count != outputs.count { throw ValidationError("--trades, --equity, --portfolio, --report and --events must be different files") }
    }

    func run() throws {
        let progress = TerminalProgress("backtest", phases: ["reading", "indicators and signals", "simulation", "writing"])
        defer { progress.finish() }
        progress.begin("reading")
        let loaded = try loadMarketWithReports()
        let assetMarket = loaded.market
        // --currency: the same simulator on prices translated into the investor's currency (InvestorCurrencyMarket).
        let translated = try translatedMarket(assetMarket)
        let market = try translated.map { try Market($0.series) } ?? assetMarket
        let benchmarkSeries = try loadBenchmark(universe: assetMarket)
        let request = try self.request
        progress.begin("indicators and signals")
        let simulationStarted = SimulationStartFlag()
        var backtest = Backtest(request.configuration(symbolCount: market.series.count)) { done, total in
            if simulationStarted.set() { progress.begin("simulation", unit: "bars") }
            progress.update(done, of: total)
        }
        backtest.corporateActions = try holdingAdjustments(loaded, strategy: request.strategy)
        var buyLevels = RecordedBuyLevels()
        // With --report, record each buy decision's stop/target (the simulator keeps them only while open).
        func simulate<S: Strategy>(_ strategy: S) throws -> BacktestResult {
            guard reportPath != nil else { return try backtest.run(strategy, on: market) }
            var recorder = LevelRecordingStrategy(strategy)
            defer { buyLevels = recorder.buyLevels }
            return try backtest.run(&recorder, on: market)
        }
        let result = try simulate(try request.makeStrategy())
        progress.begin("writing", unit: "outputs", estimate: false)
        let currencyReport = try translated.map { translated in
            try BacktestCurrencyReport(translated: translated, result: result, request: request, investorCurrency: currency!, fxFile: fx!)
        }
        // The default benchmark holds the same shares as the portfolio would: with --actions, adjusted as its holdings.
        let equalWeight = BenchmarkSeries.equalWeight(
            market.series, timeline: result.timestamps, holdingAdjustments: backtest.corporateActions)
        let benchmarkChoice: BacktestBenchmarkChoice = benchmarkSeries.map { .given($0) } ?? .standard(equalWeight)
        let report = try BacktestRunReport(
            result: result, request: request, source: dataSource, fxFile: fx, currency: currencyReport, benchmark: benchmarkChoice)
        // All outputs or none: each file is written to a temporary file first; the run is saved (one store
        // transaction); only then are the files renamed into place. Any failure leaves every old file as it was.
        let outputs = OutputTransaction()
        let outputCount = [trades, equity, reportPath, portfolio, events].compactMap { $0 }.count
        var staged = 0
        func stage(_ path: String, _ text: @autoclosure () throws -> String) throws {
            try outputs.stage(path, text: text())
            staged += 1
            progress.update(staged, of: outputCount)
        }
        if let path = trades { try stage(path, report.tradeLogCSV()) }
        if let path = equity { try stage(path, report.equityCurveCSV()) }
        if let path = reportPath {
            let content = BacktestReportContent(
                result: result, statistics: report.statistics, market: market, buyLevels: buyLevels,
                benchmark: benchmarkSeries ?? (backtest.corporateActions.isEmpty ? nil : equalWeight),
                benchmarkStatistics: report.benchmark, warnings: report.warnings,
                warmUpBars: try warmUpBars)
            try stage(path, BacktestReportRenderer().render(content))
        }
        if let path = portfolio { try stage(path, report.portfolioJSON()) }
        if let path = events, let currencyReport { try stage(path, currencyReport.eventsNDJSON()) }
        OutputTransaction.reachedStagedPoint()
        var saved: String?
        if save {
            let database = try store.open(mode: .createIfMissing)
            let run = try report.storedRun(label: label, inputFingerprint: ContentFingerprint.of(series: market.series))
            let id = try database.saveRun(run, trades: report.storedTrades, equity: report.storedEquity)
            saved = "saved run \(id) to \(database.path)"
        }
        try outputs.commit()
        progress.finish()
        if let saved { printError(saved) }
        for warning in report.warnings { printError("warning: \(warning.message)") }
        MarketFileOptions.printNotes(loaded.results)
        let statement = MarketFileOptions.statement(loaded.results)
        if format == .json {
            print(try Self.summaryJSON(report, adjustment: statement), terminator: "")
        } else {
            print(report.summary.table(), terminator: "")
            if let statement { print("Price adjustment: \(statement)") }
        }
    }

    /// The summary JSON; a price adjustment (when there is one to state) is the `config` object's `adjustment`.
    static func summaryJSON(_ report: BacktestRunReport, adjustment: String?) throws -> String {
        let text = try report.summaryJSON()
        guard let adjustment else { return text }
        var value = try JSONDecoder().decode(APIJSONValue.self, from: Data(text.utf8))
        if case .object(var fields) = value, let k = fields.firstIndex(where: { $0.key == "config" }),
            case .object(var config) = fields[k].value
        {
            config.append(.init("adjustment", .string(adjustment)))
            fields[k].value = .object(config)
            value = .object(fields)
        }
        return try APIJSON.encode(value)
    }

    /// The corporate actions the simulation applies to holdings (prices as in the file, or split-adjusted with
    /// dividends in cash). A strategy that decides on price levels (rsi, sentio) is refused on prices with splits
    /// left in: its indicators would read each split as a real move.
    func holdingAdjustments(_ loaded: LoadedMarket, strategy: StrategyKind) throws -> [String: [HoldingAdjustment]] {
        let schedule = MarketFileOptions.holdingAdjustments(loaded.results, actions: loaded.actions)
        if let file = loaded.actions?.file {
            try MarketFileOptions.refusePriceStrategyOnSplits(
                schedule, strategy: strategy, actionsFile: file, pricesState: "--adjust \(marketFile.adjust.rawValue)",
                advice: "use --adjust splits --actions \(file) (dividends still credited in cash) or --adjust total")
        }
        return schedule
    }

    /// The data directories/files given, or the bundled sample universe.
    func dataPaths() throws -> [String] {
        if !paths.isEmpty || readsStore { return paths }
        let sample = FileManager.default.currentDirectoryPath + "/Data/market"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: sample, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError(
                "no PATH given and the sample universe Data/market was not found in \(FileManager.default.currentDirectoryPath); "
                    + "run from the repository root or pass CSV files or a directory")
        }
        return ["Data/market"]
    }

    /// Where the bars come from, for the summary's `config`.
    var dataSource: BacktestDataSource {
        BacktestDataSource(
            paths: (try? dataPaths()) ?? [], database: readsStore ? store.path : nil,
            from: resolvedRange.lower, to: resolvedRange.upper)
    }

    func loadMarket() throws -> Market { try loadMarketWithReports().market }

    /// The market, what the reader says of each series, and the corporate actions of `--actions`.
    struct LoadedMarket {
        var market: Market
        var results: [ReadResult]
        var actions: CorporateActions?
    }

    func loadMarketWithReports() throws -> LoadedMarket {
        if readsStore {
            if marketFile.actions != nil { throw UsageError("--actions applies to CSV input, not to stored bars (--db)") }
            return LoadedMarket(market: try loadStoredMarket(), results: [], actions: nil)
        }
        let files = try OHLCVReader.expand(paths: try dataPaths())
        let actions = try marketFile.loadActions()
        let results = try selection.select(
            try OHLCVReader.readConcurrentlyWithReports(files, options: try marketFile.readOptions(actions: actions)),
            symbol: \.series.symbol)
        return LoadedMarket(
            market: try Market(try filteredByRange(results.map(\.series))), results: results, actions: actions)
    }

    /// Bars each symbol needs before the strategy can decide, for the report's warm-up band: the RSI period, the
    /// signal model's first signal index, a ta-cross function's lookback + 1, none for buy-and-hold and DCA.
    var warmUpBars: Int {
        get throws {
            let request = try self.request
            switch request.strategy {
            case .rsi: return request.resolvedRSI.period
            case .sentio: return request.resolvedSignalModel.firstSignalIndex
            case .buyAndHold, .dca, .rebalance: return 0
            case .taCross: return ((try request.makeStrategy()) as? TACrossStrategy).map { $0.function.lookback + 1 } ?? 0
            }
        }
    }

    // For `sentio bench`, which times the same configuration and reading (its file is not this one's to change).
    func makeConfiguration(symbolCount: Int) throws -> BacktestConfiguration { try request.configuration(symbolCount: symbolCount) }
    static func readConcurrently(_ files: [String]) throws -> [OHLCVSeries] { try OHLCVReader.readConcurrently(files) }
}

/// Set once, by the first simulator callback: that callback starts the simulation phase.
final class SimulationStartFlag: @unchecked Sendable {
    // Unchecked: the simulator calls from the one thread running it.
    private var started = false
    /// True the first time only.
    func set() -> Bool {
        defer { started = true }
        return !started
    }
}
