import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioSavings

let childrenHeader = "child_id,first_name,last_name,weekly_allowance,allowance_day\n"
let ledgerHeader = "id,child_id,date,type,amount,description,category,created_by\n"

func dec(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }
func day(_ iso: String) -> CivilDate { CivilDate(iso: iso)! }

/// Builds a report from CSV texts (the same path as the command line).
func report(
    children: String = childrenHeader + "a,Ann,Lee,2.00,saturday\n", ledger: String, goals: String? = nil,
    asOf: String? = nil, lenient: Bool = false
) throws -> (AllowanceReport, AllowanceLedger) {
    let kids = try AllowanceChild.children(text: children, file: "children.csv")
    let book = try AllowanceLedger(text: ledger, file: "ledger.csv", children: kids, lenient: lenient)
    let goalList = try goals.map { try SavingsGoal.goals(text: $0, file: "goals.csv", children: kids) } ?? []
    let result = try AllowanceReport(children: kids, ledger: book, goals: goalList, goalsFile: "goals.csv", asOf: asOf.map(day))
    return (result, book)
}

/// The error thrown by `body`, which must throw a `SavingsInputError`.
func savingsError(_ body: () throws -> Void) -> SavingsInputError? {
    do {
        try body()
        return nil
    } catch let error as SavingsInputError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

@Suite("Allowance money: Decimal with at most 2 places, exact sums")
struct AllowanceMoneyTests {
    @Test("amounts: at most 2 decimal places by value, the one number grammar, a magnitude limit")
    func parsing() throws {
        for (text, value) in [("12.5", "12.5"), ("12.50", "12.5"), ("12.500", "12.5"), ("0.05", "0.05"), ("1e2", "100"),
                              ("1.25E1", "12.5"), ("-3.10", "-3.1"), ("+7", "7"), ("999999999999.99", "999999999999.99"), (".5", "0.5")] {
            #expect(try SavingsMoney.parse(text).get() == dec(value), "\(text)")
        }
        for (text, fragment) in [("1.005", "more than 2 decimal places"), ("0.001", "more than 2 decimal places"),
                                 ("1e-3", "more than 2 decimal places"), ("1000000000000", "too large"), ("1e12", "too large"),
                                 ("nan", "not a finite amount"), ("1,50", "not an amount"), ("", "not an amount"),
                                 ("0x10", "not an amount"), ("12.5.0", "not an amount")] {
            switch SavingsMoney.parse(text) {
            case .success(let v): Issue.record("\(text) parsed as \(v)")
            case .failure(let problem): #expect(problem.message.contains(fragment), "\(text): \(problem.message)")
            }
        }
    }

    @Test("two-decimal text: sign, padding, large values")
    func text() {
        #expect(SavingsMoney.text(0) == "0.00")
        #expect(SavingsMoney.text(dec("-0.05")) == "-0.05")
        #expect(SavingsMoney.text(dec("12.5")) == "12.50")
        #expect(SavingsMoney.text(dec("7")) == "7.00")
        #expect(SavingsMoney.text(dec("1250")) == "1250.00")
        #expect(SavingsMoney.text(dec("-999999999999.99") * 1000) == "-999999999999990.00")
        #expect(SavingsMoney.text(dec("123456789012345678901234.56")) == "123456789012345678901234.56")
    }

    @Test("0.10 added a million times is exactly 100000.00")
    func millionDimes() throws {
        let dime = try SavingsMoney.parse("0.10").get()
        var sum: Decimal = 0
        for _ in 0..<1_000_000 { sum += dime }
        #expect(sum == 100_000)
        #expect(SavingsMoney.text(sum) == "100000.00")
    }

    @Test("a ledger of 100,000 credits of 0.10 balances to exactly 10000.00 (Double would drift)")
    func ledgerOfDimes() throws {
        let kid = AllowanceChild(id: "a", firstName: "A", lastName: "", weeklyAllowance: 0, allowanceDay: .monday)
        let start = day("2024-01-01").epochSeconds
        let entries = (0..<100_000).map { k in
            LedgerEntry(id: "t\(k)", childID: "a", timestamp: start + Int64(k) * 60, type: .credit, amount: dec("0.10"), line: k + 2)
        }
        let book = try AllowanceLedger(entries: entries, children: [kid], file: "mem")
        #expect(book.postings["a"]!.last!.balanceAfter == 10_000)
        var double = 0.0
        for _ in 0..<100_000 { double += 0.10 }
        #expect(double != 10_000)  // the drift the Decimal sum avoids
        let r = try AllowanceReport(children: [kid], ledger: book, asOf: day("2024-12-31"))
        #expect(SavingsMoney.text(r.children[0].currentBalance) == "10000.00")
        #expect(r.children[0].monthly.map(\.earned).reduce(0, +) == 10_000)
    }
}

@Suite("Allowance report: hand-computed cases")
struct AllowanceReportTests {
    /// The sample family of Data/allowance, computed by hand in Data/allowance/README.md.
    @Test("sample files: balances, months, categories, allowance dates, goals")
    func sample() throws {
        func data(_ name: String) throws -> String {
            try String(contentsOf: repositoryRoot.appendingPathComponent("Data/allowance/\(name)"), encoding: .utf8)
        }
        let (r, book) = try report(children: data("children.csv"), ledger: data("ledger.csv"), goals: data("goals.csv"))
        #expect(book.skipped.isEmpty)
        #expect(r.asOf == "2025-03-31")
        let emma = r.children[0], leo = r.children[1]
        #expect(emma.currentBalance == 38 && leo.currentBalance == dec("10.75"))
        #expect(emma.lastAllowanceDate == "2025-03-29" && emma.nextAllowanceDate == "2025-04-05" && emma.daysUntilAllowance == 5)
        #expect(leo.lastAllowanceDate == "2025-03-31" && leo.nextAllowanceDate == "2025-04-07" && leo.daysUntilAllowance == 7)
        #expect(emma.monthly == [
            MonthlySummary(month: "2025-02", earned: 40, spent: dec("9.5"), net: dec("30.5")),
            MonthlySummary(month: "2025-03", earned: 25, spent: dec("17.5"), net: dec("7.5")),
        ])
        #expect(leo.monthly == [MonthlySummary(month: "2025-03", earned: dec("17.5"), spent: dec("6.75"), net: dec("10.75"))])
        #expect(emma.spendingByCategory == [
            CategorySpending(category: "Toys", amount: dec("14.5"), percentage: dec("53.7")),
            CategorySpending(category: "Books", amount: 8, percentage: dec("29.63")),
            CategorySpending(category: "Snacks", amount: dec("4.5"), percentage: dec("16.67")),
        ])
        #expect(emma.transactions.count == 15 && leo.transactions.count == 7)
        #expect(emma.transactions.map(\.balanceAfter).last == 38)
        let lego = emma.transactions.first { $0.id == "t20" }!
        #expect(lego.createdAt == "2025-03-26T16:45:00Z" && lego.type == .debit && lego.balanceAfter == dec("33"))
        #expect(emma.transactions.first { $0.id == "t10" }!.description == "Stickers, glitter")
        // Bike: 8 weeks (2025-02-03 … 2025-03-30) net 33.00 → 4.125/week; 82.00 to go → ceil(656/33) = 20 weeks.
        #expect(emma.goals[0] == GoalProgress(
            id: "g1", name: "Bike", targetAmount: 120, currentAmount: 38, progressPercent: dec("31.66"),
            weeklySavingRate: dec("4.13"), estimatedCompletionDate: "2025-08-18", status: .onTrack))
        #expect(emma.goals[1] == GoalProgress(
            id: "g2", name: "Headphones", targetAmount: 30, currentAmount: 30, progressPercent: 100,
            weeklySavingRate: dec("4.13"), estimatedCompletionDate: "2025-03-31", status: .achieved))
        // Football: 28 days of history → 4 weeks, net 7.25 → 1.8125/week; 14.25 to go → ceil(57/7.25) = 8 weeks.
        #expect(leo.goals == [GoalProgress(
            id: "g3", name: "Football", targetAmount: 25, currentAmount: dec("10.75"), progressPercent: 43,
            weeklySavingRate: dec("1.81"), estimatedCompletionDate: "2025-05-26", status: .onTrack)])
    }

    @Test("empty months are listed with zeros; the as-of month closes the list; rows after as-of are left out")
    func months() throws {
        let ledger = ledgerHeader + """
            1,a,2025-01-31T23:59:59Z,credit,10,,Allowance,
            2,a,2025-02-01,debit,0.01,,,
            3,a,2025-04-02,credit,1,,Gift,
            4,a,2025-06-01,debit,5,,Toys,

            """
        let (r, _) = try report(ledger: ledger, asOf: "2025-05-15")
        let c = r.children[0]
        #expect(c.monthly.map(\.month) == ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05"])
        #expect(c.monthly.map(\.net) == [10, dec("-0.01"), 0, 1, 0])
        #expect(c.currentBalance == dec("10.99"))
        #expect(c.transactions.map(\.id) == ["1", "2", "3"])
        #expect(c.spendingByCategory == [CategorySpending(category: "Uncategorized", amount: dec("0.01"), percentage: 100)])
    }

    @Test("next allowance: today unless already paid today")
    func nextAllowance() {
        let sat = day("2025-03-29"), mon = day("2025-03-31")
        #expect(AllowanceReport.nextAllowanceDate(day: .saturday, asOf: sat, lastPayment: nil) == sat)
        #expect(AllowanceReport.nextAllowanceDate(day: .saturday, asOf: sat, lastPayment: day("2025-03-22")) == sat)
        #expect(AllowanceReport.nextAllowanceDate(day: .saturday, asOf: sat, lastPayment: sat) == day("2025-04-05"))
        #expect(AllowanceReport.nextAllowanceDate(day: .sunday, asOf: mon, lastPayment: nil) == day("2025-04-06"))
        #expect(AllowanceReport.nextAllowanceDate(day: .monday, asOf: mon, lastPayment: day("2025-03-31")) == day("2025-04-07"))
        #expect(AllowanceReport.nextAllowanceDate(day: .tuesday, asOf: mon, lastPayment: nil) == day("2025-04-01"))
    }

    @Test("goal rule: short histories, exact ceiling, stalled, achieved without a date, created after as-of")
    func goals() throws {
        let goals = "id,child_id,name,target_amount,created\ng,a,Kite,20.00,2025-01-01\nlate,a,Later,5,2025-06-01\n"
        func goal(_ ledger: String, asOf: String = "2025-03-31") throws -> GoalProgress {
            let (r, _) = try report(ledger: ledgerHeader + ledger, goals: goals, asOf: asOf)
            #expect(r.children[0].goals.count == 1)  // "late" is created after the as-of date
            return r.children[0].goals[0]
        }
        // First row on the as-of day: 0 whole weeks → 1 week (the 7 days before), which holds nothing → stalled.
        var g = try goal("1,a,2025-03-31,credit,5,,,\n")
        #expect(g.currentAmount == 5 && g.weeklySavingRate == 0 && g.estimatedCompletionDate == nil && g.status == .stalled)
        // 10 days of history: 1 whole week, [03-24, 03-30]: the row on 03-21 is outside it, the one on 03-24 inside.
        g = try goal("1,a,2025-03-21,credit,4,,,\n2,a,2025-03-24,credit,3,,,\n")
        #expect(g.weeklySavingRate == 3 && g.currentAmount == 7)
        #expect(g.estimatedCompletionDate == "2025-05-05")  // ceil(13 / 3) = 5 weeks
        // 20 days: 2 weeks [03-17, 03-30], net 4 + 3 = 7 → 3.50/week; 7.00 to go → ceil(14/7) = 2 weeks exactly.
        g = try goal("1,a,2025-03-11,credit,6,,,\n2,a,2025-03-17,credit,4,,,\n3,a,2025-03-30,credit,3,,,\n")
        #expect(g.weeklySavingRate == dec("3.5") && g.estimatedCompletionDate == "2025-04-14" && g.status == .onTrack)
        // Exact division: 8 weeks net 8.00 → 1.00/week; 4.00 to go → exactly 4 weeks, not 5.
        g = try goal("0,a,2025-01-01,credit,8,,,\n1,a,2025-02-03,credit,8,,,\n")
        #expect(g.currentAmount == 16 && g.weeklySavingRate == 1)
        #expect(g.estimatedCompletionDate == CivilDate(daysSinceEpoch: day("2025-03-31").daysSinceEpoch + 7 * 4).description)
        g = try goal("0,a,2025-01-01,credit,0.5,,,\n1,a,2025-02-03,credit,8,,,\n")  // 11.50 to go, 8/8 per week → 12 weeks
        #expect(g.estimatedCompletionDate == "2025-06-23")
        // Rate over 3 weeks = 1/3 per week (not a terminating decimal): 0.33 written, date from the exact rate.
        g = try goal("1,a,2025-03-07,credit,19,,,\n2,a,2025-03-10,credit,1,,,\n3,a,2025-03-12,debit,0.01,,,\n4,a,2025-03-13,credit,0.01,,,\n")
        #expect(g.weeklySavingRate == dec("0.33"))
        // 24 days → 3 weeks [03-10, 03-30]: net 1.00; 0.00 to go? balance 20.00 → achieved, date = as-of.
        #expect(g.status == .achieved && g.estimatedCompletionDate == "2025-03-31" && g.progressPercent == 100)
        g = try goal("1,a,2025-03-07,credit,18,,,\n2,a,2025-03-10,credit,1,,,\n")  // 1 to go at 1/3 a week → 3 weeks
        #expect(g.estimatedCompletionDate == "2025-04-21" && g.progressPercent == 95)
        // Saving went backwards over the window: stalled even with money in the account.
        g = try goal("1,a,2025-01-01,credit,15,,,\n2,a,2025-03-20,debit,2,,,\n")
        #expect(g.weeklySavingRate == dec("-0.25") && g.estimatedCompletionDate == nil && g.status == .stalled)
        // Achieved with no saving in the window: achieved, no date (the rule: null when the rate ≤ 0).
        g = try goal("1,a,2025-01-01,credit,25,,,\n")
        #expect(g.status == .achieved && g.estimatedCompletionDate == nil && g.currentAmount == 20)
        // progressPercent rounds down: 19.99 of 20 is 99.95 %, 6.66 of 20 is 33.30 %, 1 of 3 (1/3) 33.33.
        g = try goal("1,a,2025-01-01,credit,19.99,,,\n")
        #expect(g.progressPercent == dec("99.95") && g.status == .stalled)
    }

    @Test("a date beyond 9999-12-31 is an error naming the goal, not a silent null")
    func completionOverflow() throws {
        let error = savingsError {
            _ = try report(ledger: ledgerHeader + "1,a,2025-03-25,credit,0.01,,,\n",
                           goals: "id,child_id,name,target_amount,created\ng,a,Yacht,999999999999.99,2025-01-01\n", asOf: "2025-03-31")
        }
        #expect(error?.file == "goals.csv" && error?.line == 2 && error?.field == "target_amount")
        #expect(error?.message.contains("after 9999-12-31") == true)
    }

    @Test("no accepted rows and no --as-of is an error; with an as-of date the report is all zeros")
    func empty() throws {
        #expect(savingsError { _ = try report(ledger: ledgerHeader) }?.message.contains("--as-of") == true)
        let (r, _) = try report(ledger: ledgerHeader, goals: "id,child_id,name,target_amount,created\ng,a,Kite,5,2025-01-01\n", asOf: "2025-03-31")
        let c = r.children[0]
        #expect(c.currentBalance == 0 && c.monthly.isEmpty && c.spendingByCategory.isEmpty && c.lastAllowanceDate == nil)
        #expect(c.goals[0].status == .stalled && c.goals[0].estimatedCompletionDate == nil)
    }
}

@Suite("Allowance input errors name file, line and field")
struct AllowanceInputErrorTests {
    @Test("ledger rows", arguments: [
        ("1,a,2025-01-01,credit,1.005,,,", "amount", "more than 2 decimal places"),
        ("1,a,2025-01-01,credit,-1,,,", "amount", "not greater than 0"),
        ("1,a,2025-01-01,credit,0,,,", "amount", "not greater than 0"),
        ("1,a,2025-01-01,gift,1,,,", "type", "expected credit or debit"),
        ("1,a,2025-13-01,credit,1,,,", "date", "not a date"),
        ("1,a,2025-01-01T10:00:00,credit,1,,,", "date", "not a date"),
        ("1,a,2025-01-01T24:00:00Z,credit,1,,,", "date", "not a date"),
        (",a,2025-01-01,credit,1,,,", "id", "empty transaction id"),
        ("1,zed,2025-01-01,credit,1,,,", "child_id", "not in the children file"),
        ("1,a,2025-01-01,credit,1,\"x\"y,,", "description", "text after a closing quote"),
    ])
    func ledgerRow(row: String, field: String, fragment: String) {
        let error = savingsError { _ = try report(ledger: ledgerHeader + "0,a,2024-12-01,credit,5,,,\n" + row + "\n") }
        #expect(error?.file == "ledger.csv" && error?.line == 3 && error?.field == field, "\(String(describing: error))")
        #expect(error?.message.contains(fragment) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("ledger.csv line 3, field '\(field)': ") == true)
    }

    @Test("insufficient funds: the debit's line, in time order, balances never negative")
    func insufficientFunds() throws {
        // Line 3 is the overdraft in time order (03-01 comes before the 03-05 credit on line 2).
        let ledger = ledgerHeader + "1,a,2025-03-05,credit,5,,,\n2,a,2025-03-01,debit,1,,,\n3,a,2025-03-06,debit,5,,,\n"
        let error = savingsError { _ = try report(ledger: ledger) }
        #expect(error?.line == 3 && error?.field == "amount")
        #expect(error?.message.contains("insufficient funds") == true && error?.message.contains("from 0.00 to -1.00") == true)
        let (r, book) = try report(ledger: ledger, lenient: true)
        #expect(book.skipped.map(\.line) == [3])
        #expect(r.children[0].currentBalance == 0 && r.children[0].transactions.map(\.id) == ["1", "3"])
        // A debit of exactly the balance is accepted.
        #expect(try report(ledger: ledgerHeader + "1,a,2025-03-05,credit,5,,,\n2,a,2025-03-05,debit,5,,,\n").0.children[0].currentBalance == 0)
    }

    @Test("lenient: malformed, unknown-child, repeated and syntax-broken rows are skipped with their lines; later lines keep theirs")
    func lenient() throws {
        let ledger = ledgerHeader + """
            1,a,2025-03-01,credit,10,,,
            2,a,2025-03-02,credit,1.001,,,
            3,a,2025-03-03,debit,"2"x,,,
            4,zed,2025-03-04,credit,1,,,

            1,a,2025-03-05,credit,1,,,
            6,a,2025-03-06,debit,"3.00",,,
            7,a,2025-03-07,debit,2,"unterminated,,
            8,a,2025-03-08,credit,0.50,,,

            """
        let (r, book) = try report(ledger: ledger, lenient: true)
        #expect(book.skipped.map(\.line) == [3, 4, 5, 7, 9])
        #expect(book.skipped.map(\.field) == ["amount", "amount", "child_id", "id", "description"])
        #expect(r.children[0].transactions.map(\.id) == ["1", "6", "8"])
        #expect(r.children[0].currentBalance == dec("7.5"))
        // Strict: the first bad line.
        #expect(savingsError { _ = try report(ledger: ledger) }?.line == 3)
    }

    @Test("children, goals and headers")
    func otherFiles() {
        func childError(_ text: String) -> SavingsInputError? {
            savingsError { _ = try AllowanceChild.children(text: text, file: "children.csv") }
        }
        var e = childError(childrenHeader + "a,Ann,Lee,2.005,monday\n")
        #expect(e?.line == 2 && e?.field == "weekly_allowance" && e?.message.contains("2 decimal places") == true)
        e = childError(childrenHeader + "a,Ann,Lee,2,funday\n")
        #expect(e?.line == 2 && e?.field == "allowance_day")
        e = childError(childrenHeader + "a,Ann,Lee,2,monday\na,Al,Lee,2,monday\n")
        #expect(e?.line == 3 && e?.field == "child_id" && e?.message.contains("line 2") == true)
        e = childError(childrenHeader + "a,Ann,Lee,-1,monday\n")
        #expect(e?.field == "weekly_allowance" && e?.message.contains("negative") == true)
        e = childError(childrenHeader + "a,Ann,Lee,2\n")
        #expect(e?.line == 2 && e?.message.contains("cells") == true)
        e = childError("child_id,first_name,weekly_allowance,allowance_day\n")
        #expect(e?.line == 1 && e?.field == "last_name")
        e = childError("")
        #expect(e?.message.contains("empty file") == true)
        let kids = [AllowanceChild(id: "a", firstName: "A", lastName: "", weeklyAllowance: 1, allowanceDay: .monday)]
        func goalError(_ row: String) -> SavingsInputError? {
            savingsError { _ = try SavingsGoal.goals(text: "id,child_id,name,target_amount,created\n" + row + "\n", file: "goals.csv", children: kids) }
        }
        e = goalError("g,a,Kite,10.123,2025-01-01")
        #expect(e?.line == 2 && e?.field == "target_amount")
        e = goalError("g,b,Kite,10,2025-01-01")
        #expect(e?.field == "child_id")
        e = goalError("g,a,Kite,10,2025-02-30")
        #expect(e?.field == "created")
        e = goalError("g,a,Kite,0,2025-01-01")
        #expect(e?.field == "target_amount")
        e = savingsError { _ = try report(ledger: "id,child_id,date,type,amount,colour\n") }
        #expect(e?.line == 1 && e?.field == "colour" && e?.message.contains("unknown column") == true)
    }
}

@Suite("Allowance JSON: the contract's names, order, nulls and two-decimal numbers")
struct AllowanceJSONTests {
    @Test("key order, two decimals, null, round trip through JSONDecoder")
    func shape() throws {
        let goals = "id,child_id,name,target_amount,created\ng,a,\"Kite \"\"Blue\"\"\",20,2025-01-01\n"
        let (r, _) = try report(ledger: ledgerHeader + "1,a,2025-03-31,credit,5,Gift x,Gift,\n", goals: goals, asOf: "2025-03-31")
        let json = r.json()
        func keys(_ object: String) -> [String] {
            object.matches(of: #/\n\s*"([A-Za-z]+)": /#).map { String($0.1) }
        }
        let all = keys(json)
        #expect(Array(all.prefix(10)) == ["asOf", "children", "childId", "firstName", "lastName", "currentBalance", "weeklyAllowance",
                                          "lastAllowanceDate", "nextAllowanceDate", "daysUntilAllowance"])
        #expect(json.contains("\"lastAllowanceDate\": null"))
        #expect(json.contains("\"estimatedCompletionDate\": null"))
        #expect(json.contains("\"currentBalance\": 5.00,"))
        #expect(json.contains("\"percentage\"") == false)  // no debits, no categories
        #expect(json.contains("\"name\": \"Kite \\\"Blue\\\"\""))
        #expect(json.contains("\"type\": \"Credit\""))
        #expect(json.contains("\"createdAt\": \"2025-03-31T00:00:00Z\""))
        let goalKeys = ["id", "name", "targetAmount", "currentAmount", "progressPercent", "weeklySavingRate", "estimatedCompletionDate", "status"]
        let goalStart = try #require(all.lastIndex(of: "goals"))
        #expect(Array(all[(goalStart + 1)...]) == goalKeys)
        let transactionKeys = ["id", "childId", "amount", "type", "description", "category", "balanceAfter", "createdBy", "createdAt"]
        let tStart = try #require(all.firstIndex(of: "transactions"))
        #expect(Array(all[(tStart + 1)...(tStart + transactionKeys.count)]) == transactionKeys)
        // Every number with a fraction has exactly two decimals.
        for match in json.matches(of: #/: (-?[0-9]+\.[0-9]+)/#) { #expect(match.1.split(separator: ".")[1].count == 2, "\(match.1)") }
        let decoded = try JSONDecoder().decode(AllowanceReport.self, from: Data(json.utf8))
        #expect(decoded == r)
    }
}
