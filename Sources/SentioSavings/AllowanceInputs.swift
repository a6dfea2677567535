import Foundation
import SentioCore
import SentioCSV

/// A child of the allowance app (one row of CHILDREN.csv).
public struct AllowanceChild: Sendable, Hashable {
    public var id: String
    public var firstName: String
    public var lastName: String
    /// The weekly allowance (≥ 0, at most 2 decimal places).
    public var weeklyAllowance: Decimal
    public var allowanceDay: AllowanceDay
    /// 1-based source line (0 when not from a file).
    public var line: Int

    public init(id: String, firstName: String, lastName: String, weeklyAllowance: Decimal, allowanceDay: AllowanceDay, line: Int = 0) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.weeklyAllowance = weeklyAllowance
        self.allowanceDay = allowanceDay
        self.line = line
    }

    /// Parses `child_id,first_name,last_name,weekly_allowance,allowance_day` (header required, columns in any
    /// order, names case-insensitive; `last_name` may be empty).
    ///
    /// - Throws: ``SavingsInputError`` naming file, line and field: an empty or duplicate child id, an empty first
    ///   name, a weekly allowance that is not an amount with at most 2 decimal places or is negative, an
    ///   allowance day other than `monday`…`sunday` (any case), a row with a different number of cells than
    ///   the header, no child at all.
    public static func children(text: String, file: String) throws(SavingsInputError) -> [AllowanceChild] {
        let expected = "child_id,first_name,last_name,weekly_allowance,allowance_day"
        let records = try SavingsCSV.records(text, file: file).records
        let header = try SavingsCSV.header(records, file: file, expected: expected)
        let columns = try SavingsCSV.columns(
            of: header, required: ["child_id", "first_name", "last_name", "weekly_allowance", "allowance_day"], optional: [],
            file: file)
        var children: [AllowanceChild] = []
        var lines: [String: Int] = [:]
        for record in records.dropFirst() {
            let row = SavingsRow(record: record, columns: columns, file: file)
            try row.checkCellCount(header: header)
            let id = try row.text("child_id", what: "child id")
            if let previous = lines[id] {
                throw row.error("child_id", "child \(EchoedText.quoted(id)) is listed twice (also line \(previous))")
            }
            lines[id] = record.line
            let firstName = try row.text("first_name", what: "first name")
            let allowance = try row.money("weekly_allowance", positive: false)
            let dayText = row.cell("allowance_day")
            guard let day = AllowanceDay(rawValue: dayText.lowercased()) else {
                throw row.error("allowance_day", "\(EchoedText.quoted(dayText)) is not a day (expected monday, tuesday, wednesday, thursday, friday, saturday or sunday)")
            }
            children.append(AllowanceChild(
                id: id, firstName: firstName, lastName: row.cell("last_name"), weeklyAllowance: allowance, allowanceDay: day,
                line: record.line))
        }
        guard !children.isEmpty else { throw SavingsInputError(file: file, line: nil, field: nil, message: "no children after the header") }
        return children
    }
}

/// Whether a ledger row adds to or takes from the balance.
public enum LedgerEntryType: String, Sendable, Hashable, CaseIterable, Codable {
    case credit, debit
}

/// One row of LEDGER.csv.
public struct LedgerEntry: Sendable, Hashable {
    public var id: String
    public var childID: String
    /// UTC epoch seconds (a date alone is midnight UTC).
    public var timestamp: Int64
    public var type: LedgerEntryType
    /// The amount, > 0, at most 2 decimal places; the type gives the direction.
    public var amount: Decimal
    public var description: String
    public var category: String
    public var createdBy: String
    /// 1-based source line (0 when not from a file).
    public var line: Int

    public init(
        id: String, childID: String, timestamp: Int64, type: LedgerEntryType, amount: Decimal, description: String = "",
        category: String = "", createdBy: String = "", line: Int = 0
    ) {
        self.id = id
        self.childID = childID
        self.timestamp = timestamp
        self.type = type
        self.amount = amount
        self.description = description
        self.category = category
        self.createdBy = createdBy
        self.line = line
    }

    /// The UTC calendar date of the row.
    public var date: CivilDate { CivilDate(epochSeconds: timestamp) }

    /// `+amount` for a credit, `−amount` for a debit.
    public var signedAmount: Decimal { type == .credit ? amount : -amount }

    /// Whether the row is an allowance payment: a credit with category `Allowance` (any case).
    public var isAllowancePayment: Bool { type == .credit && category.lowercased() == "allowance" }

    /// The rows of `id,child_id,date,type,amount[,description,category,created_by]` text (header required,
    /// columns in any order, names case-insensitive).
    ///
    /// Row rules (an error naming file, line and field; with `lenient`, the row is skipped and its error returned
    /// in `skipped`, in line order): the row has the header's number of cells and follows the CSV rules; `id`
    /// and `child_id` are not empty; `date` is `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (UTC); `type` is `credit` or
    /// `debit` (any case); `amount` is > 0 with at most 2 decimal places (``SavingsMoney``).
    /// - Throws: ``SavingsInputError`` for an empty file, a bad header, or (without `lenient`) the first bad row.
    public static func entries(text: String, file: String, lenient: Bool = false) throws(SavingsInputError)
        -> (entries: [LedgerEntry], skipped: [SavingsInputError])
    {
        // Tokenize leniently even in strict mode, so that the error is the first bad line, whether its problem
        // is CSV syntax or a cell.
        let (records, syntaxSkipped) = try SavingsCSV.records(text, file: file, lenient: true)
        let header = try SavingsCSV.header(records, file: file, expected: "id,child_id,date,type,amount,description,category,created_by")
        let columns = try SavingsCSV.columns(
            of: header, required: ["id", "child_id", "date", "type", "amount"], optional: ["description", "category", "created_by"],
            file: file)
        var entries: [LedgerEntry] = []
        var skipped = syntaxSkipped
        for record in records.dropFirst() {
            let row = SavingsRow(record: record, columns: columns, file: file)
            do throws(SavingsInputError) {
                try row.checkCellCount(header: header)
                let id = try row.text("id", what: "transaction id")
                let childID = try row.text("child_id", what: "child id")
                let dateText = row.cell("date")
                guard let timestamp = LedgerTimestamp.parse(dateText) else {
                    throw row.error("date", "\(EchoedText.quoted(dateText)) is not a date (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC)")
                }
                let typeText = row.cell("type")
                guard let type = LedgerEntryType(rawValue: typeText.lowercased()) else {
                    throw row.error("type", "\(EchoedText.quoted(typeText)) is not a transaction type (expected credit or debit)")
                }
                let amount = try row.money("amount", positive: true)
                entries.append(LedgerEntry(
                    id: id, childID: childID, timestamp: timestamp, type: type, amount: amount, description: row.cell("description"),
                    category: row.cell("category"), createdBy: row.cell("created_by"), line: record.line))
            } catch {
                guard lenient else {
                    if let first = syntaxSkipped.first, (first.line ?? 0) < (error.line ?? 0) { throw first }
                    throw error
                }
                skipped.append(error)
            }
        }
        if !lenient, let first = syntaxSkipped.first { throw first }
        skipped.sort { ($0.line ?? 0) < ($1.line ?? 0) }
        return (entries, skipped)
    }
}

/// A savings goal (one row of GOALS.csv).
public struct SavingsGoal: Sendable, Hashable {
    public var id: String
    public var childID: String
    public var name: String
    /// The target, > 0, at most 2 decimal places.
    public var targetAmount: Decimal
    /// The day the goal was set; a goal created after the as-of date is not reported.
    public var created: CivilDate
    /// 1-based source line (0 when not from a file).
    public var line: Int

    public init(id: String, childID: String, name: String, targetAmount: Decimal, created: CivilDate, line: Int = 0) {
        self.id = id
        self.childID = childID
        self.name = name
        self.targetAmount = targetAmount
        self.created = created
        self.line = line
    }

    /// Parses `id,child_id,name,target_amount,created` (header required, columns in any order).
    ///
    /// - Throws: ``SavingsInputError`` naming file, line and field: an empty or duplicate id, a child not in
    ///   `children`, an empty name, a target that is not > 0 with at most 2 decimal places, a bad `created` date
    ///   (`YYYY-MM-DD`), a row with a different number of cells than the header.
    public static func goals(text: String, file: String, children: [AllowanceChild]) throws(SavingsInputError) -> [SavingsGoal] {
        let records = try SavingsCSV.records(text, file: file).records
        let header = try SavingsCSV.header(records, file: file, expected: "id,child_id,name,target_amount,created")
        let columns = try SavingsCSV.columns(
            of: header, required: ["id", "child_id", "name", "target_amount", "created"], optional: [], file: file)
        let known = Set(children.map(\.id))
        var goals: [SavingsGoal] = []
        var lines: [String: Int] = [:]
        for record in records.dropFirst() {
            let row = SavingsRow(record: record, columns: columns, file: file)
            try row.checkCellCount(header: header)
            let id = try row.text("id", what: "goal id")
            if let previous = lines[id] { throw row.error("id", "goal \(EchoedText.quoted(id)) is listed twice (also line \(previous))") }
            lines[id] = record.line
            let childID = try row.text("child_id", what: "child id")
            guard known.contains(childID) else { throw row.error("child_id", "child \(EchoedText.quoted(childID)) is not in the children file") }
            let name = try row.text("name", what: "goal name")
            let target = try row.money("target_amount", positive: true)
            let created = try row.date("created")
            goals.append(SavingsGoal(id: id, childID: childID, name: name, targetAmount: target, created: created, line: record.line))
        }
        return goals
    }
}
