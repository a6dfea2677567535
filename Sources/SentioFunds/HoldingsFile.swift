import SentioCore
import SentioCSV

/// One line of a holdings file: what is held of one market symbol.
public struct Holding: Sendable, Hashable {
    /// The market symbol whose closes value the holding (the name of its OHLCV series, e.g. `BTCUSD`).
    public var symbol: String
    /// The display name (`Bitcoin`).
    public var name: String
    /// The amount held, in units of the asset (coins), parsed exactly; never negative.
    public var amount: MoneyAmount
    /// The 1-based line in the source file (0 when not from a file).
    public var line: Int

    public init(symbol: String, name: String, amount: MoneyAmount, line: Int = 0) {
        self.symbol = symbol
        self.name = name
        self.amount = amount
        self.line = line
    }
}

/// A holdings file (`sentio fund --holdings FILE`): CSV with the header `symbol,name,amount` (columns in any
/// order, names case-insensitive, no other column), one holding per line.
///
/// Cells follow the one CSV tokenizer (`CSVTokenizer`, as every fund file). Rejected, with file, line and
/// field: an empty symbol or name; a symbol with characters other than letters, digits, `.`, `-` and `_`
/// (it names a market series, e.g. a file `BTCUSD.csv`); a symbol listed twice (ignoring case: its contract
/// id would repeat); an amount that is not a number of the one grammar (`DecimalParser`), cannot be held
/// exactly, or is negative; a row with fewer or more cells than the header; a file without holdings.
public struct HoldingsFile: Sendable {
    public var file: String
    /// The holdings in file order.
    public var holdings: [Holding]

    /// Parses and validates the text of a holdings file.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in messages.
    /// - Throws: ``FundInputError`` naming the file, line and field.
    public init(text: String, file: String) throws(FundInputError) {
        self.file = file
        let records = try SmallCSV.parse(text, file: file)
        guard let header = records.first else {
            throw FundInputError(file: file, line: nil, field: nil, message: "empty file: expected a header symbol,name,amount")
        }
        let columns = try SmallCSV.columns(of: header, required: ["symbol", "name", "amount"], optional: [], file: file)
        var holdings: [Holding] = []
        var lineOf: [String: Int] = [:]
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw FundInputError(file: file, line: record.line, field: nil,
                    message: "\(record.cells.count) cells but the header has \(header.cells.count) columns")
            }
            func fail(_ field: String, _ message: String) -> FundInputError {
                FundInputError(file: file, line: record.line, field: field, message: message)
            }
            let symbol = record.cells[columns["symbol"]!], name = record.cells[columns["name"]!]
            let amountText = record.cells[columns["amount"]!]
            guard !symbol.isEmpty else { throw fail("symbol", "empty symbol") }
            guard symbol.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw fail("symbol", "\(EchoedText.quoted(symbol)) is not a market symbol (letters, digits, '.', '-' and '_', as in BTCUSD)")
            }
            if let previous = lineOf[symbol.uppercased()] {
                throw fail("symbol", "\(symbol) is listed twice (also line \(previous)): give one line per symbol")
            }
            guard !name.isEmpty else { throw fail("name", "empty name") }
            let amount = try FundCells.amount(amountText, file: file, line: record.line, field: "amount")
            guard amount.decimal >= 0 else {
                throw fail("amount", "negative amount \(EchoedText.show(amountText)): an amount held is not negative")
            }
            lineOf[symbol.uppercased()] = record.line
            holdings.append(Holding(symbol: symbol, name: name, amount: amount, line: record.line))
        }
        guard !holdings.isEmpty else { throw FundInputError(file: file, line: nil, field: nil, message: "no holdings after the header") }
        self.holdings = holdings
    }

    /// Holdings given as values (for example built by a server); no checks beyond those of the values.
    /// - Parameters:
    ///   - holdings: the holdings, in order.
    ///   - file: the name used in messages.
    public init(holdings: [Holding], file: String) {
        self.file = file
        self.holdings = holdings
    }
}
