import SentioCore
import SentioData
import SentioIndicators

// The `sentio indicators` outputs: every bar of a series with its indicator panel, as CSV or JSON.

extension IndicatorPanel {
    /// The CSV form: header `timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema`, one row per bar,
    /// timestamps ISO-8601 UTC, numbers in the shortest round-trip form, an empty cell where an indicator has no
    /// value yet (before its lookback).
    public func csv(_ bars: OHLCVSeries) -> [UInt8] {
        var writer = ByteWriter()
        Self.writeCSV(bars, self, into: &writer)
        return writer.bytes
    }

    /// The JSON form: `{"symbol", "periods", "firstValidIndex", "bars": [{"timestamp", "open", …, "ema"}]}`,
    /// one bar per line, `null` where an indicator has no value yet.
    public func json(_ bars: OHLCVSeries) -> [UInt8] {
        var writer = ByteWriter()
        Self.writeJSON(bars, self, into: &writer)
        return writer.bytes
    }

    static func writeCSV(_ bars: OHLCVSeries, _ panel: IndicatorPanel, into w: inout ByteWriter) {
        w.append("timestamp,open,high,low,close,volume,rsi,volume_ratio,atr,sma,ema\n")
        w.appendCSVRows(bars, columns: panel.namedColumns.map(\.series))
    }

    static func writeJSON(_ bars: OHLCVSeries, _ panel: IndicatorPanel, into w: inout ByteWriter) {
        let p = panel.periods
        w.append("{\"symbol\":\(JSONText.quoted(bars.symbol)),\"periods\":{\"rsi\":\(p.rsi),\"volumeWindow\":\(p.volumeWindow),\"atr\":\(p.atr),\"movingAverage\":\(p.movingAverage)},")
        w.append("\"firstValidIndex\":{")
        w.append(panel.namedColumns.map { "\"\($0.name)\":\($0.series.firstValidIndex)" }.joined(separator: ","))
        w.append("},\"bars\":")
        w.appendJSONBars(bars, columns: panel.namedColumns)
    }
}

extension ByteWriter {
    /// One CSV row per bar after the header: `timestamp,open,high,low,close,volume` then `columns`' values at the
    /// bar, the timestamp ISO-8601 UTC, numbers in the shortest round-trip form, an empty cell where a column has no
    /// finite value (before its lookback).
    mutating func appendCSVRows(_ bars: OHLCVSeries, columns: [IndicatorSeries]) {
        for i in 0..<bars.count {
            append(timestamp: bars.timestamps[i], dateOnly: false)
            for v in [bars.open[i], bars.high[i], bars.low[i], bars.close[i], bars.volume[i]] {
                append(UInt8(ascii: ","))
                append(roundTrip: v)
            }
            for c in columns {
                append(UInt8(ascii: ","))
                if let v = c.value(at: i), v.isFinite { append(roundTrip: v) }
            }
            append(UInt8(ascii: "\n"))
        }
    }

    /// The JSON array of the bars, one per line and closing the enclosing object (`[\n{…},\n{…}\n]}\n`): each
    /// `{"timestamp", "open", "high", "low", "close", "volume"}` then `columns` by name, `null` where a column has no
    /// finite value (before its lookback).
    mutating func appendJSONBars(_ bars: OHLCVSeries, columns: [(name: String, series: IndicatorSeries)]) {
        append(UInt8(ascii: "["))
        for i in 0..<bars.count {
            if i > 0 { append(UInt8(ascii: ",")) }
            append("\n{\"timestamp\":\"")
            append(timestamp: bars.timestamps[i], dateOnly: false)
            append("\"")
            for (name, v) in [("open", bars.open[i]), ("high", bars.high[i]), ("low", bars.low[i]), ("close", bars.close[i]), ("volume", bars.volume[i])] {
                append(",\"\(name)\":")
                append(roundTrip: v)
            }
            for (name, series) in columns {
                append(",\"\(name)\":")
                if let v = series.value(at: i), v.isFinite { append(roundTrip: v) } else { append("null") }
            }
            append(UInt8(ascii: "}"))
        }
        append("\n]}\n")
    }
}
