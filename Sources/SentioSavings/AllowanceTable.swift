import Foundation

extension AllowanceReport {
    /// The report as plain text: per child the balance and allowance, the monthly table, spending by category and
    /// goals (amounts with two decimals, percentages with two decimals and `%`). The transactions are only in the
    /// JSON.
    public func table() -> String {
        func money(_ d: Decimal) -> String { SavingsMoney.text(d) }
        func pad(_ s: String, _ width: Int, right: Bool = true) -> String {
            let gap = String(repeating: " ", count: max(0, width - s.count))
            return right ? gap + s : s + gap
        }
        var out = "Allowance as of \(asOf)\n"
        for child in children {
            let name = child.lastName.isEmpty ? child.firstName : "\(child.firstName) \(child.lastName)"
            out += "\n\(name) (\(child.childId))\n"
            out += "  Balance              \(money(child.currentBalance))\n"
            out += "  Weekly allowance     \(money(child.weeklyAllowance))\n"
            out += "  Last allowance       \(child.lastAllowanceDate ?? "none")\n"
            let days = child.daysUntilAllowance == 1 ? "1 day" : "\(child.daysUntilAllowance) days"
            out += "  Next allowance       \(child.nextAllowanceDate) (in \(days))\n"
            out += "  Transactions         \(child.transactions.count)\n"
            if !child.monthly.isEmpty {
                // 14 characters a column, wider when an amount needs it (two spaces always separate the columns).
                let amounts = child.monthly.flatMap { [money($0.earned), money($0.spent), money($0.net)] }
                let w = max(14, (amounts.map(\.count).max() ?? 0) + 2)
                out += "  \(pad("Month", 8, right: false))\(pad("Earned", w))\(pad("Spent", w))\(pad("Net", w))\n"
                for m in child.monthly {
                    out += "  \(pad(m.month, 8, right: false))\(pad(money(m.earned), w))\(pad(money(m.spent), w))\(pad(money(m.net), w))\n"
                }
            }
            if !child.spendingByCategory.isEmpty {
                out += "  Spending by category\n"
                let width = max(8, child.spendingByCategory.map(\.category.count).max() ?? 0)
                let w = max(14, (child.spendingByCategory.map { money($0.amount).count }.max() ?? 0) + 2)
                let p = max(10, (child.spendingByCategory.map { money($0.percentage).count }.max() ?? 0) + 4)
                for c in child.spendingByCategory {
                    out += "    \(pad(c.category, width, right: false))\(pad(money(c.amount), w))\(pad(money(c.percentage) + " %", p))\n"
                }
            }
            for g in child.goals {
                out += "  Goal \(g.name) (\(g.id)): \(money(g.currentAmount)) of \(money(g.targetAmount)) (\(money(g.progressPercent)) %), "
                    + "saving \(money(g.weeklySavingRate))/week, "
                    + "\(g.estimatedCompletionDate.map { "estimated \($0)" } ?? "no estimate"), \(g.status.rawValue)\n"
            }
        }
        return out
    }
}
