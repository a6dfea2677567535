import Foundation
import SentioCore

/// The length of the periods of ``SpendingAnalytics/earnedVsSpent``.
public enum AnalyticsPeriod: String, Codable, Sendable, CaseIterable {
    /// ISO weeks, Monday to Sunday (UTC), labelled by their Monday `YYYY-MM-DD`.
    case week
    /// Calendar months (UTC), labelled `YYYY-MM`.
    case month

    /// The first day of the period that contains `date`.
    public func start(of date: CivilDate) -> CivilDate {
        switch self {
        case .week: CivilDate(daysSinceEpoch: date.daysSinceEpoch - date.weekday)
        case .month: CivilDate(year: date.year, month: date.month, day: 1)!
        }
    }

    /// The first day of the period after the one that starts on `start`.
    func next(_ start: CivilDate) -> CivilDate {
        switch self {
        case .week: CivilDate(daysSinceEpoch: start.daysSinceEpoch + 7)
        case .month: start.addingMonths(1)
        }
    }

    /// The label of the period that starts on `start`.
    func label(_ start: CivilDate) -> String {
        switch self {
        case .week: start.description
        case .month: String(start.description.prefix(7))
        }
    }
}

/// Credits, debits and their difference in one period.
public struct PeriodSummary: Codable, Sendable, Equatable {
    /// `YYYY-MM` for a month, the Monday `YYYY-MM-DD` for a week.
    public var period: String
    /// Sum of credits.
    public var earned: Decimal
    /// Sum of debits.
    public var spent: Decimal
    /// `earned − spent`.
    public var net: Decimal
}

/// A child's balance at the end of a day.
public struct BalancePoint: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var balance: Decimal
}

/// The three charts of the allowance app over a date range: spending by category, earned against spent per period,
/// and the balance over time.
///
/// Rules: the rows counted are the child's accepted rows dated from `from` to `to` (UTC dates, both included);
/// ``spendingByCategory`` follows ``ChildDashboard/spendingByCategory``'s rule over them; ``earnedVsSpent`` has
/// every period from the one containing `from` to the one containing `to` (periods without rows are zeros);
/// ``balanceOverTime`` has the balance at the end of `from`, then at the end of each later day with rows, up to `to`.
public struct SpendingAnalytics: Codable, Sendable, Equatable {
    public var childId: String
    /// `YYYY-MM-DD`.
    public var from: String
    /// `YYYY-MM-DD`.
    public var to: String
    public var period: AnalyticsPeriod
    /// Sum of the credits in the range.
    public var totalEarned: Decimal
    /// Sum of the debits in the range.
    public var totalSpent: Decimal
    public var spendingByCategory: [CategorySpending]
    public var earnedVsSpent: [PeriodSummary]
    public var balanceOverTime: [BalancePoint]
}

extension AllowanceLedger {
    /// The analytics of a child from `from` to `to` (see ``SpendingAnalytics`` for the rules).
    /// - Precondition: `from <= to`.
    public func analytics(of childID: String, from: CivilDate, to: CivilDate, period: AnalyticsPeriod) -> SpendingAnalytics {
        precondition(from <= to, "analytics range \(from)...\(to) is empty")
        let upTo = postings(of: childID, through: to)
        let start = upTo.firstIndex { $0.entry.date >= from } ?? upTo.endIndex
        let rows = upTo[start...]
        var earned: Decimal = 0, spent: Decimal = 0
        for row in rows {
            if row.entry.type == .credit { earned += row.entry.amount } else { spent += row.entry.amount }
        }
        var points = [BalancePoint(date: from.description, balance: start > upTo.startIndex ? upTo[start - 1].balanceAfter : 0)]
        for row in rows {
            let day = row.entry.date.description
            if points.last?.date == day {
                points[points.count - 1].balance = row.balanceAfter
            } else {
                points.append(BalancePoint(date: day, balance: row.balanceAfter))
            }
        }
        return SpendingAnalytics(
            childId: childID, from: from.description, to: to.description, period: period, totalEarned: earned, totalSpent: spent,
            spendingByCategory: AllowanceReport.spending(rows),
            earnedVsSpent: AllowanceReport.periods(rows, from: from, to: to, period: period), balanceOverTime: points)
    }
}

extension AllowanceReport {
    /// Every period from the one containing `from` to the one containing `to`: the credits, debits and net of
    /// `rows` (which must all be dated in that span).
    static func periods(_ rows: ArraySlice<LedgerPosting>, from: CivilDate, to: CivilDate, period: AnalyticsPeriod) -> [PeriodSummary] {
        var starts: [CivilDate] = []
        var s = period.start(of: from)
        while s <= to {
            starts.append(s)
            s = period.next(s)
        }
        var summaries = starts.map { PeriodSummary(period: period.label($0), earned: 0, spent: 0, net: 0) }
        var k = 0
        for row in rows {
            let d = row.entry.date
            while k + 1 < starts.count, starts[k + 1] <= d { k += 1 }
            switch row.entry.type {
            case .credit: summaries[k].earned += row.entry.amount
            case .debit: summaries[k].spent += row.entry.amount
            }
        }
        for i in summaries.indices { summaries[i].net = summaries[i].earned - summaries[i].spent }
        return summaries
    }
}

/// When weekly allowances are due.
///
/// Rules: a week is named by its allowance day (the date the allowance is due). A payment made on a date pays the
/// week of the first allowance day on or after that date (``week(paidOn:day:)``), so paying early pays the coming
/// allowance day, and every payment of the same week names the same date. A child added on a date is due the
/// allowance days strictly after it, up to today (``dueDays(day:after:through:)``).
public enum AllowanceSchedule {
    /// The week (its allowance day) a payment made on `date` pays.
    public static func week(paidOn date: CivilDate, day: AllowanceDay) -> CivilDate {
        AllowanceReport.nextAllowanceDate(day: day, asOf: date, lastPayment: nil)
    }

    /// The next allowance day that will be paid: the first allowance day on or after `today` and after `start`
    /// (the day the child was added) whose week is not in `paid` (days since 1970-01-01 of the weeks already paid,
    /// early payments included).
    public static func nextDue(day: AllowanceDay, after start: CivilDate, today: CivilDate, paid: Set<Int>) -> CivilDate {
        var d = week(paidOn: CivilDate(daysSinceEpoch: max(today.daysSinceEpoch, start.daysSinceEpoch + 1)), day: day).daysSinceEpoch
        while paid.contains(d) { d += 7 }
        return CivilDate(daysSinceEpoch: d)
    }

    /// The allowance days after `start` (excluded) up to `today` (included), oldest first.
    public static func dueDays(day: AllowanceDay, after start: CivilDate, through today: CivilDate) -> [CivilDate] {
        var d = week(paidOn: CivilDate(daysSinceEpoch: start.daysSinceEpoch + 1), day: day).daysSinceEpoch
        var out: [CivilDate] = []
        while d <= today.daysSinceEpoch {
            out.append(CivilDate(daysSinceEpoch: d))
            d += 7
        }
        return out
    }
}
