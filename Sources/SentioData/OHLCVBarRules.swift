import SentioCore

extension OHLCVReader {
    /// The per-bar value rules every OHLCV input follows (CSV files and NDJSON feeds alike): prices > 0,
    /// `high ≥ low`, `high ≥ max(open, close)`, `low ≤ min(open, close)`, volume ≥ 0. Finiteness is checked when
    /// the numbers are parsed; the order of timestamps is the caller's rule.
    ///
    /// - Parameters:
    ///   - open: the bar's opening price.
    ///   - high: the bar's highest price.
    ///   - low: the bar's lowest price.
    ///   - close: the bar's closing price.
    ///   - volume: the bar's volume.
    ///   - file: the input's name, for the error.
    ///   - line: the input's 1-based line, for the error.
    ///   - fieldNames: how the input names `open`, `high`, `low`, `close` and `volume` (indices 1...5, in the
    ///     order timestamp, open, high, low, close, volume; index 0 is the timestamp and unused here).
    /// - Throws: the first broken rule, as ``CSVError`` naming `file`, `line` and the field.
    @inline(__always)
    public static func checkBarValues(
        open: Double, high: Double, low: Double, close: Double, volume: Double,
        file: String, line: Int, fieldNames: [String]
    ) throws(CSVError) {
        if !(open > 0) { throw .nonPositivePrice(file: file, line: line, field: fieldNames[1], value: open) }
        if !(high > 0) { throw .nonPositivePrice(file: file, line: line, field: fieldNames[2], value: high) }
        if !(low > 0) { throw .nonPositivePrice(file: file, line: line, field: fieldNames[3], value: low) }
        if !(close > 0) { throw .nonPositivePrice(file: file, line: line, field: fieldNames[4], value: close) }
        if high < low { throw .highBelowLow(file: file, line: line, high: high, low: low) }
        let maxOpenClose = max(open, close), minOpenClose = min(open, close)
        if high < maxOpenClose {
            throw .highBelowOpenClose(file: file, line: line, high: high, maxOpenClose: maxOpenClose)
        }
        if low > minOpenClose {
            throw .lowAboveOpenClose(file: file, line: line, low: low, minOpenClose: minOpenClose)
        }
        if volume < 0 { throw .negativeVolume(file: file, line: line, field: fieldNames[5], value: volume) }
    }
}
