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
    typealias Record = CSVRecords.Record

    /// The records of `text` through `CSVRecords` (the one tokenizer). A line that breaks the tokenizer's rules is
    /// an error, or with `lenient` (for rows after the header) skipped and returned in `skipped`; a broken header
    /// is always an error.
    static func records(_ text: String, file: String, lenient: Bool = false) throws(SavingsInputError)
        -> (records: [Record], skipped: [SavingsInputError])
    {
        func inputError(_ failure: CSVRecords.Failure) -> SavingsInputError {
            let field = failure.field.map { EchoedText.show($0) }
            return SavingsInputError(
                file: file, line: failure.line, field: field,
                message: field == nil ? "column \(failure.error.cell + 1): \(failure.error.message)" : failure.error.message)
        }
        do throws(CSVRecords.Failure) {
            let parsed = try CSVRecords(text: text, lenient: lenient)
            return (parsed.records, parsed.skipped.map(inputError))
        } catch {
            throw inputError(error)
        }
    }

    /// Maps the header row to column indices, checking required columns and rejecting unknown or duplicate ones
    /// (names case-insensitive).
    static func columns(of header: Record, required: [String], optional: [String], file: String) throws(SavingsInputError) -> [String: Int] {
        do throws(CSVRecords.ColumnError) {
            return try CSVRecords.columns(of: header, required: required, optional: optional)
        } catch {
            throw SavingsInputError(file: file, line: header.line, field: error.field, message: error.message)
        }
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
