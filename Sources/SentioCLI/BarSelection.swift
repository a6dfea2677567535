import ArgumentParser
import Foundation
import Sentio
import SentioApplication

// The options that select bars for `sentio backtest` and `sentio signals`: a time range (`--from`/`--to`) applied
// the same way to CSV input and to stored bars (the rules are the library's `BarRange` and
// `SentioDatabase.selectSeries`), and `--lenient` CSV reading.

/// `--from DATE` and `--to DATE`: an inclusive time range.
struct BarRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "First bar time included: YYYY-MM-DD (from 00:00 UTC) or an ISO-8601 timestamp (default: the first bar).",
        valueName: "DATE"))
    var from: String?

    @Option(help: ArgumentHelp(
        "Last bar time included: YYYY-MM-DD (the whole day, to 23:59:59 UTC) or an ISO-8601 timestamp (default: the last bar).",
        valueName: "DATE"))
    var to: String?

    func validate() throws {
        let range = try resolve()
        if let lower = range.lower, let upper = range.upper, lower > upper {
            throw ValidationError("--from \(from!) is after --to \(to!)")
        }
    }

    /// The bounds as UTC epoch seconds; a bare date as `--to` stands for the end of that day.
    func resolve() throws -> BarRange {
        func parse(_ text: String, option: String, endOfDay: Bool) throws -> Int64 {
            switch TimestampParser.parse(text) {
            case .success(let seconds):
                // A bare date parses to its midnight; as an upper bound it means the whole day.
                return endOfDay && CivilDate(iso: text) != nil ? seconds + 86_399 : seconds
            case .failure(let failure):
                throw ValidationError("\(option) '\(text)': \(failure.reason)")
            }
        }
        return BarRange(
            lower: try from.map { try parse($0, option: "--from", endOfDay: false) },
            upper: try to.map { try parse($0, option: "--to", endOfDay: true) })
    }

    var isEmpty: Bool { from == nil && to == nil }
}

/// Splits a comma-separated `--symbols` list; an empty list or a repeated symbol (ignoring case) is a usage error.
func parseSymbolList(_ list: String) throws -> [String] {
    let wanted = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard !wanted.isEmpty else { throw UsageError("--symbols is empty") }
    var seen = Set<String>()
    for symbol in wanted where !seen.insert(symbol.uppercased()).inserted {
        throw UsageError("--symbols lists \(symbol) twice")
    }
    return wanted
}

/// Reads bars from the store for `sentio backtest --db` and `sentio signals --db` (`SentioDatabase.selectSeries`:
/// symbols matched without regard to case, default every stored symbol; unknown symbols, an empty store and
/// symbols without bars in the range are usage errors that name the store).
func loadStoredSeries(from database: SentioDatabase, symbols wanted: [String]?, range: BarRange) throws -> [OHLCVSeries] {
    try database.selectSeries(symbols: wanted, range: range)
}

/// `--lenient` and `--rejects FILE`, shared by every command that reads OHLCV CSV files (import, indicators,
/// signals).
///
/// Lenient reading skips bad rows and, when timestamps are out of order, keeps the largest set of rows whose
/// timestamps increase (see `OHLCVReader`), so one bad row never costs more than itself. Every skipped row is
/// reported: a summary (count and the first few) on standard error, and all of them in `--rejects FILE`
/// (CSV `file,line,reason`, written atomically, header only when nothing was skipped).
struct LenientOptions: ParsableArguments {
    @Flag(name: .customLong("lenient"), help: "Skip bad CSV rows instead of failing on the first one; out-of-order rows cost only themselves (the longest increasing run of timestamps is kept). A summary goes to standard error, every skipped line to --rejects.")
    var enabled = false

    @Option(help: ArgumentHelp("With --lenient: write every skipped row to this CSV file (file,line,reason), atomically.", valueName: "FILE"))
    var rejects: String?

    /// How many skipped rows the summary on standard error shows per file.
    static let summaryLimit = 5

    func validate() throws {
        if rejects != nil && !enabled { throw ValidationError("--rejects needs --lenient (strict reading stops at the first bad row)") }
        if let rejects, rejects.isEmpty { throw ValidationError("--rejects needs a file name") }
    }

    var readOptions: ReadOptions { ReadOptions(lenient: enabled) }

    /// Prints the summary of each file's skipped rows on standard error and writes `--rejects` when given.
    func report(_ results: [(file: String, skipped: [SkippedRow])]) throws {
        for (file, skipped) in results where !skipped.isEmpty {
            printError("warning: \(file): skipped \(skipped.count) invalid row(s) (--lenient)")
            for row in skipped.prefix(Self.summaryLimit) { printError("  \(row.description)") }
            if skipped.count > Self.summaryLimit {
                let rest = skipped.count - Self.summaryLimit
                printError(rejects.map { "  ... and \(rest) more (all listed in \($0))" }
                    ?? "  ... and \(rest) more (--rejects FILE lists them all)")
            }
        }
        if let rejects { try AtomicFile.write(path: rejects, bytes: Array(Self.rejectsCSV(results).utf8)) }
    }

    /// The `--rejects` CSV text (`RejectsFile.csv`), skipped lines in file then line order.
    static func rejectsCSV(_ results: [(file: String, skipped: [SkippedRow])]) -> String {
        RejectsFile.csv(results.flatMap { file, skipped in skipped.map { (file, $0.line, $0.reason) } })
    }
}
