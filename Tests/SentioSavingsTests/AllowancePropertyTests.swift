import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioSavings

/// A random ledger row, with its amount in integer cents (the oracle's own arithmetic, independent of `Decimal`).
private struct Row {
    var id: String
    var child: String
    var timestamp: Int64
    var credit: Bool
    var cents: Int
    var category: String

    func csv(_ rng: inout SplitMix64) -> String {
        let date = CivilDate(epochSeconds: timestamp)
        let seconds = timestamp - date.epochSeconds
        let dateText = seconds == 0 && Bool.random(using: &rng) ? date.description : iso8601(epochSeconds: timestamp)
        let whole = cents / 100, frac = cents % 100
        let amount: String
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: amount = "\(whole).\(frac < 10 ? "0" : "")\(frac)"
        case 1: amount = frac == 0 ? "\(whole)" : frac % 10 == 0 ? "\(whole).\(frac / 10)" : "\(whole).\(frac < 10 ? "0" : "")\(frac)"
        case 2: amount = "\(cents)e-2"
        default: amount = "\"\(whole).\(frac < 10 ? "0" : "")\(frac)0\""
        }
        return "\(id),\(child),\(dateText),\(credit ? "credit" : "Debit"),\(amount),row \(id),\(category),tester"
    }
}

private let kids = ["a", "b", "c"].map {
    AllowanceChild(id: $0, firstName: $0.uppercased(), lastName: "", weeklyAllowance: 1, allowanceDay: .monday)
}
private let start = CivilDate(year: 2024, month: 11, day: 20)!.epochSeconds

private func randomRows(_ rng: inout SplitMix64) -> [Row] {
    let count = Int.random(in: 0...40, using: &rng)
    return (0..<count).map { k in
        let credit = Int.random(in: 0..<100, using: &rng) < 55
        let big = Int.random(in: 0..<6, using: &rng) == 0
        let seconds = Int.random(in: 0..<3, using: &rng) == 0 ? Int64(Int.random(in: 0..<86_400, using: &rng)) : 0
        return Row(
            id: "t\(k)", child: kids[Int.random(in: 0..<3, using: &rng)].id,
            timestamp: start + Int64(Int.random(in: 0...120, using: &rng)) * 86_400 + seconds, credit: credit,
            cents: Int.random(in: 1...(big ? 20_000 : 1_500), using: &rng),
            category: ["", "Toys", "Snacks", "Books", "Allowance"][Int.random(in: 0..<5, using: &rng)])
    }
}

private func csv(_ rows: [Row], _ rng: inout SplitMix64) -> String {
    ledgerHeader + rows.map { $0.csv(&rng) + "\n" }.joined()
}

/// The oracle: rows applied in (timestamp, file position) order in integer cents; a debit above the balance is
/// rejected. Returns the accepted rows with balances and the rejected rows' file positions.
private func oracle(_ rows: [Row]) -> (accepted: [(row: Row, balance: Int)], rejected: [Int]) {
    let order = rows.indices.sorted { (rows[$0].timestamp, $0) < (rows[$1].timestamp, $1) }
    var balance: [String: Int] = [:]
    var accepted: [(Row, Int)] = []
    var rejected: [Int] = []
    for k in order {
        let r = rows[k]
        let after = balance[r.child, default: 0] + (r.credit ? r.cents : -r.cents)
        if after < 0 { rejected.append(k); continue }
        balance[r.child] = after
        accepted.append((r, after))
    }
    return (accepted, rejected)
}

private func cents(_ d: Decimal) -> Int { NSDecimalNumber(decimal: d * 100).intValue }

@Suite("Allowance properties (seeded random ledgers)")
struct AllowancePropertyTests {
    @Test("lenient: accepted rows and balances match an integer-cents oracle; final balance = sum of accepted rows; never negative (3,000 ledgers)")
    func balancesMatchOracle() throws {
        var rng = SplitMix64(seed: 0x15_0001)
        for _ in 0..<3_000 {
            let rows = randomRows(&rng)
            let book = try AllowanceLedger(text: csv(rows, &rng), file: "l.csv", children: kids, lenient: true)
            let (accepted, rejected) = oracle(rows)
            #expect(book.skipped.map(\.line) == rejected.sorted().map { $0 + 2 })
            #expect(book.skipped.allSatisfy { $0.message.contains("insufficient funds") && $0.field == "amount" })
            for kid in kids {
                let postings = book.postings[kid.id] ?? []
                let expected = accepted.filter { $0.row.child == kid.id }
                #expect(postings.map(\.entry.id) == expected.map(\.row.id))
                #expect(postings.map { cents($0.balanceAfter) } == expected.map(\.balance))
                var running: Decimal = 0
                for p in postings {
                    running += p.entry.signedAmount
                    #expect(p.balanceAfter == running && p.balanceAfter >= 0)
                }
                let sum = expected.reduce(0) { $0 + ($1.row.credit ? $1.row.cents : -$1.row.cents) }
                #expect(cents(postings.last?.balanceAfter ?? 0) == sum)
            }
        }
    }

    @Test("strict: an error exactly when the oracle rejects a row, naming the first rejected row's line (3,000 ledgers)")
    func strictNamesFirstOverdraft() throws {
        var rng = SplitMix64(seed: 0x15_0002)
        for _ in 0..<3_000 {
            let rows = randomRows(&rng)
            let text = csv(rows, &rng)
            let (_, rejected) = oracle(rows)
            let outcome = Result { () throws(SavingsInputError) -> AllowanceLedger in
                try AllowanceLedger(text: text, file: "l.csv", children: kids)
            }
            switch outcome {
            case .success: #expect(rejected.isEmpty)
            case .failure(let error):
                #expect(error.line == rejected.first.map { $0 + 2 }, "\(error)")
                #expect(error.description.hasPrefix("l.csv line \(error.line ?? 0), field 'amount': insufficient funds"))
            }
        }
    }

    @Test("report: balance, months, categories and goal dates agree with the oracle; reordering other children's rows changes nothing (2,000 ledgers)")
    func reportMatchesOracleAndIgnoresInterleaving() throws {
        var rng = SplitMix64(seed: 0x15_0003)
        for _ in 0..<2_000 {
            let rows = randomRows(&rng)
            let asOf = CivilDate(daysSinceEpoch: Int(start / 86_400) + Int.random(in: 0...130, using: &rng))
            let goals = kids.map { kid in
                SavingsGoal(id: "g\(kid.id)", childID: kid.id, name: "Goal", targetAmount: Decimal(Int.random(in: 1...30_000, using: &rng)) / 100,
                            created: CivilDate(daysSinceEpoch: Int(start / 86_400)))
            }
            let book = try AllowanceLedger(text: csv(rows, &rng), file: "l.csv", children: kids, lenient: true)
            let report = try AllowanceReport(children: kids, ledger: book, goals: goals, asOf: asOf)
            let limit = Int64(asOf.daysSinceEpoch + 1) * 86_400
            let accepted = oracle(rows).accepted.filter { $0.row.timestamp < limit }
            for (k, kid) in kids.enumerated() {
                let mine = accepted.filter { $0.row.child == kid.id }
                let c = report.children[k]
                let balance = mine.last?.balance ?? 0
                #expect(cents(c.currentBalance) == balance)
                #expect(cents(c.monthly.map(\.net).reduce(0, +)) == balance)
                #expect(cents(c.monthly.map(\.earned).reduce(0, +)) == mine.filter { $0.row.credit }.reduce(0) { $0 + $1.row.cents })
                let spent = mine.filter { !$0.row.credit }.reduce(0) { $0 + $1.row.cents }
                #expect(cents(c.spendingByCategory.map(\.amount).reduce(0, +)) == spent)
                for s in c.spendingByCategory {
                    let share = Double(cents(s.amount)) / Double(spent) * 100
                    #expect(abs(NSDecimalNumber(decimal: s.percentage).doubleValue - share) <= 0.005 + 1e-9)
                }
                #expect(c.transactions.map(\.id) == mine.map(\.row.id))
                // Goal oracle: whole weeks n, window net, k = ceil(remaining·n / net) in integers.
                let target = cents(goals[k].targetAmount)
                let current = min(balance, target)
                let today = asOf.daysSinceEpoch
                let n = mine.first.map { min(8, max(1, (today - CivilDate(epochSeconds: $0.row.timestamp).daysSinceEpoch) / 7)) } ?? 1
                let net = mine.filter {
                    let d = CivilDate(epochSeconds: $0.row.timestamp).daysSinceEpoch
                    return d >= today - 7 * n && d < today
                }.reduce(0) { $0 + ($1.row.credit ? $1.row.cents : -$1.row.cents) }
                let g = c.goals[0]
                #expect(cents(g.currentAmount) == current)
                let expectedDate: String? = net > 0
                    ? CivilDate(daysSinceEpoch: today + 7 * (((target - current) * n + net - 1) / net)).description : nil
                #expect(g.estimatedCompletionDate == expectedDate)
                #expect(g.status == (current >= target ? .achieved : net > 0 ? .onTrack : .stalled))
                #expect(abs(NSDecimalNumber(decimal: g.weeklySavingRate).doubleValue - Double(net) / Double(n) / 100) <= 0.005 + 1e-9)
            }
            // Interleave the children's rows differently, keeping each child's own order: the same report.
            var queues = Dictionary(grouping: rows, by: \.child)
            var shuffled: [Row] = []
            while !queues.isEmpty {
                let key = queues.keys.sorted()[Int.random(in: 0..<queues.count, using: &rng)]
                shuffled.append(queues[key]!.removeFirst())
                if queues[key]!.isEmpty { queues[key] = nil }
            }
            let other = try AllowanceLedger(text: csv(shuffled, &rng), file: "l.csv", children: kids, lenient: true)
            #expect(try AllowanceReport(children: kids, ledger: other, goals: goals, asOf: asOf) == report)
        }
    }

    @Test("damaged lines: lenient skips exactly them and reads the rest as if they were blank; strict names the first (2,000 ledgers)")
    func damagedLines() throws {
        var rng = SplitMix64(seed: 0x15_0004)
        for _ in 0..<2_000 {
            let rows = randomRows(&rng)
            guard !rows.isEmpty else { continue }
            var lines = csv(rows, &rng).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var blanked = lines
            var damaged: [Int] = []
            for k in 1..<(lines.count - 1) where Int.random(in: 0..<5, using: &rng) == 0 {
                let damage = [",\"x\"y", ",\"open", ",a\"b"][Int.random(in: 0..<3, using: &rng)]
                lines[k] += damage
                blanked[k] = ""
                damaged.append(k + 1)
            }
            let text = lines.joined(separator: "\n"), clean = blanked.joined(separator: "\n")
            let book = try AllowanceLedger(text: text, file: "l.csv", children: kids, lenient: true)
            let reference = try AllowanceLedger(text: clean, file: "l.csv", children: kids, lenient: true)
            #expect(book.postings == reference.postings)
            #expect(book.skipped.filter { !$0.message.contains("insufficient funds") }.map(\.line) == damaged)
            #expect(Set(book.skipped) == Set(reference.skipped).union(book.skipped.filter { damaged.contains($0.line ?? 0) }))
            let strict = Result { () throws(SavingsInputError) -> AllowanceLedger in try AllowanceLedger(text: text, file: "l.csv", children: kids) }
            if case .failure(let error) = strict {
                // The first damaged line, else the first overdraft in time order.
                #expect(error.line == damaged.first ?? oracle(rows).rejected.first.map { $0 + 2 })
            } else {
                #expect(damaged.isEmpty && reference.skipped.isEmpty)
            }
        }
    }
}
