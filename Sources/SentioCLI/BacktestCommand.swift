import ArgumentParser
import Foundation
import Sentio

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
            Exit codes: 0 success; 2 bad input or options; 1 internal error.
            """
    )

    @Argument(help: ArgumentHelp("CSV files or directories of SYMBOL.csv files (default: Data/market; with --db, the stored bars).", valueName: "PATH"))
    var paths: [String] = []

    @Option(help: ArgumentHelp(
        "Strategy: sentio (the signal model), rsi, buy-and-hold or dca.",
        valueName: "NAME"))
    var strategy: BacktestStrategyOption = .sentio

    @Option(help: ArgumentHelp("Initial capital in currency (default 100000; not with dca, which starts at 0 and deposits).", valueName: "AMOUNT"))
    var capital: Double?

    @Option(help: ArgumentHelp("Commission as a fraction of notional, charged at entry and at exit (0.001 = 0.1 %).", valueName: "RATE"))
    var commission: Double = 0.001

    @Option(help: ArgumentHelp("Fixed fee per filled order, in currency.", valueName: "AMOUNT"))
    var fee: Double = 0

    @Option(name: .customLong("slippage-bps"), help: ArgumentHelp("Slippage against the trader, in basis points of the price.", valueName: "BPS"))
    var slippageBps: Double = 0

    @Option(help: ArgumentHelp("Fill: next-open (decided at the close, filled at the next open) or close (same bar's close; look-ahead-prone).", valueName: "MODE"))
    var fill: BacktestFillOption = .nextOpen

    @Option(help: ArgumentHelp("Sizing: all-in, equal-weight or fraction (default: all-in for one symbol, equal-weight for several).", valueName: "RULE"))
    var sizing: BacktestSizingOption?

    @Option(name: .customLong("max-positions"), help: ArgumentHelp("Equal-weight: most positions held at once, each gets equity/N (default: number of symbols).", valueName: "N"))
    var maxPositions: Int?

    @Option(help: ArgumentHelp("Fraction sizing: share of equity per new position, in (0, 1].", valueName: "F"))
    var fraction: Double?

    @Flag(help: "Allow fractional shares (default: whole shares).")
    var fractional = false

    @Option(name: .customLong("stop-loss"), help: ArgumentHelp("Stop-loss in percent below the decision close (default: none; sentio uses the signal's).", valueName: "PCT"))
    var stopLoss: Double?

    @Option(name: .customLong("take-profit"), help: ArgumentHelp("Take-profit in percent above the decision close (default: none; sentio uses the signal's).", valueName: "PCT"))
    var takeProfit: Double?

    @Option(name: .customLong("rsi-period"), help: ArgumentHelp("rsi: RSI period in bars (default 14).", valueName: "N"))
    var rsiPeriod: Int?

    @Option(name: .customLong("rsi-lower"), help: ArgumentHelp("rsi: buy when RSI is below this (default 30).", valueName: "X"))
    var rsiLower: Double?

    @Option(name: .customLong("rsi-upper"), help: ArgumentHelp("rsi: sell when RSI is above this (default 70).", valueName: "X"))
    var rsiUpper: Double?

    @Option(help: ArgumentHelp("dca: amount deposited and invested each period, split equally over the symbols (default 1000).", valueName: "A"))
    var amount: Double?

    @Option(help: ArgumentHelp("dca: investing period, week or month (default month).", valueName: "PERIOD"))
    var every: BacktestPeriodOption?

    @Option(help: ArgumentHelp("dca: the investor's currency (e.g. GBP) when the prices are in USD; needs --fx. Contributions (--amount) are in this currency, converted at each execution day's FX close; fractional shares; results in both currencies (default: none, all in the prices' currency).", valueName: "CODE"))
    var currency: String?

    @Option(help: ArgumentHelp("With --currency: daily rates of the pair (e.g. GBPUSD, USD per GBP) as CSV date,rate or OHLCV-style (close = rate). A day without a rate uses the last rate before it (reported on standard error).", valueName: "FILE"))
    var fx: String?

    @Option(help: ArgumentHelp("With --currency: write one NDJSON line per DCA execution (event dca_executed, snake_case, decimals as strings) to FILE.", valueName: "FILE"))
    var events: String?

    @Option(help: ArgumentHelp("Comma-separated symbols to use from the data (default: all).", valueName: "LIST"))
    var symbols: String?

    @Option(help: ArgumentHelp("Output format: table or json.", valueName: "FORMAT"))
    var format: BacktestFormatOption = .table

    @Option(help: ArgumentHelp("Write the closed trades as CSV to PATH.", valueName: "PATH"))
    var trades: String?

    @Option(help: ArgumentHelp("Write the equity curve as CSV to PATH.", valueName: "PATH"))
    var equity: String?

    @Option(help: ArgumentHelp("Write the final portfolio as JSON (the mobile GET /portfolio shape) to PATH.", valueName: "PATH"))
    var portfolio: String?

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write a self-contained HTML report (statistics, equity vs buy-and-hold, drawdown, monthly returns, trades per symbol) to PATH (default: none).",
        valueName: "PATH.html"))
    var reportPath: String?

    @Flag(help: "Save the run (configuration, statistics, trades, equity curve) in the store given by --db; list it with `sentio runs`.")
    var save = false

    @Option(help: ArgumentHelp("With --save: a label to recognise the run by.", valueName: "TEXT"))
    var label: String?

    @OptionGroup var store: StoreOptions

    @OptionGroup var range: BarRangeOptions

    func validate() throws {
        if let c = capital, !(c > 0 && c.isFinite) { throw ValidationError("--capital must be a positive amount, got \(c)") }
        if !(commission >= 0 && commission < 1) { throw ValidationError("--commission must be a rate in [0, 1), got \(commission)") }
        if !(fee >= 0 && fee.isFinite) { throw ValidationError("--fee must be >= 0, got \(fee)") }
        if !(slippageBps >= 0 && slippageBps < 10_000) { throw ValidationError("--slippage-bps must be in [0, 10000), got \(slippageBps)") }
        if let n = maxPositions, n < 1 { throw ValidationError("--max-positions must be at least 1, got \(n)") }
        if let f = fraction, !(f > 0 && f <= 1) { throw ValidationError("--fraction must be in (0, 1], got \(f)") }
        if let s = stopLoss, !(s > 0 && s < 100) { throw ValidationError("--stop-loss must be a percent in (0, 100), got \(s)") }
        if let t = takeProfit, !(t > 0 && t.isFinite) { throw ValidationError("--take-profit must be a positive percent, got \(t)") }
        if maxPositions != nil && sizing != nil && sizing != .equalWeight {
            throw ValidationError("--max-positions applies to --sizing equal-weight only")
        }
        if fraction != nil && sizing != .fraction { throw ValidationError("--fraction needs --sizing fraction") }
        if sizing == .fraction && fraction == nil { throw ValidationError("--sizing fraction needs --fraction F") }
        if strategy != .rsi && (rsiPeriod != nil || rsiLower != nil || rsiUpper != nil) {
            throw ValidationError("--rsi-period, --rsi-lower and --rsi-upper apply to --strategy rsi only")
        }
        if let p = rsiPeriod, p < 1 { throw ValidationError("--rsi-period must be at least 1, got \(p)") }
        let lower = rsiLower ?? 30, upper = rsiUpper ?? 70
        if !(0 <= lower && lower < upper && upper <= 100) {
            throw ValidationError("--rsi-lower must be below --rsi-upper, both in [0, 100]; got \(lower) and \(upper)")
        }
        if strategy != .dca && (amount != nil || every != nil) {
            throw ValidationError("--amount and --every apply to --strategy dca only")
        }
        if let a = amount, !(a > 0 && a.isFinite) { throw ValidationError("--amount must be a positive amount, got \(a)") }
        if strategy == .dca {
            if capital != nil { throw ValidationError("--capital conflicts with --strategy dca: DCA starts with no cash and deposits --amount each period") }
            if stopLoss != nil || takeProfit != nil { throw ValidationError("--stop-loss and --take-profit do not apply to --strategy dca (it never sells)") }
        }
        if !save && label != nil { throw ValidationError("--label applies to --save only") }
        try validateCurrencyOptions()
        try validateDataSource()
        let outputs = [trades, equity, portfolio, reportPath, events].compactMap { $0 }
        if Set(outputs).count != outputs.count { throw ValidationError("--trades, --equity, --portfolio, --report and --events must be different files") }
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let assetMarket = try loadMarket()
        // --currency: the same simulator on prices translated into the investor's currency (InvestorCurrencyMarket).
        let translated = try translatedMarket(assetMarket)
        let market = try translated.map { try Market($0.series) } ?? assetMarket
        let backtestConfiguration = makeConfiguration(symbolCount: market.series.count)
        let progressBar = BacktestProgressBar(started: started)
        let backtest = Backtest(backtestConfiguration, progress: { done, total in progressBar.update(done, total) })
        var buyLevels = RecordedBuyLevels()
        // With --report, record each buy decision's stop/target (the simulator keeps them only while open).
        func simulate<S: Strategy>(_ strategy: S) throws -> BacktestResult {
            guard reportPath != nil else { return try backtest.run(strategy, on: market) }
            var recorder = LevelRecordingStrategy(strategy)
            defer { buyLevels = recorder.buyLevels }
            return try backtest.run(&recorder, on: market)
        }
        let result: BacktestResult
        switch strategy {
        case .sentio:
            result = try simulate(try SignalStrategy.sentio(config: SignalModelConfig()))
        case .rsi:
            let rsi = RSIStrategy(period: rsiPeriod ?? 14, lower: rsiLower ?? 30, upper: rsiUpper ?? 70)
            result = try simulate(rsi)
        case .buyAndHold:
            result = try simulate(BuyAndHoldStrategy())
        case .dca:
            let period: ContributionPeriod = (every ?? .month) == .week ? .week : .month
            result = try simulate(DollarCostAveragingStrategy(amount: amount ?? 1_000, every: period))
        }
        progressBar.finish()
        let statistics = BacktestStatistics(result)  // money-weighted return by SentioFunds' xirr
        var report = BacktestReport(command: self, market: market, result: result, statistics: statistics)
        if let translated { report.currency = try currencyReport(translated, result: result) }
        // All outputs or none: each file is written to a temporary file first; the run is saved (one store
        // transaction); only then are the files renamed into place. Any failure leaves every old file as it was.
        let outputs = OutputTransaction()
        if let path = trades { try outputs.stage(path, text: report.tradesCSV()) }
        if let path = equity { try outputs.stage(path, text: report.equityCSV()) }
        if let path = reportPath {
            let content = BacktestReportContent(result: result, statistics: statistics, market: market, buyLevels: buyLevels)
            try outputs.stage(path, text: BacktestReportRenderer().render(content))
        }
        if let path = portfolio { try outputs.stage(path, text: report.portfolioJSON().rendered(pretty: true) + "\n") }
        if let path = events, let currency = report.currency { try outputs.stage(path, text: currency.eventsNDJSON()) }
        OutputTransaction.reachedStagedPoint()
        var saved: String?
        if save {
            let database = try store.open(mode: .createIfMissing)
            let id = try database.saveRun(report.storedRun(label: label), trades: report.storedTrades(), equity: report.storedEquity())
            saved = "saved run \(id) to \(database.path)"
        }
        try outputs.commit()
        if let saved { printError(saved) }
        switch format {
        case .json: print(report.summaryJSON().rendered(pretty: true))
        case .table: print(report.table(), terminator: "")
        }
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

    func loadMarket() throws -> Market {
        if readsStore { return try loadStoredMarket() }
        let files = try OHLCVReader.expand(paths: try dataPaths())
        var series = try Self.readConcurrently(files)
        if let list = symbols {
            let wanted = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !wanted.isEmpty else { throw UsageError("--symbols is empty") }
            let available = series.map(\.symbol)
            series = try wanted.map { w in
                // Symbols come from file names; match them without regard to case.
                guard let match = series.first(where: { $0.symbol.uppercased() == w.uppercased() }) else {
                    throw UsageError("unknown symbol \(w) in --symbols; the data has \(available.joined(separator: ", "))")
                }
                return match
            }
        }
        series = try filteredByRange(series)
        return try Market(series)
    }

    /// Reads the CSV files on all cores (one file per task), in file order; the first failing file's
    /// error (by file order) is thrown. Symbols come from the file names, as in `OHLCVReader.readAll`.
    static func readConcurrently(_ files: [String]) throws -> [OHLCVSeries] {
        nonisolated(unsafe) var results = [Result<OHLCVSeries, CSVError>?](repeating: nil, count: files.count)
        results.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: files.count) { i in
                // Each task writes only its own slot.
                slots[i] = Result { () throws(CSVError) -> OHLCVSeries in
                    try OHLCVReader.read(path: files[i], options: ReadOptions(symbol: OHLCVReader.symbolFromPath(files[i])))
                }
            }
        }
        return try results.map { try $0!.get() }
    }

    /// The resolved sizing rule (the multi-symbol default is equal weight over all symbols).
    func resolvedSizing(symbolCount: Int) -> PositionSizing {
        switch sizing ?? (symbolCount > 1 || maxPositions != nil ? .equalWeight : .allIn) {
        case .allIn: return .allIn
        case .equalWeight: return .equalWeight(maxPositions: maxPositions ?? symbolCount)
        case .fraction: return .fractionOfEquity(fraction ?? 1)
        }
    }

    func makeConfiguration(symbolCount: Int) -> BacktestConfiguration {
        BacktestConfiguration(
            initialCapital: strategy == .dca ? 0 : (capital ?? 100_000),
            fill: fill == .close ? .close : .nextOpen,
            costs: TradingCosts(commissionRate: commission, feePerOrder: fee, slippageBasisPoints: slippageBps),
            sizing: resolvedSizing(symbolCount: symbolCount),
            fractionalShares: fractional || currency != nil,
            stopLossPercent: stopLoss,
            takeProfitPercent: takeProfit,
            stopReference: .decisionClose)
    }
}

enum BacktestStrategyOption: String, ExpressibleByArgument, CaseIterable {
    case sentio, rsi, buyAndHold = "buy-and-hold", dca
}

enum BacktestFillOption: String, ExpressibleByArgument, CaseIterable {
    case nextOpen = "next-open", close
}

enum BacktestSizingOption: String, ExpressibleByArgument, CaseIterable {
    case allIn = "all-in", equalWeight = "equal-weight", fraction
}

enum BacktestPeriodOption: String, ExpressibleByArgument, CaseIterable {
    case week, month
}

enum BacktestFormatOption: String, ExpressibleByArgument, CaseIterable {
    case table, json
}

/// A progress bar on standard error, shown only when it is a terminal and the run has lasted a second.
final class BacktestProgressBar: @unchecked Sendable {
    // Unchecked: the simulator calls `update` from the thread running it, one call at a time.
    private let started: ContinuousClock.Instant
    private let enabled = isatty(STDERR_FILENO) != 0
    private var shown = false
    private var lastPercent = -1

    init(started: ContinuousClock.Instant) { self.started = started }

    func update(_ done: Int, _ total: Int) {
        guard enabled, total > 0 else { return }
        if !shown && ContinuousClock.now - started < .seconds(1) { return }
        let percent = done * 100 / total
        guard percent != lastPercent else { return }
        lastPercent = percent
        shown = true
        let width = 40, filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\rbacktest [\(bar)] \(percent)%".utf8))
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// A JSON value with ordered object keys, so that the output is stable and reads in a sensible order.
indirect enum BacktestJSON {
    case number(Double)
    case integer(Int)
    case string(String)
    case bool(Bool)
    case null
    case array([BacktestJSON])
    case object([(String, BacktestJSON)])
    /// Text that is already valid JSON.
    case raw(String)

    /// A number, or `null` when absent or not finite.
    static func value(_ x: Double?) -> BacktestJSON {
        guard let x, x.isFinite else { return .null }
        return .number(x)
    }

    static func value(_ s: String?) -> BacktestJSON { s.map { .string($0) } ?? .null }

    /// A `Codable` value as JSON (object keys sorted, compact), through `JSONEncoder`.
    static func encoding(_ value: some Encodable) -> BacktestJSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(value) else { return .null }
        return .raw(String(decoding: data, as: UTF8.self))
    }

    func rendered(pretty: Bool, indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .number(let x):
            if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
            return "\(x)"
        case .integer(let i): return String(i)
        case .string(let s): return BacktestJSON.quote(s)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .raw(let text): return text
        case .array(let items):
            if items.isEmpty { return "[]" }
            let parts = items.map { $0.rendered(pretty: pretty, indent: inner) }
            return pretty ? "[\n" + parts.map { inner + $0 }.joined(separator: ",\n") + "\n" + indent + "]" : "[" + parts.joined(separator: ",") + "]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            let parts = fields.map { key, value in BacktestJSON.quote(key) + (pretty ? ": " : ":") + value.rendered(pretty: pretty, indent: inner) }
            return pretty ? "{\n" + parts.map { inner + $0 }.joined(separator: ",\n") + "\n" + indent + "}" : "{" + parts.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONText.quoted(s) }
}

/// The outputs of one run: summary (JSON or table), trade log, equity curve and portfolio.
struct BacktestReport {
    let command: BacktestCommand
    let market: Market
    let result: BacktestResult
    let statistics: BacktestStatistics
    /// With --currency: the run in both currencies.
    var currency: CurrencyReport? = nil

    /// Most recent closed trades listed in the portfolio file.
    static let recentTradeLimit = 50

    func configJSON() -> BacktestJSON {
        let c = result.configuration
        var sizingFields: [(String, BacktestJSON)] = [("sizing", .string(c.sizing.name))]
        switch c.sizing {
        case .allIn: sizingFields += [("maxPositions", .null), ("fraction", .null)]
        case .equalWeight(let n): sizingFields += [("maxPositions", .integer(n)), ("fraction", .null)]
        case .fractionOfEquity(let f): sizingFields += [("maxPositions", .null), ("fraction", .number(f))]
        }
        let isRSI = command.strategy == .rsi, isDCA = command.strategy == .dca
        return .object([
            ("strategy", .string(command.strategy.rawValue)),
            ("paths", .array((try? command.dataPaths())?.map { .string($0) } ?? [])),
            ("database", command.readsStore ? .string(command.store.path) : .null),
            ("from", .value(command.resolvedRange.lower.map { iso8601(epochSeconds: $0) })),
            ("to", .value(command.resolvedRange.upper.map { iso8601(epochSeconds: $0) })),
            ("symbols", .array(result.symbols.map { .string($0) })),
            ("initialCapital", .number(c.initialCapital)),
            ("commissionRate", .number(c.costs.commissionRate)),
            ("feePerOrder", .number(c.costs.feePerOrder)),
            ("slippageBasisPoints", .number(c.costs.slippageBasisPoints)),
            ("fill", .string(c.fill.rawValue)),
        ] + sizingFields + [
            ("fractionalShares", .bool(c.fractionalShares)),
            ("stopLossPercent", .value(c.stopLossPercent)),
            ("takeProfitPercent", .value(c.takeProfitPercent)),
            ("stopReference", .string(c.stopReference.rawValue)),
            ("rsiPeriod", isRSI ? .integer(command.rsiPeriod ?? 14) : .null),
            ("rsiLower", isRSI ? .number(command.rsiLower ?? 30) : .null),
            ("rsiUpper", isRSI ? .number(command.rsiUpper ?? 70) : .null),
            ("amount", isDCA ? .number(command.amount ?? 1_000) : .null),
            ("every", isDCA ? .string((command.every ?? .month).rawValue) : .null),
            ("currency", .value(command.currency)),
            ("fx", .value(command.fx)),
            ("signalModel", command.strategy == .sentio ? BacktestJSON.encoding(SignalModelConfig()) : .null),
        ])
    }

    func conventionsJSON() -> BacktestJSON {
        let k = statistics.conventions
        return .object([
            ("periodsPerYear", .number(k.periodsPerYear)),
            ("periodsPerYearSource", .string(k.periodsPerYearSource)),
            ("riskFreeRate", .number(k.riskFreeRate)),
            ("ddof", .integer(k.ddof)),
            ("returns", .string("simple per-bar returns of equity net of deposits (time-weighted)")),
            ("sharpeRatio", .string("mean/std(ddof 1) x sqrt(periodsPerYear), as empyrical/quantstats; backtesting.py uses geometric annual return / annualized volatility")),
            ("cagr", .string("(growth)^(periodsPerYear / returns) - 1, as empyrical annual_return")),
            ("maxDrawdown", .string("deepest fall of the time-weighted wealth index from its running peak, percent <= 0")),
            ("profitFactor", .string("gross profit / gross loss of closed trades, in currency")),
            ("moneyWeightedReturn", .string("XIRR (Actual/365 Fixed) of -initial capital, -deposits and +final equity, percent a year")),
            ("fills", .string(result.configuration.fill == .nextOpen
                ? "decided at a bar's close, filled at the symbol's next open"
                : "decided and filled at the same bar's close (look-ahead-prone)")),
            ("stops", .string("checked against each bar's low/high; a gap fills at the open; a bar touching both exits at the stop; live on the entry bar with next-open fills")),
            ("openPositions", .string("marked to market at the last close in finalEquity; not counted as closed trades")),
            ("timestamps", .string("UTC, ISO-8601")),
        ])
    }

    func summaryJSON() -> BacktestJSON {
        let s = statistics
        var rejections = [String: Int]()
        for o in result.orders { if let r = o.rejection { rejections[r.rawValue, default: 0] += 1 } }
        return .object([
            ("strategy", .string(result.strategyName)),
            ("symbols", .array(result.symbols.map { .string($0) })),
            ("start", .value(result.timestamps.first.map { iso8601(epochSeconds: $0) })),
            ("end", .value(result.timestamps.last.map { iso8601(epochSeconds: $0) })),
            ("bars", .integer(result.timestamps.count)),
            ("initialCapital", .number(s.initialCapital)),
            ("totalContributions", .number(s.totalContributions)),
            ("finalEquity", .number(s.finalEquity)),
            ("finalCash", .number(result.finalCash)),
            ("totalReturnPercent", .value(s.totalReturnPercent)),
            ("timeWeightedReturnPercent", .value(s.timeWeightedReturnPercent)),
            ("moneyWeightedReturnPercent", .value(s.moneyWeightedReturnPercent)),
            ("cagrPercent", .value(s.cagrPercent)),
            ("annualizedVolatilityPercent", .value(s.annualizedVolatilityPercent)),
            ("sharpeRatio", .value(s.sharpeRatio)),
            ("sortinoRatio", .value(s.sortinoRatio)),
            ("calmarRatio", .value(s.calmarRatio)),
            ("maxDrawdownPercent", .value(s.maxDrawdownPercent)),
            ("maxDrawdownDurationBars", .integer(s.maxDrawdownDurationBars)),
            ("maxDrawdownDurationDays", .value(s.maxDrawdownDurationDays)),
            ("tradeCount", .integer(s.tradeCount)),
            ("openPositionCount", .integer(s.openPositionCount)),
            ("winRatePercent", .value(s.winRatePercent)),
            ("profitFactor", .value(s.profitFactor)),
            ("averageTradePercent", .value(s.averageTradePercent)),
            ("bestTradePercent", .value(s.bestTradePercent)),
            ("worstTradePercent", .value(s.worstTradePercent)),
            ("averageHoldingBars", .value(s.averageHoldingBars)),
            ("averageHoldingDays", .value(s.averageHoldingDays)),
            ("exposurePercent", .value(s.exposurePercent)),
            ("commissionsPaid", .value(s.commissionsPaid)),
            ("sqn", .value(s.sqn)),
            ("orderCount", .integer(s.orderCount)),
            ("rejectedOrderCount", .integer(s.rejectedOrderCount)),
            ("rejectionsByReason", .object(rejections.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
            ("openPositions", .array(result.openPositions.map { p in
                .object([
                    ("symbol", .string(p.symbol)), ("entryTime", .string(iso8601(epochSeconds: p.entryTime))),
                    ("entryPrice", .number(p.entryPrice)), ("currentPrice", .number(p.currentPrice)),
                    ("shares", .number(p.shares)), ("marketValue", .number(p.marketValue)),
                    ("unrealizedPnL", .number(p.unrealizedPnL)),
                ])
            })),
            ("currency", currency?.json() ?? .null),
            ("config", configJSON()),
            ("conventions", conventionsJSON()),
        ])
    }

    /// Closed trades: one row each, in exit order.
    func tradesCSV() -> String {
        var out = "symbol,entryTime,exitTime,entryPrice,exitPrice,shares,pnl,pnlPercent,commission,signalType,exitReason\n"
        for t in result.trades {
            let times = [t.symbol, iso8601(epochSeconds: t.entryTime), iso8601(epochSeconds: t.exitTime)]
            let numbers = [t.entryPrice, t.exitPrice, t.shares, t.pnl, t.pnlPercent, t.commission].map(BacktestReport.number)
            out += (times + numbers + [t.signalType, t.exitReason.rawValue]).joined(separator: ",") + "\n"
        }
        return out
    }

    /// The equity curve: one row per timeline step.
    func equityCSV() -> String {
        var out = "timestamp,equity,cash,positionsValue,contribution,drawdownPercent\n"
        var wealth = 1.0, peak = 1.0
        for t in result.timestamps.indices {
            if t > 0 && result.equity[t - 1] > 0 { wealth *= (result.equity[t] - result.contributions[t]) / result.equity[t - 1] }
            peak = max(peak, wealth)
            let drawdown = (wealth / peak - 1) * 100
            let fields = [result.equity[t], result.cash[t], result.equity[t] - result.cash[t], result.contributions[t], drawdown]
            out += iso8601(epochSeconds: result.timestamps[t]) + "," + fields.map(BacktestReport.number).joined(separator: ",") + "\n"
        }
        return out
    }

    /// The final state in the shape mobile clients read from `GET /portfolio`.
    ///
    /// `totalPnL` = current value − initial capital − deposits. `dayPnL` compares with the equity at the last
    /// step of the previous UTC date (or the invested capital when there is none), net of deposits since.
    /// `recentTrades`: the last 50 closed trades, newest first. Ids are deterministic.
    func portfolioJSON() -> BacktestJSON {
        let n = result.timestamps.count
        let invested = result.configuration.initialCapital + result.totalContributions
        let current = result.finalEquity
        var reference = result.configuration.initialCapital
        var depositsSince = result.totalContributions
        if n > 0 {
            let lastDay = floorDivide(result.timestamps[n - 1], 86_400)
            var k = n - 1
            while k >= 0 && floorDivide(result.timestamps[k], 86_400) == lastDay { k -= 1 }
            if k >= 0 {
                reference = result.equity[k]
                depositsSince = result.contributions[(k + 1)...].reduce(0, +)
            }
        }
        let dayPnL = current - reference - depositsSince
        let dayBase = reference + depositsSince
        let positions: [BacktestJSON] = result.openPositions.map { p in
            .object([
                ("id", .string("position-\(p.symbol)-\(iso8601(epochSeconds: p.entryTime))")),
                ("symbol", .string(p.symbol)),
                ("entryPrice", .number(p.entryPrice)),
                ("currentPrice", .number(p.currentPrice)),
                ("shares", .number(p.shares)),
                ("entryTime", .string(iso8601(epochSeconds: p.entryTime))),
            ])
        }
        let recent = result.trades.enumerated().suffix(BacktestReport.recentTradeLimit).reversed()
        let trades: [BacktestJSON] = recent.map { i, t in
            .object([
                ("id", .string("trade-\(i + 1)-\(t.symbol)-\(iso8601(epochSeconds: t.exitTime))")),
                ("symbol", .string(t.symbol)),
                ("entryPrice", .number(t.entryPrice)),
                ("exitPrice", .number(t.exitPrice)),
                ("shares", .number(t.shares)),
                ("entryTime", .string(iso8601(epochSeconds: t.entryTime))),
                ("exitTime", .string(iso8601(epochSeconds: t.exitTime))),
                ("pnl", .number(t.pnl)),
                ("pnlPercent", .number(t.pnlPercent)),
                ("signalType", .string(t.signalType)),
            ])
        }
        return .object([
            ("initialCapital", .number(result.configuration.initialCapital)),
            ("currentValue", .number(current)),
            ("cashBalance", .number(result.finalCash)),
            ("totalPnL", .number(current - invested)),
            ("totalPnLPercent", invested > 0 ? .number((current - invested) / invested * 100) : .number(0)),
            ("dayPnL", .number(dayPnL)),
            ("dayPnLPercent", dayBase > 0 ? .number(dayPnL / dayBase * 100) : .number(0)),
            ("positions", .array(positions)),
            ("recentTrades", .array(trades)),
        ])
    }

    /// The run for the store: the configuration object, and the summary without `config` as statistics.
    func storedRun(label: String?) -> StoredRun {
        var statistics = summaryJSON()
        if case .object(let fields) = statistics { statistics = .object(fields.filter { $0.0 != "config" }) }
        return StoredRun(
            strategy: command.strategy.rawValue, symbols: result.symbols,
            configJSON: configJSON().rendered(pretty: false), statisticsJSON: statistics.rendered(pretty: false),
            inputFingerprint: ContentFingerprint.of(series: market.series), label: label,
            startTimestamp: result.timestamps.first, endTimestamp: result.timestamps.last,
            initialCapital: result.configuration.initialCapital, finalEquity: result.finalEquity)
    }

    /// Closed trades, then the positions still open (no exit).
    func storedTrades() -> [StoredTrade] {
        result.trades.map { t in
            StoredTrade(
                symbol: t.symbol, entryTimestamp: t.entryTime, entryPrice: t.entryPrice, exitTimestamp: t.exitTime,
                exitPrice: t.exitPrice, shares: t.shares, pnl: t.pnl, pnlPercent: t.pnlPercent, commission: t.commission,
                signalType: t.signalType, exitReason: t.exitReason.rawValue)
        } + result.openPositions.map { p in
            StoredTrade(
                symbol: p.symbol, entryTimestamp: p.entryTime, entryPrice: p.entryPrice, shares: p.shares,
                commission: p.entryCommission,
                signalType: "BUY")
        }
    }

    /// One point per timeline step; `contribution` only where a deposit was made.
    func storedEquity() -> [StoredEquityPoint] {
        result.timestamps.indices.map { t in
            StoredEquityPoint(
                timestamp: result.timestamps[t], equity: result.equity[t], cash: result.cash[t],
                contribution: result.contributions[t] != 0 ? result.contributions[t] : nil)
        }
    }

    /// A readable summary.
    func table() -> String {
        let s = statistics
        func f(_ x: Double?, _ digits: Int = 2, _ suffix: String = "") -> String {
            guard let x, x.isFinite else { return "n/a" }
            return String(format: "%.\(digits)f", x) + suffix
        }
        var rows: [(String, String)] = []
        rows.append(("Strategy", "\(result.strategyName) on \(result.symbols.count) symbol\(result.symbols.count == 1 ? "" : "s")"))
        if let a = result.timestamps.first, let b = result.timestamps.last {
            rows.append(("Period", "\(iso8601(epochSeconds: a)) .. \(iso8601(epochSeconds: b)) (\(result.timestamps.count) bars)"))
        }
        rows.append(("Initial capital", f(s.initialCapital)))
        if s.totalContributions > 0 { rows.append(("Deposits", f(s.totalContributions))) }
        rows.append(("Final equity", f(s.finalEquity)))
        rows.append(("Total return", f(s.totalReturnPercent, 2, " %")))
        if s.totalContributions > 0 {
            rows.append(("Time-weighted return", f(s.timeWeightedReturnPercent, 2, " %")))
            rows.append(("Money-weighted return", f(s.moneyWeightedReturnPercent, 2, " % a year (XIRR)")))
        }
        if let currency { rows += currency.tableRows() }
        rows.append(("CAGR", f(s.cagrPercent, 2, " %")))
        rows.append(("Annualized volatility", f(s.annualizedVolatilityPercent, 2, " %")))
        rows.append(("Sharpe ratio", f(s.sharpeRatio, 3)))
        rows.append(("Sortino ratio", f(s.sortinoRatio, 3)))
        rows.append(("Calmar ratio", f(s.calmarRatio, 3)))
        rows.append(("Max drawdown", "\(f(s.maxDrawdownPercent, 2, " %")) (\(s.maxDrawdownDurationBars) bars, \(f(s.maxDrawdownDurationDays, 0)) days)"))
        rows.append(("Trades", "\(s.tradeCount) closed, \(s.openPositionCount) open"))
        rows.append(("Win rate", f(s.winRatePercent, 2, " %")))
        rows.append(("Profit factor", f(s.profitFactor, 3)))
        rows.append(("Avg / best / worst trade", "\(f(s.averageTradePercent, 2, " %")) / \(f(s.bestTradePercent, 2, " %")) / \(f(s.worstTradePercent, 2, " %"))"))
        rows.append(("Avg holding period", "\(f(s.averageHoldingBars, 1)) bars (\(f(s.averageHoldingDays, 1)) days)"))
        rows.append(("Exposure", f(s.exposurePercent, 2, " %")))
        rows.append(("Commissions paid", f(s.commissionsPaid)))
        rows.append(("SQN", f(s.sqn, 3)))
        var rejections = [String: Int]()
        for o in result.orders { if let r = o.rejection { rejections[r.rawValue, default: 0] += 1 } }
        let detail = rejections.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        rows.append(("Orders", "\(s.orderCount) (\(s.rejectedOrderCount) rejected\(detail.isEmpty ? "" : ": " + detail))"))
        let width = rows.map(\.0.count).max() ?? 0
        var out = rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n") + "\n"
        let c = result.configuration
        out += "\nConventions: \(c.fill.rawValue) fills, sizing \(c.sizing.name), commission \(c.costs.commissionRate), "
            + "\(s.conventions.periodsPerYear == s.conventions.periodsPerYear.rounded() ? String(Int(s.conventions.periodsPerYear)) : "\(s.conventions.periodsPerYear)") periods/year "
            + "(\(s.conventions.periodsPerYearSource)), risk-free 0, ddof 1; Sharpe = mean/std x sqrt(periods) (empyrical).\n"
        return out
    }

    /// Integral values without a trailing `.0` (whole shares read as integers).
    static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
    }
}
