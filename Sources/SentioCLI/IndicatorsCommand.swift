import ArgumentParser
import Foundation
import Sentio
import SentioApplication

struct IndicatorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "indicators",
        abstract: "Compute RSI, volume ratio, ATR, SMA and EMA (or TA-Lib functions: --only) for every bar of an OHLCV CSV file.",
        discussion: """
            Writes one row per bar with the header
              timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema
            A cell is empty (JSON: null) until its indicator has enough bars (its lookback): RSI and ATR from bar PERIOD (0-based), SMA/EMA from bar PERIOD-1, volume ratio from bar WINDOW-1.
            Timestamps are written as ISO-8601 UTC; numbers are written so that they read back to the same double.

            Definitions follow TA-Lib (RSI and ATR with Wilder smoothing seeded by a simple mean; EMA seeded with the SMA of the first PERIOD closes, k = 2/(PERIOD+1)).
            Volume ratio is volume[t] / mean(volume[t-WINDOW+1...t]), the current bar included.

            TA-Lib functions (--only NAME,NAME...; --list prints all 47 with inputs, parameters, defaults and lookbacks): MACD, BBANDS, STOCH, ADX, CCI, MFI, OBV, WMA, ... with TA-Lib's names, defaults, parameter names and lookbacks, computed in TA-Lib 0.8.1's order of floating-point operations (the same bits; unstable period 0). Columns are named by the function (wma, cci) or function_output for several outputs (macd_macd, macd_macdsignal, macd_macdhist, bbands_upperband, stoch_slowk, aroon_aroonup), after timestamp and OHLCV. --set FUNCTION.PARAMETER=VALUE changes a parameter (TA-Lib's parameter names; matype: 0 SMA, 1 EMA, 2 WMA, 3 DEMA, 4 TEMA, 5 TRIMA, 6 KAMA). Without --only the columns are the five above.

            Examples:
              sentio indicators Data/market/TQQQ.csv --rsi-period 14 --output tqqq-indicators.csv
              sentio indicators Data/market/TQQQ.csv --only macd,bbands,stoch --set macd.fastperiod=8 --set bbands.nbdevup=2.5
              sentio indicators --list
            """
    )

    @Argument(help: ArgumentHelp("OHLCV CSV file (header with timestamp/date, open, high, low, close, volume).", valueName: "FILE"))
    var file: String?

    @Option(help: ArgumentHelp("Compute these TA-Lib functions instead of the five default columns (comma-separated TA-Lib names, any case; --list shows them).", valueName: "NAME,NAME..."))
    var only: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Set a parameter of an --only function (repeatable), e.g. macd.fastperiod=8, bbands.nbdevup=2.5, stoch.slowk_matype=1.", valueName: "FUNCTION.PARAMETER=VALUE"))
    var settings: [String] = []

    @Flag(help: "List the TA-Lib functions (inputs, parameters with defaults and ranges, columns, lookback) and exit.")
    var list = false

    @Option(parsing: .unconditional, help: ArgumentHelp("RSI period (bars; Wilder smoothing).", valueName: "N"))
    var rsiPeriod: Int = 14

    @Option(parsing: .unconditional, help: ArgumentHelp("Volume-ratio window, current bar included (bars).", valueName: "N"))
    var volumeWindow: Int = 20

    @Option(parsing: .unconditional, help: ArgumentHelp("ATR period (bars; Wilder smoothing).", valueName: "N"))
    var atrPeriod: Int = 14

    @Option(parsing: .unconditional, help: ArgumentHelp("SMA and EMA period (bars).", valueName: "N"))
    var maPeriod: Int = 20

    @Option(help: ArgumentHelp("Output format: csv or json.", valueName: "csv|json"))
    var format: OutputFormat = .csv

    @Option(help: ArgumentHelp("Write to this file (atomically) instead of standard output.", valueName: "PATH"))
    var output: String?

    @OptionGroup var lenient: LenientOptions

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    func validate() throws {
        if list { return }
        guard file != nil else { throw ValidationError("missing the OHLCV FILE (or --list)") }
        if only == nil && !settings.isEmpty { throw ValidationError("--set applies to --only functions; add --only") }
        try format.require([.csv, .json])
        for (name, value) in [("--rsi-period", rsiPeriod), ("--volume-window", volumeWindow), ("--atr-period", atrPeriod), ("--ma-period", maPeriod)]
        where value < 1 || value > maximumIndicatorPeriod {
            throw ValidationError("\(name) must be a number of bars from 1 to \(maximumIndicatorPeriod), got \(value)")
        }
    }

    func run() throws {
        if list {
            try StandardOutput.write(Array(TAFunctionPanel.listing().utf8))
            return
        }
        let file = file!
        let functions = try only.map { names in try TAFunctionPanel.functions(names: names.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }, settings: settings) }
        try checkOutputPath(lenient.rejects, option: "--rejects", against: inputFiles([file]))
        try checkOutputPath(output, option: "--output", against: inputFiles([file]) + [(lenient.rejects ?? "", "the --rejects file")])
        let result = try OHLCVReader.readWithReport(path: file, options: try marketFile.analysisReadOptions(lenient: lenient.enabled))
        MarketFileOptions.printNotesAndStatement([result])
        if lenient.enabled { try lenient.report([(file, result.skipped)]) }
        let bars = result.series
        if let functions {
            let panel: TAFunctionPanel
            do { panel = try TAFunctionPanel(bars, functions: functions) } catch {
                throw IndicatorOverflowError(file: file, timestamp: bars.timestamps[error.barIndex], underlying: error)
            }
            try emit(format == .json ? panel.json(bars) : panel.csv(bars), to: output)
            return
        }
        let periods = IndicatorPanel.Periods(rsi: rsiPeriod, volumeWindow: volumeWindow, atr: atrPeriod, movingAverage: maPeriod)
        let panel: IndicatorPanel
        do { panel = try IndicatorPanel(bars, periods: periods) } catch {
            throw IndicatorOverflowError(file: file, timestamp: bars.timestamps[error.barIndex], underlying: error)
        }
        try emit(format == .json ? panel.json(bars) : panel.csv(bars), to: output)
    }
}

/// An indicator window of an input file that cannot be represented (exit 2), located by file and bar timestamp
/// (the reader does not keep line numbers per bar).
struct IndicatorOverflowError: UserInputError {
    let file: String
    let timestamp: Int64
    let underlying: WindowOverflowError

    var description: String { "\(file): bar dated \(iso8601(epochSeconds: timestamp)): \(underlying.description)" }
}

/// Writes `bytes` to `path` atomically, or to standard output when `path` is nil.
func emit(_ bytes: [UInt8], to path: String?) throws {
    if let path {
        try AtomicFile.write(path: path, bytes: bytes)
    } else {
        try StandardOutput.write(bytes)
    }
}
