import ArgumentParser
import Foundation
import Sentio

extension BarFrequency: ExpressibleByArgument {}

/// `sentio generate`: writes a deterministic synthetic market of leveraged ETF pairs as CSV files or as one NDJSON
/// feed in timeline order.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a deterministic synthetic OHLCV market (bull/bear 3x leveraged ETF pairs) as CSV files.",
        discussion: """
            Universe, in order: TQQQ SQQQ (Nasdaq-100), SOXL SOXS (semiconductors), SPXL SPXS (S&P 500), \
            TNA TZA (Russell 2000), FAS FAZ (financials), LABU LABD (biotech). Each pair shares one underlying \
            random walk with calm/volatile regimes; the bull fund is +3x and the bear fund -3x the underlying's \
            return, reset daily. Writes OUT/SYMBOL.csv with columns timestamp,open,high,low,close,volume \
            (prices with 4 decimals, integer volumes), each file atomically. Same options and seed give the same bytes. \
            Prices are unadjusted: a fund closing below $1 does a 1-for-10 reverse split (above $1,000,000 a 10-for-1 \
            split) before the next open, and its splits are written to OUT/actions/actions.csv \
            (symbol,date,split_ratio,cash_dividend): read such a market with --actions OUT/actions/actions.csv.
            Daily bars: business days (no holidays), dated YYYY-MM-DD. Minute bars: 390 per day, 09:30-15:59 \
            exchange time written as UTC (YYYY-MM-DDTHH:MM:SSZ).
            --format ndjson: one feed instead of files, one bar per line             ({"symbol","timestamp","open","high","low","close","volume"}), in timeline order (by timestamp, then in             universe order), to standard output or to --out FILE; ready for `sentio live`.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Symbols: a comma-separated list (e.g. TQQQ,SQQQ) or a count N taking the first N of the universe (12 = all).",
            valueName: "LIST|N"))
    var symbols: String = "12"

    @Option(parsing: .unconditional, help: ArgumentHelp("Bars per symbol (count, at least 1).", valueName: "N"))
    var bars: Int = 504

    @Option(help: ArgumentHelp("Bar frequency: daily or minute.", valueName: "daily|minute"))
    var freq: BarFrequency = .daily

    @Option(name: .customLong("seed"), parsing: .unconditional, help: ArgumentHelp("Random seed (unsigned 64-bit integer).", valueName: "S"))
    var seedArgument = UnsignedArgument(42)

    /// `--seed`, checked non-negative in `validate()`.
    var seed: UInt64 { seedArgument.value }

    @Option(help: ArgumentHelp("First trading date, YYYY-MM-DD (a weekend moves to the next Monday).", valueName: "DATE"))
    var start: String = "2023-01-02"

    @Option(help: ArgumentHelp("Output: csv (a SYMBOL.csv file per symbol) or ndjson (one feed in timeline order).", valueName: "FORMAT"))
    var format: OutputFormat = .csv

    @Option(help: ArgumentHelp("Output directory for csv (created if missing; existing SYMBOL.csv files are replaced); output file for ndjson (default: standard output).", valueName: "PATH"))
    var out: String?

    func validate() throws {
        try seedArgument.check("--seed")
        try format.require([.csv, .ndjson])
        if format == .csv && out == nil { throw ValidationError("--out DIR is required with --format csv") }
        _ = try makeConfig()
    }

    /// Parses the options into a checked configuration.
    func makeConfig() throws -> MarketConfig {
        guard bars >= 1 else { throw ValidationError("--bars must be at least 1, got \(bars)") }
        guard let startDate = CivilDate(iso: start) else {
            throw ValidationError("--start must be a date YYYY-MM-DD with a year from 0001 to 9999, got \(EchoedText.quoted(start))")
        }
        let universeSize = LeveragedPair.defaultUniverse.count * 2
        let symbolList: [String]
        let trimmed = symbols.trimmingCharacters(in: .whitespaces)
        if let count = Int(trimmed) {
            guard (1...universeSize).contains(count) else {
                throw ValidationError("--symbols count must be in 1...\(universeSize), got \(count)")
            }
            symbolList = MarketConfig.firstSymbols(count)
        } else {
            symbolList = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
                .filter { !$0.isEmpty }
        }
        let config = MarketConfig(symbols: symbolList, bars: bars, frequency: freq, seed: seed, start: startDate)
        do {
            _ = try MarketGenerator(config: config)
        } catch {
            let option = error.isDateRangeError ? "--start/--bars" : "--symbols"
            throw ValidationError("\(option): \(error.description)")
        }
        return config
    }

    func run() throws {
        let generator = try MarketGenerator(config: try makeConfig())
        if format == .ndjson {
            let series = generator.generate()
            if let out {
                try NDJSONBars.writeTimeline(series, to: out)
                printError("wrote \(series.count * bars) bars of \(series.count) symbols in timeline order to \(out)")
            } else {
                try NDJSONBars.writeTimelineToStandardOutput(series)
            }
            return
        }
        guard let out else { throw ValidationError("--out DIR is required with --format csv") }
        let paths = try generator.write(to: out)
        let first = generator.firstTradingDate
        print("wrote \(paths.count) files, \(bars) \(freq.rawValue) bars each from \(first), seed \(seed), to \(out)")
        for path in paths { print("  \(path)") }
        let actions = (out.hasSuffix("/") ? out : out + "/") + MarketGenerator.actionsFile
        if FileManager.default.fileExists(atPath: actions) {
            print("the funds split (prices are unadjusted): read the files with --actions \(actions)")
        }
    }
}
