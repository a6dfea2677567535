import SentioCSV
import SentioCore

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
    /// - Throws: ``TableFileError``.
    public static func parse(_ text: String, file: String) throws(TableFileError) -> [(symbol: String, name: String)] {
        let (records, header, columns) = try TableFileError.table(text, file: file, columns: ["symbol", "name"])
        guard records.count > 1 else {
            throw TableFileError(file: file, line: nil, field: nil, reason: "no rows after the header")
        }
        let symbolColumn = columns["symbol"]!, nameColumn = columns["name"]!
        var seen: [String: Int] = [:]
        var rows: [(symbol: String, name: String)] = []
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw TableFileError(file: file, line: record.line, field: nil,
                    reason: "expected \(header.cells.count) cells like the header, found \(record.cells.count)")
            }
            func trimmed(_ s: String) -> String {
                String(s.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            }
            let symbol = trimmed(record.cells[symbolColumn]), name = trimmed(record.cells[nameColumn])
            if symbol.isEmpty { throw TableFileError(file: file, line: record.line, field: "symbol", reason: "empty symbol") }
            if name.isEmpty { throw TableFileError(file: file, line: record.line, field: "name", reason: "empty name") }
            if let previous = seen[symbol.uppercased()] {
                throw TableFileError(file: file, line: record.line, field: "symbol",
                    reason: "\(EchoedText.show(symbol)) is listed twice (first on line \(previous))")
            }
            seen[symbol.uppercased()] = record.line
            rows.append((symbol, name))
        }
        return rows
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `TextFileError` when the file cannot be read; ``TableFileError`` for its content.
    public static func read(path: String) throws -> [(symbol: String, name: String)] {
        try parse(try TextFile.read(path), file: path)
    }
}
