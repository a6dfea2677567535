import SentioCSV
import SentioCore

/// A problem with an instrument metadata file: `FILE:LINE: field 'NAME': DETAIL` (line 1 is the header).
public struct InstrumentMetadataError: UserInputError, Equatable, Sendable {
    public var file: String
    /// 1-based line, `nil` when the error is about the whole file.
    public var line: Int?
    /// The column the error is about, when there is one.
    public var field: String?
    public var reason: String

    public init(file: String, line: Int?, field: String?, reason: String) {
        self.file = file
        self.line = line
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let field { text += "field '\(field)': " }
        return text + reason
    }
}

/// Instrument display names from a CSV file, for `sentio import --metadata` and the symbol detail.
///
/// Format: a header naming the columns `symbol` and `name` (any case, either order; no other column), then one
/// row per instrument, quoted as RFC 4180 allows (`TQQQ,"Nasdaq 3x Bull"`). Blank lines are skipped. Symbols
/// and names are trimmed of surrounding spaces and tabs.
///
/// Errors (each names the file, the line and the field): a missing, unknown or repeated column; a row with a
/// different number of cells than the header; an empty symbol or name; a symbol listed twice (ignoring case);
/// a quoting error; a file with a header and no rows.
public enum InstrumentMetadataFile {
    /// The `(symbol, name)` rows of `text`, in file order.
    /// - Throws: ``InstrumentMetadataError``.
    public static func parse(_ text: String, file: String) throws(InstrumentMetadataError) -> [(symbol: String, name: String)] {
        let records: [CSVRecords.Record]
        do throws(CSVRecords.Failure) {
            records = try CSVRecords(text: text).records
        } catch {
            throw InstrumentMetadataError(file: file, line: error.line, field: error.field, reason: error.error.message)
        }
        guard let header = records.first else {
            throw InstrumentMetadataError(file: file, line: nil, field: nil, reason: "empty file: expected a header symbol,name")
        }
        let columns: [String: Int]
        do throws(CSVRecords.ColumnError) {
            columns = try CSVRecords.columns(of: header, required: ["symbol", "name"], optional: [])
        } catch {
            throw InstrumentMetadataError(file: file, line: header.line, field: error.field, reason: error.message)
        }
        guard records.count > 1 else {
            throw InstrumentMetadataError(file: file, line: nil, field: nil, reason: "no rows after the header")
        }
        let symbolColumn = columns["symbol"]!, nameColumn = columns["name"]!
        var seen: [String: Int] = [:]
        var rows: [(symbol: String, name: String)] = []
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw InstrumentMetadataError(file: file, line: record.line, field: nil,
                    reason: "expected \(header.cells.count) cells like the header, found \(record.cells.count)")
            }
            func trimmed(_ s: String) -> String {
                String(s.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            }
            let symbol = trimmed(record.cells[symbolColumn]), name = trimmed(record.cells[nameColumn])
            if symbol.isEmpty { throw InstrumentMetadataError(file: file, line: record.line, field: "symbol", reason: "empty symbol") }
            if name.isEmpty { throw InstrumentMetadataError(file: file, line: record.line, field: "name", reason: "empty name") }
            if let previous = seen[symbol.uppercased()] {
                throw InstrumentMetadataError(file: file, line: record.line, field: "symbol",
                    reason: "\(EchoedText.show(symbol)) is listed twice (first on line \(previous))")
            }
            seen[symbol.uppercased()] = record.line
            rows.append((symbol, name))
        }
        return rows
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `TextFileError` when the file cannot be read; ``InstrumentMetadataError`` for its content.
    public static func read(path: String) throws -> [(symbol: String, name: String)] {
        try parse(try TextFile.read(path), file: path)
    }
}
