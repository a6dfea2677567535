import SentioCore

/// A problem with an OHLCV CSV file, naming the file, the 1-based line (the header is line 1) and the field.
///
/// The `description` has the form `FILE:LINE: field 'NAME': DETAIL`, for example
/// `Data/TQQQ.csv:17: field 'high': 99.5 is below max(open, close) = 101.2`. Values taken from the file are
/// shown through `EchoedText` (control and invalid bytes escaped, at most 60 characters).
public enum CSVError: UserInputError, Equatable, Sendable {
    /// The file could not be opened or read.
    case unreadable(file: String, reason: String)
    /// The file has no header line (it is empty or blank).
    case emptyFile(file: String)
    /// The header names no column for a required field (`timestamp`, `open`, `high`, `low`, `close`, `volume`).
    case missingColumn(file: String, column: String, header: [String])
    /// The file has a header but no data rows; `skipped` counts rows dropped in lenient mode.
    case noRows(file: String, skipped: Int)
    /// A line breaks the quoting rules of `CSVTokenizer` (text after a closing quote, an unterminated quote, a
    /// quote inside an unquoted cell), or the header names one field twice (`close` twice, `date` and
    /// `timestamp`); `column` is 1-based, `field` the header's name for it when known.
    case syntax(file: String, line: Int, column: Int, field: String?, message: String)
    /// A row has a different number of cells than the header.
    case wrongColumnCount(file: String, line: Int, expected: Int, found: Int)
    /// A cell that should hold a number does not parse as a decimal number.
    case invalidNumber(file: String, line: Int, field: String, value: String)
    /// A number is NaN or infinite (written as such, or overflowing `Double`).
    case notFinite(file: String, line: Int, field: String, value: String)
    /// A timestamp cell is not in one of the accepted forms.
    case invalidTimestamp(file: String, line: Int, field: String, value: String, reason: String)
    /// A price is zero or below (prices must be finite and > 0).
    case nonPositivePrice(file: String, line: Int, field: String, value: Double)
    /// `high < low`.
    case highBelowLow(file: String, line: Int, high: Double, low: Double)
    /// `high < max(open, close)`.
    case highBelowOpenClose(file: String, line: Int, high: Double, maxOpenClose: Double)
    /// `low > min(open, close)`.
    case lowAboveOpenClose(file: String, line: Int, low: Double, minOpenClose: Double)
    /// The volume is below zero.
    case negativeVolume(file: String, line: Int, field: String, value: Double)
    /// The timestamp is not after the one of `previousLine` (the previous row in strict mode; in lenient mode a
    /// kept row before it), whose timestamp cell is `previousValue` (`duplicate` when equal).
    case nonIncreasingTimestamp(
        file: String, line: Int, field: String, value: String, previousLine: Int, previousValue: String, duplicate: Bool)
    /// Lenient mode: the timestamp is not before the one of the kept row `laterLine` (`duplicate` when equal), and
    /// keeping that row keeps more rows (see ``OHLCVReader``).
    case notBeforeLaterRow(
        file: String, line: Int, field: String, value: String, laterLine: Int, laterValue: String, duplicate: Bool)
    /// A directory given as input holds no `.csv` file.
    case noCSVFiles(directory: String)

    /// The 1-based line the error refers to, when it refers to one row.
    public var line: Int? {
        switch self {
        case .unreadable, .noRows, .noCSVFiles: return nil
        case .emptyFile, .missingColumn: return 1
        case .syntax(_, let line, _, _, _): return line
        case .notBeforeLaterRow(_, let line, _, _, _, _, _): return line
        case .wrongColumnCount(_, let line, _, _), .invalidNumber(_, let line, _, _), .notFinite(_, let line, _, _),
            .invalidTimestamp(_, let line, _, _, _), .nonPositivePrice(_, let line, _, _),
            .highBelowLow(_, let line, _, _), .highBelowOpenClose(_, let line, _, _),
            .lowAboveOpenClose(_, let line, _, _), .negativeVolume(_, let line, _, _),
            .nonIncreasingTimestamp(_, let line, _, _, _, _, _):
            return line
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read file: \(reason)"
        case .emptyFile(let file):
            return "\(file):1: empty file (no header line)"
        case .missingColumn(let file, let column, let header):
            let names = header.prefix(20).map { EchoedText.quoted($0) }.joined(separator: ", ") + (header.count > 20 ? ", …" : "")
            return "\(file):1: field '\(column)': missing required column (header has \(names))"
        case .noRows(let file, let skipped):
            return skipped == 0
                ? "\(file): no data rows after the header"
                : "\(file): no valid data rows (\(skipped) skipped)"
        case .syntax(let file, let line, let column, let field, let message):
            let name = field.map { "field '\($0)'" } ?? "column \(column)"
            return "\(file):\(line): \(name): \(message)"
        case .wrongColumnCount(let file, let line, let expected, let found):
            return "\(file):\(line): row has \(found) fields, the header has \(expected)"
        case .invalidNumber(let file, let line, let field, let value):
            return "\(file):\(line): field '\(field)': '\(value)' is not a number"
        case .notFinite(let file, let line, let field, let value):
            return "\(file):\(line): field '\(field)': '\(value)' is not a finite number"
        case .invalidTimestamp(let file, let line, let field, let value, let reason):
            return "\(file):\(line): field '\(field)': '\(value)' is not a valid timestamp (\(reason))"
        case .nonPositivePrice(let file, let line, let field, let value):
            return "\(file):\(line): field '\(field)': price \(value) is not positive (prices must be > 0)"
        case .highBelowLow(let file, let line, let high, let low):
            return "\(file):\(line): field 'high': \(high) is below low = \(low)"
        case .highBelowOpenClose(let file, let line, let high, let maxOpenClose):
            return "\(file):\(line): field 'high': \(high) is below max(open, close) = \(maxOpenClose)"
        case .lowAboveOpenClose(let file, let line, let low, let minOpenClose):
            return "\(file):\(line): field 'low': \(low) is above min(open, close) = \(minOpenClose)"
        case .negativeVolume(let file, let line, let field, let value):
            return "\(file):\(line): field '\(field)': volume \(value) is negative"
        case .nonIncreasingTimestamp(let file, let line, let field, let value, let previousLine, let previousValue, let duplicate):
            return duplicate
                ? "\(file):\(line): field '\(field)': duplicate timestamp '\(value)' (same as line \(previousLine)'s '\(previousValue)')"
                : "\(file):\(line): field '\(field)': timestamp '\(value)' is not after line \(previousLine)'s '\(previousValue)'"
        case .notBeforeLaterRow(let file, let line, let field, let value, let laterLine, let laterValue, let duplicate):
            return duplicate
                ? "\(file):\(line): field '\(field)': duplicate timestamp '\(value)' (same as line \(laterLine)'s '\(laterValue)', which is kept)"
                : "\(file):\(line): field '\(field)': timestamp '\(value)' is not before line \(laterLine)'s '\(laterValue)' (keeping line \(laterLine) keeps more rows)"
        case .noCSVFiles(let directory):
            return "\(directory): directory contains no .csv file"
        }
    }
}
