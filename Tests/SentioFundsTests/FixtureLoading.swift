import Foundation
import SentioCore
import SentioTestSupport

/// Reads a header CSV fixture as rows of text cells keyed by column name.
func loadTextRows(_ name: String) throws -> [[String: String]] {
    let lines = try fixtureText(name).split(whereSeparator: \.isNewline)
    let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return lines.dropFirst().map { line in
        let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return Dictionary(uniqueKeysWithValues: zip(header, cells))
    }
}

func date(_ iso: String) -> CivilDate { CivilDate(iso: iso)! }

/// The series of `funds/xirr_flows.csv`, grouped by `series_id` in file order.
func loadFixtureSeries() throws -> [[CashFlowRow]] {
    var series: [[CashFlowRow]] = []
    for row in try loadTextRows("funds/xirr_flows.csv") {
        let id = Int(row["series_id"]!)!
        if id == series.count { series.append([]) }
        series[id].append(CashFlowRow(date: date(row["date"]!), amount: Double(row["amount"]!)!))
    }
    return series
}

struct CashFlowRow {
    var date: CivilDate
    var amount: Double
}
