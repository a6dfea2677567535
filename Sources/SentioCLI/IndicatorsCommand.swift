import ArgumentParser
import Foundation
import Sentio

struct IndicatorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "indicators",
        abstract: "Compute RSI, volume ratio, ATR, SMA and EMA for every bar of an OHLCV CSV file.",
        discussion: """
            Writes one row per bar with the header
              timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema
            A cell is empty (JSON: null) until its indicator has enough bars (its lookback): RSI and ATR from
            bar PERIOD (0-based), SMA/EMA from bar PERIOD-1, volume ratio from bar WINDOW-1. Timestamps are
            written as ISO-8601 UTC; numbers are written so that they read back to the same double.

            Definitions follow TA-Lib (RSI and ATR with Wilder smoothing seeded by a simple mean; EMA seeded
            with the SMA of the first PERIOD closes, k = 2/(PERIOD+1)). Volume ratio is
            volume[t] / mean(volume[t-WINDOW+1...t]), the current bar included.

            Example:
              sentio indicators Data/market/TQQQ.csv --rsi-period 14 --output tqqq-indicators.csv
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json
    }

    @Argument(help: "OHLCV CSV file (header with timestamp/date, open, high, low, close, volume).")
    var file: String

    @Option(help: "RSI period in bars (Wilder smoothing). Default 14.")
    var rsiPeriod: Int = 14

    @Option(help: "Volume-ratio window in bars, current bar included. Default 20.")
    var volumeWindow: Int = 20

    @Option(help: "ATR period in bars (Wilder smoothing). Default 14.")
    var atrPeriod: Int = 14

    @Option(help: "SMA and EMA period in bars. Default 20.")
    var maPeriod: Int = 20

    @Option(help: "Output format: csv or json. Default csv.")
    var format: Format = .csv

    @Option(help: "Write to this file (atomically) instead of standard output.")
    var output: String?

    @OptionGroup var lenient: LenientOptions

    func validate() throws {
        for (name, value) in [("--rsi-period", rsiPeriod), ("--volume-window", volumeWindow), ("--atr-period", atrPeriod), ("--ma-period", maPeriod)]
        where value < 1 {
            throw ValidationError("\(name) must be a positive number of bars, got \(value)")
        }
    }

    func run() throws {
        let result = try OHLCVReader.readWithReport(path: file, options: lenient.readOptions)
        if lenient.enabled { try lenient.report([(file, result.skipped)]) }
        let bars = result.series
        let periods = IndicatorPanel.Periods(rsi: rsiPeriod, volumeWindow: volumeWindow, atr: atrPeriod, movingAverage: maPeriod)
        let panel: IndicatorPanel
        do { panel = try IndicatorPanel(bars, periods: periods) } catch {
            throw IndicatorOverflowError(file: file, timestamp: bars.timestamps[error.barIndex], underlying: error)
        }
        var writer = ByteWriter()
        switch format {
        case .csv: Self.writeCSV(bars, panel, into: &writer)
        case .json: Self.writeJSON(bars, panel, into: &writer)
        }
        try emit(writer.bytes, to: output)
    }

    static func writeCSV(_ bars: OHLCVSeries, _ panel: IndicatorPanel, into w: inout ByteWriter) {
        w.append("timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema\n")
        let columns = panel.namedColumns.map(\.series)
        for i in 0..<bars.count {
            w.append(timestamp: bars.timestamps[i], dateOnly: false)
            for v in [bars.open[i], bars.high[i], bars.low[i], bars.close[i], bars.volume[i]] {
                w.append(UInt8(ascii: ","))
                w.append(roundTrip: v)
            }
            for c in columns {
                w.append(UInt8(ascii: ","))
                if let v = c.value(at: i), v.isFinite { w.append(roundTrip: v) }
            }
            w.append(UInt8(ascii: "\n"))
        }
    }

    static func writeJSON(_ bars: OHLCVSeries, _ panel: IndicatorPanel, into w: inout ByteWriter) {
        let p = panel.periods
        w.append("{\"symbol\":\(jsonString(bars.symbol)),\"periods\":{\"rsi\":\(p.rsi),\"volumeWindow\":\(p.volumeWindow),\"atr\":\(p.atr),\"movingAverage\":\(p.movingAverage)},")
        w.append("\"firstValidIndex\":{")
        w.append(panel.namedColumns.map { "\"\($0.name)\":\($0.series.firstValidIndex)" }.joined(separator: ","))
        w.append("},\"bars\":[")
        let columns = panel.namedColumns
        for i in 0..<bars.count {
            if i > 0 { w.append(UInt8(ascii: ",")) }
            w.append("\n{\"timestamp\":\"")
            w.append(timestamp: bars.timestamps[i], dateOnly: false)
            w.append("\"")
            for (name, v) in [("open", bars.open[i]), ("high", bars.high[i]), ("low", bars.low[i]), ("close", bars.close[i]), ("volume", bars.volume[i])] {
                w.append(",\"\(name)\":")
                w.append(roundTrip: v)
            }
            for (name, series) in columns {
                w.append(",\"\(name)\":")
                if let v = series.value(at: i), v.isFinite { w.append(roundTrip: v) } else { w.append("null") }
            }
            w.append(UInt8(ascii: "}"))
        }
        w.append("\n]}\n")
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
        FileHandle.standardOutput.write(Data(bytes))
    }
}

/// A JSON string literal for `s`.
func jsonString(_ s: String) -> String { JSONText.quoted(s) }
