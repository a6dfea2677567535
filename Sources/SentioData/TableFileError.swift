import SentioCSV
import SentioCore

/// A problem with one of the small CSV tables read beside the bars (a corporate actions file, an instrument
/// metadata file): `FILE:LINE: field 'NAME': DETAIL` (line 1 is the header).
public struct TableFileError: UserInputError, Equatable, Sendable {
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

    /// The records of the table `text` (the header first) and where its `columns` are (any case, any order; no
    /// other column).
    ///
    /// - Throws: naming `file`: a line the tokenizer rejects, an empty file (`empty file: expected a header …`
    ///   listing `columns`), or a missing, unknown or repeated column (on the header's line).
    static func table(_ text: String, file: String, columns names: [String]) throws(TableFileError)
        -> (records: [CSVRecords.Record], header: CSVRecords.Record, columns: [String: Int])
    {
        let records: [CSVRecords.Record]
        do throws(CSVRecords.Failure) {
            records = try CSVRecords(text: text).records
        } catch {
            throw TableFileError(file: file, line: error.line, field: error.field, reason: error.error.message)
        }
        guard let header = records.first else {
            throw TableFileError(
                file: file, line: nil, field: nil, reason: "empty file: expected a header \(names.joined(separator: ","))")
        }
        let columns: [String: Int]
        do throws(CSVRecords.ColumnError) {
            columns = try CSVRecords.columns(of: header, required: names, optional: [])
        } catch {
            throw TableFileError(file: file, line: header.line, field: error.field, reason: error.message)
        }
        return (records, header, columns)
    }
}
