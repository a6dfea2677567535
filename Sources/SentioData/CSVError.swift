import Foundation
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
    /// A long-form file (a symbol column) holds several symbols where one series was asked for.
    case severalSymbols(file: String, symbols: [String])
    /// A long-form file has no row of the symbol asked for.
    case symbolNotInFile(file: String, symbol: String)
    /// Every date of the file reads both as month/day and as day/month (no number above 12 decides).
    case ambiguousDates(file: String, line: Int, value: String, separator: String)
    /// Unadjusted prices move from `previousLine` to `line` the way a split does (see ``PriceAdjustment``):
    /// `ratio` names the split ("2-for-1"), `closeRatio` and `openRatio` are the previous close over this bar's
    /// close and open.
    case suspectedSplit(
        file: String, line: Int, symbol: String, previousLine: Int, previousDate: String, date: String, ratio: String,
        closeRatio: Double, openRatio: Double)
    /// The price adjustment asked for cannot be made from this file (`--adjust total` without an adjusted close,
    /// `--adjust splits` without a source of splits, an adjusted close that moves against the close).
    case adjustment(file: String, line: Int?, message: String)

    /// The 1-based line the error refers to, when it refers to one row.
    public var line: Int? {
        switch self {
        case .unreadable, .noRows, .noCSVFiles, .severalSymbols, .symbolNotInFile: return nil
        case .ambiguousDates(_, let line, _, _): return line
        case .suspectedSplit(_, let line, _, _, _, _, _, _, _): return line
        case .adjustment(_, let line, _): return line
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
        case .severalSymbols(let file, let symbols):
            let names = symbols.prefix(10).joined(separator: ", ") + (symbols.count > 10 ? ", …" : "")
            return "\(file): holds \(symbols.count) symbols (\(names)); read it as a universe or select one symbol"
        case .symbolNotInFile(let file, let symbol):
            return "\(file): no row of symbol \(symbol)"
        case .ambiguousDates(let file, let line, let value, let separator):
            return "\(file):\(line): field 'timestamp': dates like '\(value)' read both as month\(separator)day and as "
                + "day\(separator)month on every row (no number above 12 decides); pass --date-format "
                + "'%m\(separator)%d\(separator)%Y' or '%d\(separator)%m\(separator)%Y'"
        case .suspectedSplit(let file, let line, let symbol, let previousLine, let previousDate, let date, let ratio,
                             let closeRatio, let openRatio):
            let subject = symbol.isEmpty ? "" : "\(symbol): "
            return "\(file):\(line): \(subject)from \(previousDate) (line \(previousLine)) to \(date) the close moves by a factor "
                + "\(shortNumber(1 / closeRatio)) and the open gaps by \(shortNumber(1 / openRatio)): this looks like a "
                + "\(ratio) split on unadjusted prices, which would read as a \(shortNumber((1 / closeRatio - 1) * 100))% "
                + "move. " + PriceAdjustment.suspectedSplitAdvice
        case .adjustment(let file, let line, let message):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
        }
    }
}

/// A ratio or percent as error messages show it: four significant digits.
func shortNumber(_ x: Double) -> String {
    let text = String(format: "%.4g", x)
    return text
}
