import SentioCore

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

/// A minimal RFC 4180 reader for the small fund files: comma-separated, optional double quotes with `""`
/// escapes, LF or CRLF line ends, a UTF-8 byte-order mark ignored, blank lines skipped, unquoted cells
/// trimmed of spaces. Records carry their 1-based line number for error messages.
enum SmallCSV {
    struct Record {
        var line: Int
        var cells: [String]
    }

    static func parse(_ text: String, file: String) throws(FundInputError) -> [Record] {
        var records: [Record] = []
        var cells: [String] = []
        var cell = ""
        var inQuotes = false
        var wasQuoted = false
        var line = 1
        var recordLine = 1
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        func endCell() {
            cells.append(wasQuoted ? cell : cell.trimmed(of: " \t"))
            cell = ""
            wasQuoted = false
        }
        func endRecord() {
            endCell()
            if !(cells.count == 1 && cells[0].isEmpty) { records.append(Record(line: recordLine, cells: cells)) }
            cells = []
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count && chars[i + 1] == "\"" {
                        cell.unicodeScalars.append("\"")
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if c == "\n" { line += 1 }
                    cell.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                guard cell.trimmed(of: " \t").isEmpty else {
                    throw FundInputError(file: file, line: line, field: nil, message: "a double quote inside an unquoted cell")
                }
                cell = ""
                inQuotes = true
                wasQuoted = true
            } else if c == "," {
                endCell()
            } else if c == "\n" || c == "\r" {
                if c == "\r" && i + 1 < chars.count && chars[i + 1] == "\n" { i += 1 }
                endRecord()
                line += 1
                recordLine = line
            } else {
                cell.unicodeScalars.append(c)
            }
            i += 1
        }
        if inQuotes {
            throw FundInputError(file: file, line: recordLine, field: nil, message: "unterminated quoted cell")
        }
        if !cell.isEmpty || !cells.isEmpty { endRecord() }
        return records
    }

    /// Maps the header row to column indices, checking required columns and rejecting unknown ones.
    static func columns(
        of header: Record, required: [String], optional: [String], file: String
    ) throws(FundInputError) -> [String: Int] {
        var map: [String: Int] = [:]
        for (k, raw) in header.cells.enumerated() {
            let name = raw.lowercased()
            guard required.contains(name) || optional.contains(name) else {
                throw FundInputError(file: file, line: header.line, field: raw,
                    message: "unknown column (expected \((required + optional).joined(separator: ", ")))")
            }
            guard map[name] == nil else {
                throw FundInputError(file: file, line: header.line, field: raw, message: "duplicate column")
            }
            map[name] = k
        }
        for name in required where map[name] == nil {
            throw FundInputError(file: file, line: header.line, field: name,
                message: "missing column (the header must name \(required.joined(separator: ", ")))")
        }
        return map
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
