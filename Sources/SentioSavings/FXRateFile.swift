import SentioCore
import SentioCSV

/// A daily exchange-rate file for DCA in the investor's currency: `date,rate`, or an OHLCV-style CSV of the pair
/// (`date` or `timestamp`, `open`, `high`, `low`, `close`, `volume`) whose `close` is the rate.
///
/// Rules: header required, names case-insensitive, one date column (`date` or `timestamp`) and one rate column
/// (`rate`, else `close`); `open`, `high`, `low`, `volume` may be present and are not used; other columns are
/// errors. Dates are `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (the UTC date counts) and strictly increase (one
/// rate a day). Rates follow the one number grammar (`DecimalParser`) and are finite and > 0. Every row has the
/// header's number of cells. Errors name the file, line and field.
public struct FXRateFile: Sendable, Equatable {
    public var file: String
    public var dates: [CivilDate]
    public var rates: [Double]
    /// 1-based source line of each rate.
    public var lines: [Int]

    public init(text: String, file: String) throws(SavingsInputError) {
        self.file = file
        let records = try SavingsCSV.records(text, file: file).records
        let header = try SavingsCSV.header(records, file: file, expected: "date,rate (or date,open,high,low,close,volume)")
        let names = header.cells.map { $0.lowercased() }
        let dateColumn = names.contains("date") ? "date" : "timestamp"
        let rateColumn = names.contains("rate") ? "rate" : "close"
        let optional = ["open", "high", "low", "volume", "close", "rate", "date", "timestamp"].filter { $0 != dateColumn && $0 != rateColumn }
        let columns = try SavingsCSV.columns(of: header, required: [dateColumn, rateColumn], optional: optional, file: file)
        dates = []
        rates = []
        lines = []
        for record in records.dropFirst() {
            let row = SavingsRow(record: record, columns: columns, file: file)
            try row.checkCellCount(header: header)
            let dateText = row.cell(dateColumn)
            guard let seconds = LedgerTimestamp.parse(dateText) else {
                throw row.error(dateColumn, "\(EchoedText.quoted(dateText)) is not a date (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
            }
            let date = CivilDate(epochSeconds: seconds)
            if let last = dates.last, date <= last {
                throw row.error(dateColumn, "\(date) does not come after \(last) (line \(lines.last!)): one rate a day, dates increasing")
            }
            let rateText = row.cell(rateColumn)
            guard let rate = DecimalParser.parse(rateText), rate.isFinite, rate > 0 else {
                throw row.error(rateColumn, "\(EchoedText.quoted(rateText)) is not an exchange rate (a finite number > 0, as in 1.2634)")
            }
            dates.append(date)
            rates.append(rate)
            lines.append(record.line)
        }
        guard !dates.isEmpty else { throw SavingsInputError(file: file, line: nil, field: nil, message: "no rates after the header") }
    }
}
