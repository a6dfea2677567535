import Foundation
import SentioCore
import SentioReports

/// The HTML report of a sweep (SentioReports' `SweepReportPage`).
public enum SweepReport {
    /// The report of `output`: a heatmap of the metric over `heatmap` (X, Y; default the first two grid parameters,
    /// none when the grid has one), the ranked rows, and the walk-forward when present.
    ///
    /// With more than two grid parameters, a heatmap cell shows the best value (by the metric's order) over the other
    /// parameters at that X and Y.
    ///
    /// - Throws: ``SweepGridError`` when a heatmap parameter is not in the grid or both are the same.
    public static func html(_ output: SweepOutput, heatmap axes: (String, String)?) throws(SweepGridError) -> String {
        SweepReportPage.render(try content(output, heatmap: axes))
    }

    /// The report's content (see ``html(_:heatmap:)``).
    public static func content(_ output: SweepOutput, heatmap axes: (String, String)?) throws(SweepGridError) -> SweepReportContent {
        let names = output.grid.map(\.name)
        var heatmap: SweepHeatmap?
        let chosen = axes ?? (names.count >= 2 ? (names[0], names[1]) : nil)
        if let (x, y) = chosen {
            guard let xp = output.grid.first(where: { $0.name == x }), let yp = output.grid.first(where: { $0.name == y }) else {
                throw SweepGridError("--heatmap \(x),\(y): both must be grid parameters (\(names.joined(separator: ", ")))")
            }
            guard x != y else { throw SweepGridError("--heatmap \(x),\(y): give two different parameters") }
            var cells = [[Double?]](repeating: [Double?](repeating: nil, count: xp.values.count), count: yp.values.count)
            // Rows are in rank order: the first row seen at a cell is the best there.
            var seen = Set<[Int]>()
            for row in output.rows {
                guard let i = xp.values.firstIndex(of: row.parameters[x] ?? ""), let j = yp.values.firstIndex(of: row.parameters[y] ?? "") else { continue }
                if seen.insert([i, j]).inserted { cells[j][i] = output.metric.value(row.statistics) }
            }
            heatmap = SweepHeatmap(
                metric: output.metric.rawValue, xName: x, yName: y, xValues: xp.values, yValues: yp.values, cells: cells,
                note: names.count > 2 ? "Each cell: the best \(output.metric.rawValue) over the other parameters (\(names.filter { $0 != x && $0 != y }.joined(separator: ", ")))." : nil)
        }
        let f = fixed
        var rows = [["rank", "#"] + names + ["return %", "CAGR %", "Sharpe", "Sortino", "Calmar", "max DD %", "trades", "win %", "final equity"]]
        for (rank, row) in output.rows.enumerated() {
            let s = row.statistics
            rows.append([String(rank + 1), String(row.index)] + names.map { row.parameters[$0] ?? "" } + [
                f(s.totalReturnPercent, 2, ""), f(s.cagrPercent, 2, ""), f(s.sharpeRatio, 3, ""), f(s.sortinoRatio, 3, ""),
                f(s.calmarRatio, 3, ""), f(s.maxDrawdownPercent, 2, ""), String(s.tradeCount), f(s.winRatePercent, 2, ""),
                f(s.finalEquity, 2, ""),
            ])
        }
        var windows: [[String]]?
        var equity: (times: [Int64], values: [Double])?
        if let wf = output.walkForward {
            let m = output.metric
            var table = [["window", "train", "test", "#"] + names + ["IS \(m.rawValue)", "OOS \(m.rawValue)", "OOS return %", "OOS final equity"]]
            for w in wf.windows {
                table.append([String(w.window), "\(iso8601(epochSeconds: w.trainStart)) .. \(iso8601(epochSeconds: w.trainEnd))",
                                "\(iso8601(epochSeconds: w.testStart)) .. \(iso8601(epochSeconds: w.testEnd))", String(w.best)]
                    + names.map { w.parameters[$0] ?? "" }
                    + [f(m.value(w.inSample), 3, ""), f(m.value(w.outOfSample), 3, ""), f(w.outOfSample.totalReturnPercent, 2, ""), f(w.outOfSample.finalEquity, 2, "")])
            }
            windows = table
            equity = (wf.outOfSample.equity.map(\.time), wf.outOfSample.equity.map(\.equity))
        }
        let d = output.data
        return SweepReportContent(
            title: "Sweep: \(output.strategy), \(output.combinations) combinations",
            subtitle: "\(d.symbols.count) symbol\(d.symbols.count == 1 ? "" : "s"), \(iso8601(epochSeconds: d.start)) .. \(iso8601(epochSeconds: d.end)) (\(d.bars) bars); ranked by \(output.metric.rawValue)"
                + (output.walkForward.map { "; walk-forward \($0.train):\($0.test), stitched out-of-sample return \(f($0.outOfSample.totalReturnPercent, 2, " %"))" } ?? ""),
            heatmap: heatmap, rows: rows, walkForwardWindows: windows, walkForwardEquity: equity)
    }

    /// `x` with `digits` decimals and `suffix`, or `n/a` when absent or not finite (the terminal tables' rule).
    static func fixed(_ x: Double?, _ digits: Int, _ suffix: String) -> String {
        guard let x, x.isFinite else { return "n/a" }
        return String(format: "%.\(digits)f", x) + suffix
    }
}
