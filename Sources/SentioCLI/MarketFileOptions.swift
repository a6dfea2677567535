import ArgumentParser
import Foundation
import Sentio
import SentioLive

extension PriceAdjustment: ExpressibleByArgument {}

/// `--adjust`, `--actions`, `--date-format` and `--timezone`: how every command that reads OHLCV CSV files reads
/// real market files (corporate actions and date forms). The rules are the library's (`PriceAdjustment`,
/// `CorporateActions`, `DateFormat`, `LocalTimeZone`, `OHLCVReader`).
struct MarketFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Price adjustment for corporate actions: auto (total with an adjusted close column, else none after a split check; with --actions: none, the actions applied to holdings), total (scale OHLC by adjusted close/close: returns include reinvested dividends), splits (divide prices before each split by its ratio; splits from --actions or the adjusted close), none (prices as in the file). The output states what was applied.",
        valueName: "MODE"))
    var adjust: PriceAdjustment = .auto

    @Option(help: ArgumentHelp(
        "Corporate actions CSV (symbol,date,split_ratio,cash_dividend; ratio = new shares per old share, e.g. 2 or 1:10): on unadjusted prices the backtest multiplies shares at each split and credits dividends in cash at the ex-date.",
        valueName: "FILE"))
    var actions: String?

    @Option(name: .customLong("date-format"), help: ArgumentHelp(
        "Pattern of the timestamp column when it is not ISO-8601: strftime-like %Y %y %m %d %b %H %M %S %z (e.g. %m/%d/%Y, %d.%m.%Y, %Y%m%d). Without it, M/D/YYYY, D/M/YYYY, D.M.YYYY, YYYY/MM/DD and D-Mon-YYYY are detected from the whole file (an ambiguous file is an error).",
        valueName: "PATTERN"))
    var dateFormat: String?

    @Option(help: ArgumentHelp(
        "Time zone of timestamps written with a time of day and no offset (IANA name, e.g. America/New_York; DST handled). Default: UTC. Dates without a time stay calendar days.",
        valueName: "ZONE"))
    var timezone: String?

    func validate() throws {
        if let dateFormat {
            do { _ = try DateFormat(dateFormat) } catch { throw ValidationError("--date-format '\(dateFormat)': \(error.reason)") }
        }
        if let timezone {
            do { _ = try LocalTimeZone(timezone) } catch { throw ValidationError("--timezone: \(error.reason)") }
        }
        if let actions, actions.isEmpty { throw ValidationError("--actions needs a file name") }
        if adjust == .total && actions != nil {
            throw ValidationError("--adjust total already includes splits and dividends (adjusted close); --actions would count them twice (use --adjust none or splits with --actions)")
        }
    }

    /// The corporate actions of `--actions`, read once.
    func loadActions() throws -> CorporateActions? { try actions.map { try CorporateActions.read(path: $0) } }

    /// The reader options for these flags (and `lenient`).
    func readOptions(lenient: Bool = false, actions loaded: CorporateActions?) throws -> ReadOptions {
        ReadOptions(
            lenient: lenient, dateFormat: try dateFormat.map { try DateFormat($0) },
            timeZone: try timezone.map { try LocalTimeZone($0) }, adjust: adjust, actions: loaded)
    }

    /// The reader options of a command that computes indicators or signals from the prices (no holdings): with
    /// `--actions` and `--adjust auto`, the prices are split-adjusted by the actions (indicators must not read a
    /// split as a move).
    func analysisReadOptions(lenient: Bool = false) throws -> ReadOptions {
        try analysisReadOptions(lenient: lenient, actions: try loadActions())
    }

    /// ``analysisReadOptions(lenient:)`` with the actions already loaded (``loadActions()``).
    func analysisReadOptions(lenient: Bool = false, actions: CorporateActions?) throws -> ReadOptions {
        var options = try readOptions(lenient: lenient, actions: actions)
        if actions != nil && adjust == .auto { options.adjust = .splits }
        return options
    }

    /// For a session fed bar by bar (`sentio live`, `sentio serve --follow` or `POST /api/v1/bars`): `--adjust`
    /// must be `auto` or `none` (prices cannot be back-adjusted one bar at a time), and `--date-format`/`--timezone`
    /// read CSV rows, so they need `followed` (`--follow DIR`).
    /// - Throws: `ValidationError` saying which option does not apply.
    func validateBarByBar(followed: Bool) throws {
        if adjust == .splits || adjust == .total {
            throw ValidationError("--adjust \(adjust.rawValue) rescales whole files; a live session gets its bars one at a time: use --adjust auto (the split check; --actions applied to holdings at each ex-date) or --adjust none")
        }
        if !followed && (dateFormat != nil || timezone != nil) {
            throw ValidationError("--date-format and --timezone read the CSV rows of --follow DIR; bars of standard input or POST /api/v1/bars are NDJSON with ISO-8601 timestamps (as `sentio generate --format ndjson` writes)")
        }
    }

    /// A live session's configuration with these options: the actions of `--actions` applied to holdings on
    /// unadjusted prices (every action of each symbol of `universe`), and the split check unless `--adjust none`.
    /// - Throws: as ``refusePriceStrategyOnSplits(_:strategy:actionsFile:pricesState:advice:)`` for rsi and sentio
    ///   with splits in `--actions` (a live feed cannot be split-adjusted); the actions file's errors.
    func liveConfiguration(_ configuration: LiveConfiguration, universe: [String], strategy: StrategyKind) throws -> LiveConfiguration {
        var configuration = configuration
        if let actions = try loadActions() {
            configuration.corporateActions = actions.rawHoldingAdjustments(universe: universe)
            try Self.refusePriceStrategyOnSplits(
                configuration.corporateActions, strategy: strategy, actionsFile: actions.file,
                pricesState: "live bars arrive unadjusted",
                advice: "use --strategy buy-and-hold or dca with splits, or leave the splits out of \(actions.file) (its dividends are credited either way)")
        }
        configuration.splitCheck = adjust != .none
        return configuration
    }

    /// `directory` followed with `--date-format` and `--timezone` (``FollowedDirectory``).
    func followedDirectory(_ directory: String, universe: [String]) throws -> FollowedDirectory {
        try FollowedDirectory(
            directory: directory, universe: universe, dateFormat: try dateFormat.map { try DateFormat($0) },
            timeZone: try timezone.map { try LocalTimeZone($0) })
    }

    /// Prints the notes and, when there is one to state, the price adjustment on standard error (for commands
    /// whose standard output is a contract).
    static func printNotesAndStatement(_ results: [ReadResult]) {
        printNotes(results)
        if let statement = statement(results) { printError("note: price adjustment: \(statement)") }
    }

    /// Prints each note of the results (unused columns, the date form detected) once, on standard error.
    static func printNotes(_ results: [ReadResult]) {
        var seen = Set<String>()
        for note in results.flatMap(\.notes) where seen.insert(note).inserted { printError("note: \(note)") }
    }

    /// The statement of the adjustment applied, `nil` when every series was read as it is (nothing to state).
    static func statement(_ results: [ReadResult]) -> String? {
        let stated = results.filter { !$0.adjustment.isPlain }
        guard !stated.isEmpty else { return nil }
        let distinct = Dictionary(grouping: stated, by: { $0.adjustment.description })
        if distinct.count == 1, stated.count == results.count { return distinct.keys.first! }
        return stated.map { "\($0.series.symbol): \($0.adjustment.description)" }.joined(separator: "; ")
    }

    /// Refuses a strategy that decides on price levels (rsi, sentio) on prices that still have splits in them (a
    /// split of `schedule` multiplies shares): its indicators would read each split as a real move.
    /// - Throws: `UsageError` naming the symbols, `pricesState` (why the splits are in the prices) and `advice`.
    static func refusePriceStrategyOnSplits(
        _ schedule: [String: [HoldingAdjustment]], strategy: StrategyKind, actionsFile: String, pricesState: String,
        advice: String
    ) throws {
        let splitting = schedule.filter { $0.value.contains { $0.shareMultiplier != 1 } }.keys.sorted()
        if !splitting.isEmpty && (strategy == .rsi || strategy == .sentio) {
            throw UsageError(
                "--strategy \(strategy.rawValue) decides on prices, and the prices of \(splitting.joined(separator: ", ")) "
                    + "still have the splits of \(actionsFile) in them (\(pricesState)): \(advice)")
        }
    }

    /// The holding adjustments of every series (by symbol), for the backtest and live sessions.
    static func holdingAdjustments(_ results: [ReadResult], actions: CorporateActions?) -> [String: [HoldingAdjustment]] {
        guard let actions else { return [:] }
        var out: [String: [HoldingAdjustment]] = [:]
        for result in results {
            let list = actions.holdingAdjustments(for: result.series, adjustment: result.adjustment)
            if !list.isEmpty { out[result.series.symbol] = list }
        }
        return out
    }
}
