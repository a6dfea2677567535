import ArgumentParser
import Foundation
import Sentio

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
        let actions = try loadActions()
        var options = try readOptions(lenient: lenient, actions: actions)
        if actions != nil && adjust == .auto { options.adjust = .splits }
        return options
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
