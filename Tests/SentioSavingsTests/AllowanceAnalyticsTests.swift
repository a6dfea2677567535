import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioSavings

@Suite("Allowance analytics, schedule and CSV writers")
struct AllowanceAnalyticsTests {
    static let child = AllowanceChild(id: "k1", firstName: "Kim", lastName: "O'Neil, Jr.", weeklyAllowance: 2.5, allowanceDay: .wednesday)

    static func entry(_ id: String, _ date: String, _ type: LedgerEntryType, _ cents: Int64, _ category: String, description: String = "")
        -> LedgerEntry
    {
        LedgerEntry(
            id: id, childID: "k1", timestamp: LedgerTimestamp.parse(date)!, type: type, amount: SavingsMoney.decimal(cents: cents),
            description: description, category: category, createdBy: "p1")
    }

    static let entries = [
        entry("1", "2025-03-03T10:00:00Z", .credit, 1000, "Gift", description: "from \"Gran\", with love"),
        entry("2", "2025-03-05T09:00:00Z", .debit, 250, "Toys"),
        entry("3", "2025-03-05T18:30:00Z", .credit, 250, "Allowance"),
        entry("4", "2025-03-12T08:00:00Z", .debit, 125, "Food"),
        entry("5", "2025-04-01T12:00:00Z", .debit, 375, "Toys"),
    ]

    @Test("weekly and monthly periods cover the range (zeros included); spending and totals over the range; balance at each day's end")
    func analytics() throws {
        let ledger = try AllowanceLedger(entries: Self.entries, children: [Self.child], file: "test")
        let weeks = ledger.analytics(of: "k1", from: CivilDate(iso: "2025-03-04")!, to: CivilDate(iso: "2025-03-20")!, period: .week)
        // 2025-03-04 is a Tuesday: the weeks of Monday 03-03, 03-10 and 03-17.
        #expect(weeks.earnedVsSpent.map(\.period) == ["2025-03-03", "2025-03-10", "2025-03-17"])
        #expect(weeks.earnedVsSpent.map(\.earned) == [2.5, 0, 0])
        #expect(weeks.earnedVsSpent.map(\.spent) == [2.5, 1.25, 0])
        #expect(weeks.earnedVsSpent.map(\.net) == [0, -1.25, 0])
        #expect(weeks.totalEarned == 2.5 && weeks.totalSpent == 3.75)
        // The row of 03-03 is before the range: it is in the opening balance, not in the sums.
        #expect(weeks.balanceOverTime.map(\.date) == ["2025-03-04", "2025-03-05", "2025-03-12"])
        #expect(weeks.balanceOverTime.map(\.balance) == [10, 10, 8.75])
        #expect(weeks.spendingByCategory.map(\.category) == ["Toys", "Food"])
        #expect(weeks.spendingByCategory.map(\.percentage) == [Decimal(string: "66.67")!, Decimal(string: "33.33")!])

        let months = ledger.analytics(of: "k1", from: CivilDate(iso: "2025-02-15")!, to: CivilDate(iso: "2025-04-01")!, period: .month)
        #expect(months.earnedVsSpent.map(\.period) == ["2025-02", "2025-03", "2025-04"])
        #expect(months.earnedVsSpent.map(\.earned) == [0, 12.5, 0] && months.earnedVsSpent.map(\.spent) == [0, 3.75, 3.75])
        #expect(months.balanceOverTime.first == BalancePoint(date: "2025-02-15", balance: 0))
        #expect(months.balanceOverTime.last == BalancePoint(date: "2025-04-01", balance: 5))
        // The monthly table of the report is the same periods' rule.
        let report = try AllowanceReport(children: [Self.child], ledger: ledger, asOf: CivilDate(iso: "2025-04-01")!)
        #expect(report.children[0].monthly.map(\.month) == ["2025-03", "2025-04"])
        #expect(report.children[0].monthly.map(\.net) == months.earnedVsSpent.dropFirst().map(\.net))
    }

    @Test("the allowance schedule: a payment pays the coming allowance day; due days are those after the start, up to today")
    func schedule() {
        let wednesday = CivilDate(iso: "2025-03-05")!
        #expect(AllowanceSchedule.week(paidOn: wednesday, day: .wednesday) == wednesday)
        #expect(AllowanceSchedule.week(paidOn: CivilDate(iso: "2025-03-06")!, day: .wednesday) == CivilDate(iso: "2025-03-12")!)
        #expect(AllowanceSchedule.dueDays(day: .wednesday, after: wednesday, through: wednesday).isEmpty)
        #expect(AllowanceSchedule.dueDays(day: .wednesday, after: CivilDate(iso: "2025-03-04")!, through: CivilDate(iso: "2025-03-26")!)
            .map(\.description) == ["2025-03-05", "2025-03-12", "2025-03-19", "2025-03-26"])
        // Every due day is its own week (a payment on it pays it).
        var rng = SplitMix64(seed: 77)
        for _ in 0..<200 {
            let start = CivilDate(daysSinceEpoch: Int.random(in: 19_000...20_000, using: &rng))
            let today = CivilDate(daysSinceEpoch: start.daysSinceEpoch + Int.random(in: 0...60, using: &rng))
            let day = AllowanceDay.allCases.randomElement(using: &rng)!
            let due = AllowanceSchedule.dueDays(day: day, after: start, through: today)
            let expected = (start.daysSinceEpoch + 1...max(start.daysSinceEpoch + 1, today.daysSinceEpoch))
                .filter { $0 <= today.daysSinceEpoch && CivilDate(daysSinceEpoch: $0).weekday == day.weekday }
            #expect(due.map(\.daysSinceEpoch) == expected)
            #expect(due.allSatisfy { AllowanceSchedule.week(paidOn: $0, day: day) == $0 })
        }
    }

    @Test("the CSV writers write what the readers read back (quotes, commas, times)")
    func csvRoundTrip() throws {
        let children = try AllowanceChild.children(text: AllowanceChild.csv([Self.child]), file: "children.csv")
        #expect(children.map { [$0.id, $0.firstName, $0.lastName] } == [["k1", "Kim", "O'Neil, Jr."]])
        #expect(children.first?.weeklyAllowance == 2.5 && children.first?.allowanceDay == .wednesday)
        let read = try LedgerEntry.entries(text: LedgerEntry.csv(Self.entries), file: "ledger.csv").entries
        func key(_ e: LedgerEntry) -> [String] {
            [e.id, e.childID, String(e.timestamp), e.type.rawValue, SavingsMoney.text(e.amount), e.description, e.category, e.createdBy]
        }
        #expect(read.map(key) == Self.entries.map(key))
        let goal = SavingsGoal(id: "g1", childID: "k1", name: "Bike, red", targetAmount: 120, created: CivilDate(iso: "2025-03-01")!)
        let goals = try SavingsGoal.goals(text: SavingsGoal.csv([goal]), file: "goals.csv", children: children)
        #expect(goals.map(\.name) == ["Bike, red"] && goals.first?.targetAmount == 120 && goals.first?.created == goal.created)
        #expect(SavingsMoney.cents(SavingsMoney.decimal(cents: 123_456_789)) == 123_456_789)
    }
}
