import SentioCore
import SentioCSV

/// Bad fund, metadata or index input: names the file, the line (1-based, the header is line 1) and the field.
public struct FundInputError: UserInputError, Equatable {
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

    /// `events.csv line 7, field 'type': unknown event type 'fee' (...)`.
    public var description: String {
        var location = file
        if let line { location += " line \(line)" }
        if let field { location += ", field '\(field)'" }
        return "\(location): \(message)"
    }
}

/// The small fund files (events, metadata, index levels, cash flows) as records of cells, tokenized by the one
/// Sentio CSV tokenizer (`CSVTokenizer`, the same rules as the OHLCV reader: RFC 4180 quoting, text after a
/// closing quote is an error, quoted cells do not span lines, LF or CRLF, BOM ignored, blank lines skipped,
/// unquoted cells trimmed of spaces). Records carry their 1-based line number for error messages; cells are
/// parsed by the shared rules of ``FundCells``.
enum SmallCSV {
    typealias Record = CSVRecords.Record

    static func parse(_ text: String, file: String) throws(FundInputError) -> [Record] {
        do throws(CSVRecords.Failure) {
            return try CSVRecords(text: text).records
        } catch {
            if let field = error.field {
                throw FundInputError(file: file, line: error.line, field: EchoedText.show(field), message: error.error.message)
            }
            throw FundInputError(file: file, line: error.line, field: nil,
                message: "column \(error.error.cell + 1): \(error.error.message)")
        }
    }

    /// Maps the header row to column indices, checking required columns and rejecting unknown ones.
    static func columns(
        of header: Record, required: [String], optional: [String], file: String
    ) throws(FundInputError) -> [String: Int] {
        do throws(CSVRecords.ColumnError) {
            return try CSVRecords.columns(of: header, required: required, optional: optional)
        } catch {
            throw FundInputError(file: file, line: header.line, field: error.field, message: error.message)
        }
    }
}

extension String {
    func trimmed(of set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var view = Substring(self)
        while let first = view.unicodeScalars.first, scalars.contains(first) { view = view.dropFirst() }
        while let last = view.unicodeScalars.last, scalars.contains(last) { view = view.dropLast() }
        return String(view)
    }
}

/// How the fund readers read dates and numbers from cells: one rule each, shared by the events, index and
/// cash-flow readers, with errors naming the file, line and field and echoing the cell through `EchoedText`.
enum FundCells {
    /// `YYYY-MM-DD` with a year from 0001 to 9999 (``CivilDate/init(iso:)``).
    static func date(_ text: String, file: String, line: Int, field: String) throws(FundInputError) -> CivilDate {
        guard let date = CivilDate(iso: text) else {
            let yearZero = text.hasPrefix("0000-") && CivilDate(iso: "0001" + text.dropFirst(4)) != nil
            throw FundInputError(file: file, line: line, field: field,
                message: "\(EchoedText.quoted(text)) is not a date (expected YYYY-MM-DD\(yearZero ? " with a year from 0001 to 9999" : ""))")
        }
        return date
    }

    /// A number of the one grammar (`DecimalParser`) held exactly (``MoneyAmount/init(text:)``).
    static func amount(_ text: String, file: String, line: Int, field: String) throws(FundInputError) -> MoneyAmount {
        if let amount = MoneyAmount(text: text) { return amount }
        throw FundInputError(file: file, line: line, field: field, message: numberProblem(text, exact: true, noun: "decimal amount"))
    }

    /// A number of the one grammar (`DecimalParser`) that is finite and > 0.
    static func positive(_ text: String, file: String, line: Int, field: String) throws(FundInputError) -> Double {
        guard let value = DecimalParser.parse(text), value.isFinite else {
            throw FundInputError(file: file, line: line, field: field, message: numberProblem(text, exact: false, noun: "number"))
        }
        guard value > 0 else {
            throw FundInputError(file: file, line: line, field: field, message: "\(EchoedText.quoted(text)) is not a positive number")
        }
        return value
    }

    /// Why `text` is not an acceptable number, in words.
    static func numberProblem(_ text: String, exact: Bool, noun: String) -> String {
        let shown = EchoedText.quoted(text)
        guard let value = DecimalParser.parse(text) else {
            if DecimalParser.spellsNonFinite(text) { return "\(shown) is not a finite number" }
            return "\(shown) is not a \(noun) (expected an optional sign, digits, an optional '.' fraction and an optional exponent, as in -1250.50 or 1.5e6)"
        }
        if !value.isFinite { return "\(shown) is not a finite number (too large)" }
        precondition(exact, "a finite number of the grammar is always acceptable without exactness")
        return "\(shown) cannot be kept exactly (at most 30 significant digits and a power of ten within ±100)"
    }
}
