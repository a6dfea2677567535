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
        w.append("{\"symbol\":\(JSONText.quoted(bars.symbol)),\"periods\":{\"rsi\":\(p.rsi),\"volumeWindow\":\(p.volumeWindow),\"atr\":\(p.atr),\"movingAverage\":\(p.movingAverage)},")
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
