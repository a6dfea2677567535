import Foundation
import SentioCore
import SentioCSV

/// Bad allowance input (children, ledger or goals file, or options): names the file, the line (1-based, the
/// header is line 1) and the field when there is one. The command line maps it to exit code 2.
public struct SavingsInputError: UserInputError, Equatable, Hashable {
    public var file: String
    public var line: Int?
    public var field: String?
    public var message: String

    public init(file: String, line: Int?, field: String?, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// The message without the location: what `--rejects` lists as the reason.
    public var reason: String { field.map { "field '\($0)': \(message)" } ?? message }

    /// `ledger.csv line 7, field 'amount': '1.005' has more than 2 decimal places`.
    public var description: String {
        var location = file
        if let line { location += " line \(line)" }
        if let field { location += ", field '\(field)'" }
        return "\(location): \(message)"
    }
}

/// The small allowance files as records of cells, tokenized by the one Sentio CSV tokenizer
/// (`CSVTokenizer`, as `CSVRecords` calls it: RFC 4180 quoting, text after a closing quote is an error, quoted cells do
/// not span lines, LF or CRLF, BOM ignored, blank lines skipped, cells trimmed of spaces).
enum SavingsCSV {
    /// One non-blank line's cells with its 1-based line number.
    struct Record: Sendable, Equatable {
        var line: Int
        var cells: [String]
    }

    /// The records of `text`, line by line through `CSVTokenizer` (the same calls as `CSVRecords`, so the same
    /// rules), in one pass. A line that breaks the tokenizer's rules is an error, or with `lenient` (for rows after
    /// the header) skipped and returned in `skipped`; a broken header is always an error.
    static func records(_ text: String, file: String, lenient: Bool = false) throws(SavingsInputError)
        -> (records: [Record], skipped: [SavingsInputError])
    {
        var copy = text
        var records: [Record] = []
        var skipped: [SavingsInputError] = []
        var fatal: SavingsInputError?
        copy.withUTF8 { buffer in
            guard let b = buffer.baseAddress, buffer.count > 0 else { return }
            let n = buffer.count
            var position = CSVTokenizer.firstLineStart(buffer)
            var lineNumber = 0
            var starts = [Int](repeating: 0, count: 16), ends = [Int](repeating: 0, count: 16)
            while position < n {
                let (start, end) = CSVTokenizer.nextLine(b, count: n, position: &position)
                lineNumber += 1
                if CSVTokenizer.isBlank(b, from: start, to: end) { continue }
                do throws(CSVSyntaxError) {
                    var found = 0
                    while true {
                        let capacity = starts.count
                        found = try starts.withUnsafeMutableBufferPointer { (s) throws(CSVSyntaxError) -> Int in
                            try ends.withUnsafeMutableBufferPointer { (e) throws(CSVSyntaxError) -> Int in
                                try CSVTokenizer.splitLine(
                                    b, from: start, to: end, readableEnd: n, starts: s.baseAddress!, ends: e.baseAddress!,
                                    capacity: capacity)
                            }
                        }
                        if found <= capacity { break }
                        starts = [Int](repeating: 0, count: found)
                        ends = [Int](repeating: 0, count: found)
                    }
                    let cells = (0..<found).map { CSVTokenizer.unescapedString(b, from: starts[$0], to: ends[$0], lineStart: start) }
                    records.append(Record(line: lineNumber, cells: cells))
                } catch {
                    var field: String? = nil
                    if let header = records.first?.cells, error.cell < header.count, !header[error.cell].isEmpty {
                        field = EchoedText.show(header[error.cell])
                    }
                    let failure = SavingsInputError(
                        file: file, line: lineNumber, field: field,
                        message: field == nil ? "column \(error.cell + 1): \(error.message)" : error.message)
                    guard lenient, !records.isEmpty else {
                        fatal = failure
                        return
                    }
                    skipped.append(failure)
                }
            }
        }
        if let fatal { throw fatal }
        return (records, skipped)
    }

    /// Maps the header row to column indices, checking required columns and rejecting unknown or duplicate ones
    /// (names case-insensitive).
    static func columns(of header: Record, required: [String], optional: [String], file: String) throws(SavingsInputError) -> [String: Int] {
        var map: [String: Int] = [:]
        for (k, raw) in header.cells.enumerated() {
            let name = raw.lowercased()
            guard required.contains(name) || optional.contains(name) else {
                throw SavingsInputError(file: file, line: header.line, field: EchoedText.show(raw),
                    message: "unknown column (expected \((required + optional).joined(separator: ", ")))")
            }
            guard map[name] == nil else {
                throw SavingsInputError(file: file, line: header.line, field: EchoedText.show(raw), message: "duplicate column")
            }
            map[name] = k
        }
        for name in required where map[name] == nil {
            throw SavingsInputError(file: file, line: header.line, field: name,
                message: "missing column (the header must name \(required.joined(separator: ", ")))")
        }
        return map
    }

    /// The header (the first record) or an error for an empty file.
    static func header(_ records: [Record], file: String, expected: String) throws(SavingsInputError) -> Record {
        guard let header = records.first else {
            throw SavingsInputError(file: file, line: nil, field: nil, message: "empty file: expected a header \(expected)")
        }
        return header
    }
}

/// One row's cells by column name, with errors naming the file, line and field.
struct SavingsRow {
    var record: SavingsCSV.Record
    var columns: [String: Int]
    var file: String

    /// The cell of column `name`, or `""` when the column is absent.
    func cell(_ name: String) -> String {
        guard let k = columns[name], k < record.cells.count else { return "" }
        return record.cells[k]
    }

    func error(_ field: String?, _ message: String) -> SavingsInputError {
        SavingsInputError(file: file, line: record.line, field: field, message: message)
    }

    /// Every row has the header's number of cells (a short row is what a truncated file looks like).
    func checkCellCount(header: SavingsCSV.Record) throws(SavingsInputError) {
        guard record.cells.count == header.cells.count else {
            throw error(nil, "\(record.cells.count) cells but the header has \(header.cells.count) columns")
        }
    }

    /// A non-empty cell.
    func text(_ name: String, what: String) throws(SavingsInputError) -> String {
        let value = cell(name)
        guard !value.isEmpty else { throw error(name, "empty \(what)") }
        return value
    }

    /// `YYYY-MM-DD` with a year from 0001 to 9999.
    func date(_ name: String) throws(SavingsInputError) -> CivilDate {
        let value = cell(name)
        guard let date = CivilDate(iso: value) else { throw error(name, "\(EchoedText.quoted(value)) is not a date (expected YYYY-MM-DD)") }
        return date
    }

    /// An amount of money (see ``SavingsMoney/parse(_:)``) within `range`.
    func money(_ name: String, positive: Bool) throws(SavingsInputError) -> Decimal {
        let value = cell(name)
        switch SavingsMoney.parse(value) {
        case .failure(let problem): throw error(name, problem.message)
        case .success(let amount):
            if positive, amount <= 0 {
                throw error(name, "\(EchoedText.quoted(value)) is not greater than 0 (amounts are positive; the type gives the direction)")
            }
            if !positive, amount < 0 { throw error(name, "\(EchoedText.quoted(value)) is negative") }
            return amount
        }
    }
}
