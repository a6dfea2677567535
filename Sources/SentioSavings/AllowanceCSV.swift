import Foundation
import SentioCore
import SentioCSV

// The allowance CSV files written: exactly what ``AllowanceChild/children(text:file:)``,
// ``LedgerEntry/entries(text:file:lenient:)`` and ``SavingsGoal/goals(text:file:children:)`` read back (header
// first, cells quoted per RFC 4180 only where needed, amounts with two decimals, lines ending with `\n`).

extension AllowanceChild {
    /// CHILDREN.csv text: `child_id,first_name,last_name,weekly_allowance,allowance_day`.
    public static func csv(_ children: [AllowanceChild]) -> String {
        var out = "child_id,first_name,last_name,weekly_allowance,allowance_day\n"
        for c in children {
            out += [c.id, c.firstName, c.lastName, SavingsMoney.text(c.weeklyAllowance), c.allowanceDay.rawValue]
                .map(CSVCell.quoted).joined(separator: ",") + "\n"
        }
        return out
    }
}

extension LedgerEntry {
    /// LEDGER.csv text: `id,child_id,date,type,amount,description,category,created_by`, dates as
    /// `YYYY-MM-DDTHH:MM:SSZ`, in the order given.
    public static func csv(_ entries: [LedgerEntry]) -> String {
        var out = "id,child_id,date,type,amount,description,category,created_by\n"
        for e in entries {
            out += [e.id, e.childID, iso8601(epochSeconds: e.timestamp), e.type.rawValue, SavingsMoney.text(e.amount), e.description,
                    e.category, e.createdBy].map(CSVCell.quoted).joined(separator: ",") + "\n"
        }
        return out
    }
}

extension SavingsGoal {
    /// GOALS.csv text: `id,child_id,name,target_amount,created`.
    public static func csv(_ goals: [SavingsGoal]) -> String {
        var out = "id,child_id,name,target_amount,created\n"
        for g in goals {
            out += [g.id, g.childID, g.name, SavingsMoney.text(g.targetAmount), g.created.description].map(CSVCell.quoted)
                .joined(separator: ",") + "\n"
        }
        return out
    }
}
