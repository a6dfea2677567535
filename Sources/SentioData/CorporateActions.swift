import SentioCSV
import SentioCore

/// One corporate action of one symbol on its ex-date.
public struct CorporateAction: Sendable, Equatable {
    /// The symbol, as written in the file (matched to series without regard to case).
    public var symbol: String
    /// The ex-date (UTC epoch seconds, 00:00 for a date): the action takes effect before the open of the symbol's
    /// first bar at or after this time.
    public var date: Int64
    /// New shares per old share: 2 for a 2-for-1 split, 0.1 for a 1-for-10 reverse split, 1 for none.
    public var splitRatio: Double
    /// Cash paid per share held before the ex-date's open (per share after the split when both fall on the same
    /// date), in the prices' currency; 0 for none.
    public var cashDividend: Double
    /// The line of the actions file.
    public var line: Int
}

/// Corporate actions from a CSV file (`--actions FILE`).
///
/// Format: a header naming `symbol`, `date`, `split_ratio` and `cash_dividend` (any case, any order), then one row
/// per action. `date` is a date (`YYYY-MM-DD`, or any form of ``TimestampParser``): the ex-date. `split_ratio` is
/// new shares per old share (`2`, `1.5`, `0.1`), also written `NEW:OLD` (`2:1`, `1:10`); empty means no split.
/// `cash_dividend` is cash per share (≥ 0); empty means none. One row per symbol and date.
///
/// How they are used (see ``PriceAdjustment``): with prices as in the file, the backtest applies each action to
/// the holding at the ex-date (shares × ratio, cash credited); with `--adjust splits`, prices before each split are
/// divided by its ratio (volumes multiplied) and the dividends are credited per adjusted share.
public struct CorporateActions: Sendable, Equatable {
    /// The file the actions came from (for messages).
    public var file: String
    /// The actions, sorted by symbol (upper-cased) then date.
    public var actions: [CorporateAction]

    public init(file: String, actions: [CorporateAction]) {
        self.file = file
        self.actions = actions.sorted { ($0.symbol.uppercased(), $0.date) < ($1.symbol.uppercased(), $1.date) }
    }

    /// Parses the text of an actions file.
    /// - Throws: ``TableFileError`` naming the file, line and field.
    public static func parse(_ text: String, file: String) throws(TableFileError) -> CorporateActions {
        let (records, header, columns) = try TableFileError.table(
            text, file: file, columns: ["symbol", "date", "split_ratio", "cash_dividend"])
        let symbolColumn = columns["symbol"]!, dateColumn = columns["date"]!
        let splitColumn = columns["split_ratio"]!, dividendColumn = columns["cash_dividend"]!
        var seen: [String: Int] = [:]
        var actions: [CorporateAction] = []
        for record in records.dropFirst() {
            let line = record.line
            guard record.cells.count == header.cells.count else {
                throw TableFileError(file: file, line: line, field: nil,
                    reason: "expected \(header.cells.count) cells like the header, found \(record.cells.count)")
            }
            func cell(_ k: Int) -> String { record.cells[k].trimmingCharacters(in: .whitespaces) }
            let symbol = cell(symbolColumn)
            if symbol.isEmpty { throw TableFileError(file: file, line: line, field: "symbol", reason: "empty symbol") }
            let date: Int64
            switch TimestampParser.parse(cell(dateColumn)) {
            case .success(let t): date = t
            case .failure(let failure):
                throw TableFileError(file: file, line: line, field: "date",
                    reason: "'\(EchoedText.show(cell(dateColumn)))' is not a date (\(failure.reason))")
            }
            var ratio = 1.0
            let ratioText = cell(splitColumn)
            if !ratioText.isEmpty {
                let parts = ratioText.split(separator: ":", omittingEmptySubsequences: false)
                let numbers = parts.map { DecimalParser.parse($0) }
                guard (parts.count == 1 || parts.count == 2), numbers.allSatisfy({ $0 != nil && $0!.isFinite && $0! > 0 }) else {
                    throw TableFileError(file: file, line: line, field: "split_ratio",
                        reason: "'\(EchoedText.show(ratioText))' is not a positive ratio (new shares per old share: 2, 0.1, 2:1 or 1:10)")
                }
                ratio = parts.count == 1 ? numbers[0]! : numbers[0]! / numbers[1]!
            }
            var dividend = 0.0
            let dividendText = cell(dividendColumn)
            if !dividendText.isEmpty {
                guard let d = DecimalParser.parse(dividendText), d.isFinite, d >= 0 else {
                    throw TableFileError(file: file, line: line, field: "cash_dividend",
                        reason: "'\(EchoedText.show(dividendText))' is not a cash amount >= 0")
                }
                dividend = d
            }
            let key = "\(symbol.uppercased()) \(date)"
            if let previous = seen[key] {
                throw TableFileError(file: file, line: line, field: "date",
                    reason: "\(symbol) has a second action on this date (first on line \(previous)); put both in one row")
            }
            seen[key] = line
            actions.append(CorporateAction(symbol: symbol, date: date, splitRatio: ratio, cashDividend: dividend, line: line))
        }
        return CorporateActions(file: file, actions: actions)
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `TextFileError` when the file cannot be read; ``TableFileError`` for its content.
    public static func read(path: String) throws -> CorporateActions {
        try parse(try TextFile.read(path), file: path)
    }

    /// The actions of `symbol` (without regard to case), by date.
    public func actions(for symbol: String) -> [CorporateAction] {
        let wanted = symbol.uppercased()
        return actions.filter { $0.symbol.uppercased() == wanted }
    }

    /// Whether any action of the file splits shares.
    public var hasSplits: Bool { actions.contains { $0.splitRatio != 1 } }

    /// Every action of `symbol` as the portfolio applies it to a holding on prices as they arrive (unadjusted):
    /// shares × ratio and the dividend per share, at the ex-date. What a live session schedules (its bars cannot be
    /// back-adjusted).
    public func rawHoldingAdjustments(for symbol: String) -> [HoldingAdjustment] {
        actions(for: symbol).map { HoldingAdjustment(time: $0.date, shareMultiplier: $0.splitRatio, cashPerShare: $0.cashDividend) }
    }

    /// ``rawHoldingAdjustments(for:)`` of each symbol of `universe` that has actions, by symbol (as the universe
    /// spells it).
    public func rawHoldingAdjustments(universe: [String]) -> [String: [HoldingAdjustment]] {
        var out: [String: [HoldingAdjustment]] = [:]
        for symbol in universe {
            let list = rawHoldingAdjustments(for: symbol)
            if !list.isEmpty { out[symbol] = list }
        }
        return out
    }

    /// What the portfolio applies to a holding of `series` read with `adjustment` (see ``PriceAdjustment``):
    /// prices as in the file: every action as written; split-adjusted prices: no share change, and each dividend
    /// divided by the product of the ratios of the later splits (the prices' basis); total-return prices: nothing
    /// (the dividends are in the prices). Actions after the series' last bar are left out.
    public func holdingAdjustments(for series: OHLCVSeries, adjustment: AppliedAdjustment) -> [HoldingAdjustment] {
        guard adjustment.mode != .total, let last = series.timestamps.last else { return [] }
        if adjustment.mode == .none { return rawHoldingAdjustments(for: series.symbol).filter { $0.time <= last } }
        let own = actions(for: series.symbol).filter { $0.date <= last }
        // Split-adjusted prices: a dividend on date d is paid per raw share of d; the price basis divides shares
        // of d by the splits after d.
        var out: [HoldingAdjustment] = []
        for (k, action) in own.enumerated() where action.cashDividend > 0 {
            var later = 1.0
            for other in own[(k + 1)...] { later *= other.splitRatio }
            out.append(HoldingAdjustment(time: action.date, shareMultiplier: 1, cashPerShare: action.cashDividend / later))
        }
        return out
    }
}
