import Foundation
import SentioCore

/// The allowance dashboard of every child as of a date: the JSON shape of `sentio allowance` (field names and
/// order are the contract; see ``SavingsJSON`` for how it is written).
public struct AllowanceReport: Codable, Sendable, Equatable {
    /// The as-of date, `YYYY-MM-DD`: rows dated on or before it count.
    public var asOf: String
    /// In the order of the children file.
    public var children: [ChildDashboard]

    public init(asOf: String, children: [ChildDashboard]) {
        self.asOf = asOf
        self.children = children
    }
}

/// One child's dashboard.
public struct ChildDashboard: Codable, Sendable, Equatable {
    public var childId: String
    public var firstName: String
    public var lastName: String
    /// The balance at the end of the as-of date.
    public var currentBalance: Decimal
    public var weeklyAllowance: Decimal
    /// The date of the last allowance payment (a credit with category `Allowance`) on or before the as-of date.
    public var lastAllowanceDate: String?
    /// The first allowance day on or after the as-of date that is after the last allowance payment.
    public var nextAllowanceDate: String
    /// Days from the as-of date to ``nextAllowanceDate`` (0 to 7).
    public var daysUntilAllowance: Int
    /// Every calendar month from the child's first row to the as-of month, oldest first.
    public var monthly: [MonthlySummary]
    /// Debits by category, largest amount first (ties by category name).
    public var spendingByCategory: [CategorySpending]
    /// Accepted rows on or before the as-of date, oldest first.
    public var transactions: [TransactionRecord]
    /// The child's goals created on or before the as-of date, in the order of the goals file.
    public var goals: [GoalProgress]
}

/// Credits, debits and their difference in one calendar month (UTC).
public struct MonthlySummary: Codable, Sendable, Equatable {
    /// `YYYY-MM`.
    public var month: String
    /// Sum of credits.
    public var earned: Decimal
    /// Sum of debits.
    public var spent: Decimal
    /// `earned − spent`.
    public var net: Decimal

    public init(month: String, earned: Decimal, spent: Decimal, net: Decimal) {
        self.month = month
        self.earned = earned
        self.spent = spent
        self.net = net
    }
}

/// The debits of one category.
public struct CategorySpending: Codable, Sendable, Equatable {
    /// The row's category; `Uncategorized` for an empty one.
    public var category: String
    /// Sum of the category's debits.
    public var amount: Decimal
    /// `amount ÷ total debits × 100`, rounded to 2 decimals (halves away from zero); the percentages may
    /// therefore sum to 100 ± 0.01 per category.
    public var percentage: Decimal
}

/// Credit or debit, as the app spells it.
public enum TransactionKind: String, Codable, Sendable, Equatable {
    case credit = "Credit"
    case debit = "Debit"
}

/// One accepted ledger row.
public struct TransactionRecord: Codable, Sendable, Equatable {
    public var id: String
    public var childId: String
    /// Positive; ``type`` gives the direction.
    public var amount: Decimal
    public var type: TransactionKind
    public var description: String
    public var category: String
    public var balanceAfter: Decimal
    public var createdBy: String
    /// ISO-8601 UTC: `2025-03-01T00:00:00Z` (a row dated without a time is at midnight UTC).
    public var createdAt: String
}

/// Whether a goal is reached, reachable at the current saving rate, or not.
public enum GoalStatus: String, Codable, Sendable, Equatable {
    /// The current amount reaches the target.
    case achieved
    /// Not achieved, and an estimated completion date exists (the weekly saving rate is > 0).
    case onTrack
    /// Not achieved and no estimated completion date (the weekly saving rate is ≤ 0).
    case stalled
}

/// A savings goal's progress (see ``GoalProjection`` for the rule).
public struct GoalProgress: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var targetAmount: Decimal
    /// The child's balance at the as-of date, capped at the target.
    public var currentAmount: Decimal
    /// `currentAmount ÷ targetAmount × 100`, rounded down to 2 decimals (100.00 only when achieved).
    public var progressPercent: Decimal
    /// The weekly saving rate, rounded to 2 decimals (halves away from zero); the date uses the exact rate.
    public var weeklySavingRate: Decimal
    /// `YYYY-MM-DD`, or `null` when the rate is ≤ 0.
    public var estimatedCompletionDate: String?
    public var status: GoalStatus
}

extension AllowanceReport {
    /// The dashboards of `children` from `ledger` and `goals` as of `asOf`.
    ///
    /// - Parameters:
    ///   - children: the children to report on.
    ///   - ledger: the parsed ledger.
    ///   - goals: the savings goals.
    ///   - asOf: the as-of date; `nil` means the date of the ledger's last accepted row.
    ///   - goalsFile: the goals file's name, for messages.
    /// - Throws: ``SavingsInputError`` when there is no as-of date (no `asOf` and no accepted row), or a goal's
    ///   estimated completion date would be after 9999-12-31.
    public init(
        children: [AllowanceChild], ledger: AllowanceLedger, goals: [SavingsGoal] = [], goalsFile: String = "goals",
        asOf: CivilDate? = nil
    ) throws(SavingsInputError) {
        guard let date = asOf ?? ledger.lastDate else {
            throw SavingsInputError(file: ledger.file, line: nil, field: nil,
                message: "no accepted transactions, so no as-of date: give one (--as-of YYYY-MM-DD)")
        }
        var dashboards: [ChildDashboard] = []
        for child in children {
            let rows = ledger.postings(of: child.id, through: date)
            let balance = rows.last?.balanceAfter ?? 0
            let lastAllowance = rows.last(where: { $0.entry.isAllowancePayment })?.entry.date
            let next = Self.nextAllowanceDate(day: child.allowanceDay, asOf: date, lastPayment: lastAllowance)
            var childGoals: [GoalProgress] = []
            for goal in goals where goal.childID == child.id && goal.created <= date {
                let projection = GoalProjection(target: goal.targetAmount, postings: rows, asOf: date)
                guard let progress = projection.progress(id: goal.id, name: goal.name) else {
                    throw SavingsInputError(file: goalsFile, line: goal.line > 0 ? goal.line : nil, field: "target_amount",
                        message: "goal \(EchoedText.quoted(goal.id)): at the weekly saving rate \(projection.exactRate) the "
                            + "estimated completion date is after 9999-12-31")
                }
                childGoals.append(progress)
            }
            dashboards.append(ChildDashboard(
                childId: child.id, firstName: child.firstName, lastName: child.lastName, currentBalance: balance,
                weeklyAllowance: child.weeklyAllowance, lastAllowanceDate: lastAllowance?.description,
                nextAllowanceDate: next.description, daysUntilAllowance: next.daysSinceEpoch - date.daysSinceEpoch,
                monthly: Self.monthly(rows, asOf: date), spendingByCategory: Self.spending(rows),
                transactions: rows.map(TransactionRecord.init(posting:)), goals: childGoals))
        }
        self.init(asOf: date.description, children: dashboards)
    }

    /// The first date on or after `asOf` that falls on `day` and is after `lastPayment` (when there is one): the
    /// allowance is due today unless it was already paid today.
    public static func nextAllowanceDate(day: AllowanceDay, asOf: CivilDate, lastPayment: CivilDate?) -> CivilDate {
        var d = asOf.daysSinceEpoch + (day.weekday - asOf.weekday + 7) % 7
        if let lastPayment, d <= lastPayment.daysSinceEpoch { d += 7 }
        return CivilDate(daysSinceEpoch: d)
    }

    /// Every month from the first row's month to the as-of month: credits, debits, net.
    static func monthly(_ rows: ArraySlice<LedgerPosting>, asOf: CivilDate) -> [MonthlySummary] {
        guard let first = rows.first?.entry.date else { return [] }
        return periods(rows, from: first, to: asOf, period: .month).map {
            MonthlySummary(month: $0.period, earned: $0.earned, spent: $0.spent, net: $0.net)
        }
    }

    /// The name used for debits without a category.
    public static let uncategorized = "Uncategorized"

    /// Debits per category with their share of all debits.
    static func spending(_ rows: ArraySlice<LedgerPosting>) -> [CategorySpending] {
        var sums: [String: Decimal] = [:]
        var total: Decimal = 0
        for row in rows where row.entry.type == .debit {
            let name = row.entry.category.isEmpty ? uncategorized : row.entry.category
            sums[name, default: 0] += row.entry.amount
            total += row.entry.amount
        }
        guard total > 0 else { return [] }
        return sums.map { name, amount in
            CategorySpending(category: name, amount: amount, percentage: SavingsMoney.rounded(amount / total * 100))
        }.sorted { ($0.amount, $1.category) > ($1.amount, $0.category) }
    }
}

extension TransactionRecord {
    init(posting: LedgerPosting) {
        let e = posting.entry
        self.init(
            id: e.id, childId: e.childID, amount: e.amount, type: e.type == .credit ? .credit : .debit,
            description: e.description, category: e.category, balanceAfter: posting.balanceAfter, createdBy: e.createdBy,
            createdAt: iso8601(epochSeconds: e.timestamp))
    }
}

/// The savings-goal rule:
///
/// - `currentAmount` = the child's balance as of the date, capped at the target;
/// - `weeklySavingRate` = (credits − debits) over the last 8 complete weeks before the as-of date ÷ 8, using the
///   whole weeks available when the history is shorter (at least 1);
/// - `estimatedCompletionDate` = as-of + ceil((target − current) ÷ rate) × 7 days, `null` when the rate ≤ 0;
/// - `status` = `achieved` (current ≥ target), `onTrack` (a date exists) or `stalled` (no date).
///
/// Weeks are counted back from the as-of date: week 1 is the 7 days before it (as-of − 7 … as-of − 1), week 2
/// the 7 days before those, and so on; the as-of day itself is not in any week. The history is the days from
/// the child's first row to the day before the as-of date, so the whole weeks available are
/// `n = min(8, max(1, ⌊(as-of − first row date) ÷ 7⌋))`, and the rate is the net of the rows dated in
/// `[as-of − 7n, as-of − 1]` divided by `n`. A child without rows has rate 0. The ceiling is exact (checked
/// with integer arithmetic on cents), and the date uses the exact rate, not the rounded one written out.
public struct GoalProjection: Sendable, Equatable {
    public var target: Decimal
    public var current: Decimal
    /// Whole weeks used, 1 to 8.
    public var weeks: Int
    /// Net of the rows in those weeks.
    public var windowNet: Decimal
    public var asOf: CivilDate

    /// The projection of `target` from a child's `postings` on or before `asOf` (in time order).
    public init(target: Decimal, postings: ArraySlice<LedgerPosting>, asOf: CivilDate) {
        self.target = target
        self.asOf = asOf
        let balance = postings.last?.balanceAfter ?? 0
        current = min(balance, target)
        let today = asOf.daysSinceEpoch
        if let first = postings.first?.entry.date {
            weeks = min(8, max(1, (today - first.daysSinceEpoch) / 7))
        } else {
            weeks = 1
        }
        let from = today - 7 * weeks
        var net: Decimal = 0
        for p in postings {
            let day = p.entry.date.daysSinceEpoch
            if day >= from && day < today { net += p.entry.signedAmount }
        }
        windowNet = net
    }

    /// `windowNet ÷ weeks`, unrounded (for messages).
    public var exactRate: Decimal { windowNet / Decimal(weeks) }

    /// ceil((target − current) ÷ rate) for a rate > 0, else `nil`: the smallest `k ≥ 0` with
    /// `k × windowNet ≥ (target − current) × weeks`.
    public var weeksToGo: Int? {
        guard windowNet > 0 else { return nil }
        let need = (target - current) * Decimal(weeks)
        var quotient = need / windowNet
        var k = Decimal()
        NSDecimalRound(&k, &quotient, 0, .up)
        // Exact check of the ceiling: k·net ≥ need > (k − 1)·net (products of whole cents are exact).
        while k * windowNet < need { k += 1 }
        while k > 0, (k - 1) * windowNet >= need { k -= 1 }
        guard k <= 1_000_000 else { return Int.max }
        return NSDecimalNumber(decimal: k).intValue
    }

    /// The estimated completion date, or `nil` when the rate is ≤ 0; `.none`-wrapped `nil` when after 9999-12-31.
    var completionDate: CivilDate?? {
        guard let k = weeksToGo else { return .some(nil) }
        guard k < 1_000_000 else { return nil }
        let date = CivilDate(daysSinceEpoch: asOf.daysSinceEpoch + 7 * k)
        guard date.year <= 9999 else { return nil }
        return .some(date)
    }

    /// The goal's progress, or `nil` when the estimated date would be after 9999-12-31.
    public func progress(id: String, name: String) -> GoalProgress? {
        guard let date = completionDate else { return nil }
        let status: GoalStatus = current >= target ? .achieved : (date != nil ? .onTrack : .stalled)
        return GoalProgress(
            id: id, name: name, targetAmount: target, currentAmount: current,
            progressPercent: SavingsMoney.roundedDown(current / target * 100), weeklySavingRate: SavingsMoney.rounded(exactRate),
            estimatedCompletionDate: date?.description, status: status)
    }
}
