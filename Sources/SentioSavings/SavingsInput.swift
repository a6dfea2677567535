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
/// (`CSVTokenizer` through `CSVRecords`: RFC 4180 quoting, text after a closing quote is an error, quoted cells do
/// not span lines, LF or CRLF, BOM ignored, blank lines skipped, cells trimmed of spaces).
enum SavingsCSV {
    typealias Record = CSVRecords.Record

    /// The records of `text`. A line that breaks the tokenizer's rules is an error, or with `lenient` (for rows
    /// after the header) skipped and returned in `skipped`; a broken header is always an error.
    static func records(_ text: String, file: String, lenient: Bool = false) throws(SavingsInputError)
        -> (records: [Record], skipped: [SavingsInputError])
    {
        var records: [Record] = []
        var skipped: [SavingsInputError] = []
        var rest = Substring(text)
        var lineOffset = 0
        while true {
            do throws(CSVRecords.Failure) {
                let chunk = try CSVRecords(text: String(rest)).records
                records += chunk.map { var r = $0; r.line += lineOffset; return r }
                return (records, skipped)
            } catch {
                let header = records.first?.cells ?? (lineOffset == 0 ? error.header : nil)
                let line = error.line + lineOffset
                var field: String? = nil
                if let header, error.error.cell < header.count, !header[error.error.cell].isEmpty {
                    field = EchoedText.show(header[error.error.cell])
                }
                let failure = SavingsInputError(
                    file: file, line: line, field: field,
                    message: field == nil ? "column \(error.error.cell + 1): \(error.error.message)" : error.error.message)
                let headerBroken = records.isEmpty && error.header == nil && lineOffset == 0
                guard lenient, !headerBroken else { throw failure }
                // Keep the records before the failing line, skip that line, go on after it.
                let (before, after) = split(rest, atLine: error.line)
                if let kept = try? CSVRecords(text: String(before)).records {
                    records += kept.map { var r = $0; r.line += lineOffset; return r }
                }
                skipped.append(failure)
                rest = after
                lineOffset += error.line
                if rest.isEmpty { return (records, skipped) }
            }
        }
    }

    /// `text` cut around its 1-based line `line`: the lines before it (with their line breaks) and the text
    /// after its line break.
    static func split(_ text: Substring, atLine line: Int) -> (before: Substring, after: Substring) {
        let utf8 = text.utf8
        var breaks = 0
        var beforeEnd = utf8.startIndex
        var u = utf8.startIndex
        while u != utf8.endIndex {
            if utf8[u] == UInt8(ascii: "\n") {
                breaks += 1
                let next = utf8.index(after: u)
                if breaks == line - 1 { beforeEnd = next }
                if breaks == line { return (text[..<beforeEnd], text[next...]) }
            }
            u = utf8.index(after: u)
        }
        return (text[..<beforeEnd], text[text.endIndex...])
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
    var record: CSVRecords.Record
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
    func checkCellCount(header: CSVRecords.Record) throws(SavingsInputError) {
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
