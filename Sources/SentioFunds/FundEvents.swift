import Foundation
import SentioCore
import SentioCSV

/// The kind of a fund event; the amount is always positive and the type gives its direction.
public enum FundEventType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Capital committed by the limited partner (no cash moves).
    case commitment
    /// A capital call: cash paid by the investor into the fund (a negative flow for the investor).
    case call
    /// A distribution: cash paid by the fund to the investor (a positive flow).
    case distribution
    /// A reported net asset value of the investor's stake at the date.
    case nav
}

/// Payment status of a capital call.
public enum CapitalCallStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case pending = "PENDING"
    case paid = "PAID"
    case late = "LATE"
    case overdue = "OVERDUE"

    /// An active call awaits payment: PENDING, LATE or OVERDUE.
    public var isActive: Bool { self != .paid }
}

/// One row of a fund events file.
public struct FundEvent: Sendable, Hashable {
    public var fundID: String
    public var date: CivilDate
    public var type: FundEventType
    public var amount: MoneyAmount
    /// Calls only: the payment due date, when given.
    public var dueDate: CivilDate?
    /// Calls only: the payment status; a call without a status is taken as PAID.
    public var status: CapitalCallStatus?
    /// Calls only: the date the investor paid the call, when known (not before the call date). A call with a
    /// payment date is paid: as of a date before it, the call is still awaiting payment (see ``FundMetrics``).
    public var paymentDate: CivilDate?
    /// Calls and NAV reports only: a link to the document (call notice, report), an absolute `http`/`https`
    /// URL (see ``FundDocumentURL``).
    public var url: String?
    /// The 1-based line in the source file (for messages).
    public var line: Int

    public init(
        fundID: String, date: CivilDate, type: FundEventType, amount: MoneyAmount, dueDate: CivilDate? = nil,
        status: CapitalCallStatus? = nil, paymentDate: CivilDate? = nil, url: String? = nil, line: Int
    ) {
        self.fundID = fundID
        self.date = date
        self.type = type
        self.amount = amount
        self.dueDate = dueDate
        self.status = status
        self.paymentDate = paymentDate
        self.url = url
        self.line = line
    }
}

/// The validated events of a file, grouped by fund in order of first appearance.
public struct FundEventFile: Sendable {
    public var file: String
    /// Fund ids in order of first appearance.
    public var fundIDs: [String]
    /// Events per fund, sorted by date (stable: same-date events keep file order).
    public var eventsByFund: [String: [FundEvent]]

    /// Parses and validates `fund_id,date,type,amount[,due_date,status,payment_date,url]` (header required,
    /// columns in any order, names case-insensitive; every optional column may be absent).
    ///
    /// Rejected, with file, line and field: a bad or missing date; an unknown type; an amount that is not a
    /// number of the one grammar (`DecimalParser`), cannot be held exactly, or is negative; a bad due date,
    /// status or payment date (`YYYY-MM-DD` only: `01/02/2024` and other ambiguous forms are errors); a status,
    /// due date or payment date on a non-call; a payment date on a call whose status says it is unpaid
    /// (PENDING, LATE, OVERDUE); a url that is not an absolute `http`/`https` URL (``FundDocumentURL``) or is
    /// on a commitment or distribution (no document); a fund without a commitment; an event dated before its
    /// fund's first commitment; a call whose due date or payment date is before its call date; a NAV with no
    /// call on or before its date.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in messages.
    /// - Throws: ``FundInputError`` naming the file, line and field.
    public init(text: String, file: String) throws(FundInputError) {
        self.file = file
        let records = try SmallCSV.parse(text, file: file)
        guard let header = records.first else {
            throw FundInputError(file: file, line: nil, field: nil,
                message: "empty file: expected a header fund_id,date,type,amount[,due_date,status,payment_date,url]")
        }
        let columns = try SmallCSV.columns(
            of: header, required: ["fund_id", "date", "type", "amount"],
            optional: ["due_date", "status", "payment_date", "url"], file: file)
        var fundIDs: [String] = []
        var byFund: [String: [FundEvent]] = [:]
        for record in records.dropFirst() {
            func cell(_ name: String) -> String {
                guard let k = columns[name], k < record.cells.count else { return "" }
                return record.cells[k]
            }
            func fail(_ field: String, _ message: String) -> FundInputError {
                FundInputError(file: file, line: record.line, field: field, message: message)
            }
            // Every row has the header's cells (empty ones for an absent due date or status): a short row is
            // what a truncated or hand-damaged file looks like, and its last cell may be cut short too.
            guard record.cells.count == header.cells.count else {
                throw FundInputError(file: file, line: record.line, field: nil,
                    message: "\(record.cells.count) cells but the header has \(header.cells.count) columns")
            }
            let fundID = cell("fund_id")
            guard !fundID.isEmpty else { throw fail("fund_id", "empty fund id") }
            let date = try FundCells.date(cell("date"), file: file, line: record.line, field: "date")
            let typeText = cell("type")
            guard let type = FundEventType(rawValue: typeText.lowercased()) else {
                throw fail("type", "unknown event type \(EchoedText.quoted(typeText)) (expected commitment, call, distribution or nav)")
            }
            let amountText = cell("amount")
            let amount = try FundCells.amount(amountText, file: file, line: record.line, field: "amount")
            guard amount.decimal >= 0 else {
                throw fail("amount", "negative amount \(EchoedText.show(amountText)): amounts are positive, the type gives the direction")
            }
            var dueDate: CivilDate? = nil
            let dueText = cell("due_date")
            if !dueText.isEmpty {
                guard type == .call else { throw fail("due_date", "a due date is only allowed on calls, not on a \(type.rawValue)") }
                dueDate = try FundCells.date(dueText, file: file, line: record.line, field: "due_date")
            }
            var status: CapitalCallStatus? = nil
            let statusText = cell("status")
            if !statusText.isEmpty {
                guard type == .call else { throw fail("status", "a status is only allowed on calls, not on a \(type.rawValue)") }
                guard let s = CapitalCallStatus(rawValue: statusText.uppercased()) else {
                    throw fail("status", "unknown status \(EchoedText.quoted(statusText)) (expected PENDING, PAID, LATE or OVERDUE)")
                }
                status = s
            }
            var paymentDate: CivilDate? = nil
            let paymentText = cell("payment_date")
            if !paymentText.isEmpty {
                guard type == .call else {
                    throw fail("payment_date", "a payment date is only allowed on calls, not on a \(type.rawValue)")
                }
                paymentDate = try FundCells.date(paymentText, file: file, line: record.line, field: "payment_date")
                if let status, status.isActive {
                    throw fail("payment_date", "the call has a payment date but its status \(status.rawValue) says it is unpaid: "
                        + "leave the status empty or PAID for a paid call")
                }
            }
            var url: String? = nil
            let urlText = cell("url")
            if !urlText.isEmpty {
                guard type == .call || type == .nav else {
                    throw fail("url", "a url is only allowed on calls and NAV reports (the events that are documents), not on a \(type.rawValue)")
                }
                if let problem = FundDocumentURL.problem(urlText) { throw fail("url", problem) }
                url = urlText
            }
            if byFund[fundID] == nil { fundIDs.append(fundID) }
            byFund[fundID, default: []].append(FundEvent(
                fundID: fundID, date: date, type: type, amount: amount, dueDate: dueDate, status: status,
                paymentDate: paymentDate, url: url, line: record.line))
        }
        guard !fundIDs.isEmpty else {
            throw FundInputError(file: file, line: nil, field: nil, message: "no events after the header")
        }
        self.fundIDs = fundIDs
        self.eventsByFund = try Self.checkedAndSorted(fundIDs: fundIDs, eventsByFund: byFund, file: file)
    }

    /// The per-fund rules shared by every way of building the file (see `init(text:file:)`); returns each fund's
    /// events sorted by date (stable). Events with `line` 0 (not from a file) are reported without a line.
    /// Rules: every fund has a commitment and nothing before its first one; a call's due date and payment date
    /// are not before its call date, and a call with a payment date is not marked unpaid; a url is an absolute
    /// `http`/`https` URL on a call or NAV; a NAV needs a call on or before its date.
    static func checkedAndSorted(
        fundIDs: [String], eventsByFund: [String: [FundEvent]], file: String
    ) throws(FundInputError) -> [String: [FundEvent]] {
        var byFund = eventsByFund
        func line(_ e: FundEvent) -> Int? { e.line > 0 ? e.line : nil }
        for id in fundIDs {
            let events = byFund[id]!
            guard let start = events.filter({ $0.type == .commitment }).map(\.date).min() else {
                throw FundInputError(file: file, line: line(events[0]), field: "fund_id",
                    message: "fund '\(id)' has no commitment event: its first event must be its commitment")
            }
            for e in events where e.date < start {
                throw FundInputError(file: file, line: line(e), field: "date",
                    message: "\(e.date) is before fund '\(id)''s first event, its commitment on \(start)")
            }
            for e in events where e.type == .call {
                if let due = e.dueDate, due < e.date {
                    throw FundInputError(file: file, line: line(e), field: "due_date",
                        message: "due date \(due) is before the call date \(e.date): a call cannot fall due before it is made")
                }
                if let paid = e.paymentDate {
                    if paid < e.date {
                        throw FundInputError(file: file, line: line(e), field: "payment_date",
                            message: "payment date \(paid) is before the call date \(e.date): a call cannot be paid before it is made")
                    }
                    if let status = e.status, status.isActive {
                        throw FundInputError(file: file, line: line(e), field: "payment_date",
                            message: "the call has a payment date but its status \(status.rawValue) says it is unpaid")
                    }
                }
            }
            for e in events where e.paymentDate != nil && e.type != .call {
                throw FundInputError(file: file, line: line(e), field: "payment_date",
                    message: "a payment date is only allowed on calls, not on a \(e.type.rawValue)")
            }
            for e in events {
                guard let url = e.url else { continue }
                guard e.type == .call || e.type == .nav else {
                    throw FundInputError(file: file, line: line(e), field: "url",
                        message: "a url is only allowed on calls and NAV reports, not on a \(e.type.rawValue)")
                }
                if let problem = FundDocumentURL.problem(url) {
                    throw FundInputError(file: file, line: line(e), field: "url", message: problem)
                }
            }
            let sorted = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
            let firstCall = sorted.first { $0.type == .call }?.date
            for e in sorted where e.type == .nav && (firstCall == nil || e.date < firstCall!) {
                throw FundInputError(file: file, line: line(e), field: "type",
                    message: "NAV on \(e.date) for fund '\(id)' without any capital call on or before that date")
            }
            // Two NAV reports on one date: which is the fund's value that day cannot be guessed (the same amount
            // twice is a harmless repeat).
            var navOn: [CivilDate: FundEvent] = [:]
            for e in sorted where e.type == .nav {
                if let earlier = navOn[e.date], earlier.amount.decimal != e.amount.decimal {
                    throw FundInputError(file: file, line: line(e), field: "amount",
                        message: "a second NAV for fund '\(id)' on \(e.date), \(e.amount.decimal), differs from the first, "
                            + "\(earlier.amount.decimal)\(line(earlier).map { " (line \($0))" } ?? ""): keep one report per date")
                }
                navOn[e.date] = navOn[e.date] ?? e
            }
            byFund[id] = sorted
        }
        return byFund
    }

    /// The last event date over all funds.
    public var lastDate: CivilDate? { eventsByFund.values.compactMap { $0.last?.date }.max() }

    /// Checks that every fund of this file appears in `metadata`; the error names this file's first line of
    /// the unknown fund.
    public func validate(against metadata: FundMetadataFile) throws(FundInputError) {
        for id in fundIDs where metadata.funds[id] == nil {
            throw FundInputError(file: file, line: eventsByFund[id]![0].line, field: "fund_id",
                message: "fund '\(id)' is not in the metadata file \(metadata.file)")
        }
    }
}

/// Descriptive data of a fund.
public struct FundMetadata: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    public var manager: String?
    public var domicile: String?
    public var vintage: Int?

    public init(id: String, name: String? = nil, manager: String? = nil, domicile: String? = nil, vintage: Int? = nil) {
        self.id = id
        self.name = name
        self.manager = manager
        self.domicile = domicile
        self.vintage = vintage
    }
}

/// Fund metadata from CSV (`id,name,manager,domicile,vintage`, header required) or JSON (an array of
/// objects with those keys, or `{"funds": [...]}`); JSON is recognised by a leading `[` or `{`.
public struct FundMetadataFile: Sendable {
    public var file: String
    public var funds: [String: FundMetadata]

    public init(text: String, file: String) throws(FundInputError) {
        self.file = file
        let trimmed = text.trimmed(of: " \t\r\n\u{FEFF}")
        var list: [FundMetadata] = []
        if trimmed.hasPrefix("[") || trimmed.hasPrefix("{") {
            list = try Self.parseJSON(trimmed, file: file)
        } else {
            let records = try SmallCSV.parse(text, file: file)
            guard let header = records.first else {
                throw FundInputError(file: file, line: nil, field: nil, message: "empty file: expected a header id,name,manager,domicile,vintage")
            }
            let columns = try SmallCSV.columns(of: header, required: ["id"], optional: ["name", "manager", "domicile", "vintage"], file: file)
            var lines: [String: Int] = [:]
            for record in records.dropFirst() {
                guard record.cells.count == header.cells.count else {
                    throw FundInputError(file: file, line: record.line, field: nil,
                        message: "\(record.cells.count) cells but the header has \(header.cells.count) columns")
                }
                func cell(_ name: String) -> String? {
                    guard let k = columns[name], !record.cells[k].isEmpty else { return nil }
                    return record.cells[k]
                }
                guard let id = cell("id") else {
                    throw FundInputError(file: file, line: record.line, field: "id", message: "empty fund id")
                }
                if let previous = lines[id] {
                    throw FundInputError(file: file, line: record.line, field: "id", message: "fund '\(id)' is listed twice (also line \(previous))")
                }
                lines[id] = record.line
                var vintage: Int? = nil
                if let v = cell("vintage") {
                    guard let year = Int(v), (1900...2200).contains(year) else {
                        throw FundInputError(file: file, line: record.line, field: "vintage", message: "\(EchoedText.quoted(v)) is not a year")
                    }
                    vintage = year
                }
                list.append(FundMetadata(id: id, name: cell("name"), manager: cell("manager"), domicile: cell("domicile"), vintage: vintage))
            }
        }
        var funds: [String: FundMetadata] = [:]
        for m in list { funds[m.id] = m }
        self.funds = funds
    }

    private struct Wrapper: Decodable { var funds: [FundMetadata] }

    private static func parseJSON(_ text: String, file: String) throws(FundInputError) -> [FundMetadata] {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        let list: [FundMetadata]
        do {
            list = text.hasPrefix("{") ? try decoder.decode(Wrapper.self, from: data).funds : try decoder.decode([FundMetadata].self, from: data)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
            let DecodingError.keyNotFound(_, context), let DecodingError.dataCorrupted(context)
        {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            throw FundInputError(file: file, line: nil, field: path.isEmpty ? nil : path, message: context.debugDescription)
        } catch {
            throw FundInputError(file: file, line: nil, field: nil, message: "invalid JSON: \(error)")
        }
        var seen = Set<String>()
        for (k, m) in list.enumerated() {
            guard !m.id.isEmpty else { throw FundInputError(file: file, line: nil, field: "[\(k)].id", message: "empty fund id") }
            guard seen.insert(m.id).inserted else {
                throw FundInputError(file: file, line: nil, field: "[\(k)].id", message: "fund '\(m.id)' is listed twice")
            }
        }
        return list
    }
}

/// A public index as `date,close` levels, strictly increasing dates, positive levels.
public struct IndexSeries: Sendable {
    public var file: String
    public var dates: [CivilDate]
    public var levels: [Double]
    /// Source line of each level.
    public var lines: [Int]

    public init(dates: [CivilDate], levels: [Double], file: String = "index") {
        precondition(dates.count == levels.count && !dates.isEmpty)
        self.file = file
        self.dates = dates
        self.levels = levels
        self.lines = Array(2..<(2 + dates.count))
    }

    /// Parses `date,close` (header required; other columns rejected). Levels follow the one number grammar
    /// (`DecimalParser`: no hexadecimal, no `inf`/`nan`) and must be finite and > 0.
    public init(text: String, file: String) throws(FundInputError) {
        self.file = file
        let records = try SmallCSV.parse(text, file: file)
        guard let header = records.first else {
            throw FundInputError(file: file, line: nil, field: nil, message: "empty file: expected a header date,close")
        }
        let columns = try SmallCSV.columns(of: header, required: ["date", "close"], optional: [], file: file)
        dates = []
        levels = []
        lines = []
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw FundInputError(file: file, line: record.line, field: nil,
                    message: "\(record.cells.count) cells but the header has \(header.cells.count) columns")
            }
            let dateText = record.cells[columns["date"]!], closeText = record.cells[columns["close"]!]
            let d = try FundCells.date(dateText, file: file, line: record.line, field: "date")
            let level = try FundCells.positive(closeText, file: file, line: record.line, field: "close")
            if let last = dates.last, d <= last {
                throw FundInputError(file: file, line: record.line, field: "date", message: "\(d) does not come after \(last): dates must increase")
            }
            dates.append(d)
            levels.append(level)
            lines.append(record.line)
        }
        guard !dates.isEmpty else { throw FundInputError(file: file, line: nil, field: nil, message: "no index levels") }
    }

    /// The level on `date`, or on the last index date before it; `nil` before the first index date.
    public func level(onOrBefore date: CivilDate) -> Double? {
        var lo = 0, hi = dates.count  // first index with dates[i] > date
        while lo < hi {
            let mid = (lo + hi) / 2
            if dates[mid] <= date { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : levels[lo - 1]
    }
}

/// Reads signed dated flows from `date,amount` CSV text (header required). Amounts follow the one number grammar
/// (`DecimalParser`) and are parsed exactly (`MoneyAmount`); dates are `YYYY-MM-DD` in the years 0001–9999; cells
/// follow `CSVTokenizer`. The error names the file, line and field.
public func readCashFlows(text: String, file: String) throws(FundInputError) -> [CashFlow] {
    let records = try SmallCSV.parse(text, file: file)
    guard let header = records.first else {
        throw FundInputError(file: file, line: nil, field: nil, message: "empty file: expected a header date,amount")
    }
    let columns = try SmallCSV.columns(of: header, required: ["date", "amount"], optional: [], file: file)
    var flows: [CashFlow] = []
    for record in records.dropFirst() {
        guard record.cells.count == header.cells.count else {
            throw FundInputError(file: file, line: record.line, field: nil,
                message: "\(record.cells.count) cells but the header has \(header.cells.count) columns")
        }
        let dateText = record.cells[columns["date"]!], amountText = record.cells[columns["amount"]!]
        let date = try FundCells.date(dateText, file: file, line: record.line, field: "date")
        let amount = try FundCells.amount(amountText, file: file, line: record.line, field: "amount")
        flows.append(CashFlow(date: date, amount: amount.double))
    }
    return flows
}
