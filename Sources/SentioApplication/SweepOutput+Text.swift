import Foundation
import SentioBacktest
import SentioCore
import SentioAPI
import SentioSweep

// The text forms of a sweep's output (SentioSweep's `SweepOutput`; its JSON form is SentioSweep's `json()`): the
// CSV of its rows and the table for a terminal.

extension SweepStatistics {
    /// The benchmark columns of the CSV form, after the figures.
    static let benchmarkFieldNames: [String] = [
        "benchmarkSymbol", "benchmarkTotalReturnPercent", "alpha", "beta", "correlation", "informationRatio",
        "trackingErrorPercent",
    ]

    /// Field names and values in declaration order (`nil`: the statistic is undefined), for the CSV form; the
    /// benchmark object flattened to `benchmarkSymbol`, `benchmarkTotalReturnPercent`, `alpha`, `beta`,
    /// `correlation`, `informationRatio`, `trackingErrorPercent` (empty without a benchmark).
    public var fields: [(name: String, value: String?)] {
        func d(_ x: Double?) -> String? { x.flatMap(APIJSON.number) }
        let values: [String?] = [
            benchmark?.symbol, d(benchmark?.totalReturnPercent), d(benchmark?.alpha), d(benchmark?.beta),
            d(benchmark?.correlation), d(benchmark?.informationRatio), d(benchmark?.trackingErrorPercent),
        ]
        return statistics.textFields + zip(Self.benchmarkFieldNames, values).map { ($0, $1) }
    }
}

extension SweepOutput {
    /// The rows as CSV: `rank,index`, one column per grid parameter, then every `SweepStatistics` field (numbers in
    /// their shortest round-trip form, empty for an undefined statistic). Ends with a newline.
    public func csv() -> String {
        var header = ["rank", "index"] + grid.map(\.name)
        header += rowsStatisticsNames
        var lines = [header.map(Self.csvField).joined(separator: ",")]
        for (rank, row) in rows.enumerated() {
            var cells = [String(rank + 1), String(row.index)]
            cells += grid.map { row.parameters[$0.name] ?? "" }
            cells += row.statistics.fields.map { $0.value ?? "" }
            lines.append(cells.map(Self.csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var rowsStatisticsNames: [String] {
        PerformanceStatistics.figureNames + SweepStatistics.benchmarkFieldNames
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows for a terminal: a heading (strategy, data, grid size, shard), then one line per combination in rank
    /// order with its parameters and the main statistics (percents with 2 decimals, ratios with 3, `n/a` when
    /// undefined), then the walk-forward windows when present. Ends with a newline.
    public func table() -> String {
        let f = TextTable.fixed
        var out = "Sweep of \(strategy) on \(data.symbols.count) symbol\(data.symbols.count == 1 ? "" : "s"), "
            + "\(APITimestamp(epochSeconds: data.start)) .. \(APITimestamp(epochSeconds: data.end)) (\(data.bars) bars): \(rows.count) of \(combinations) combination\(combinations == 1 ? "" : "s")"
        if let shard { out += " (shard \(shard.index)/\(shard.count))" }
        out += ", ranked by \(metric.rawValue)\n\n"
        var table: [[String]] = [["rank", "#"] + grid.map(\.name) + [
            "return %", "CAGR %", "Sharpe", "Sortino", "Calmar", "max DD %", "trades", "win %", "PF", "final equity",
        ]]
        for (rank, row) in rows.enumerated() {
            let s = row.statistics
            table.append([String(rank + 1), String(row.index)] + grid.map { row.parameters[$0.name] ?? "" } + [
                f(s.totalReturnPercent, 2, ""), f(s.cagrPercent, 2, ""), f(s.sharpeRatio, 3, ""), f(s.sortinoRatio, 3, ""),
                f(s.calmarRatio, 3, ""), f(s.maxDrawdownPercent, 2, ""), String(s.tradeCount), f(s.winRatePercent, 2, ""),
                f(s.profitFactor, 3, ""), f(s.finalEquity, 2, ""),
            ])
        }
        let numeric = Set(0..<table[0].count)
        out += TextTable.render(table, rightAligned: numeric) + "\n"
        if let wf = walkForward { out += "\n" + wf.table(grid: grid.map(\.name), metric: metric) }
        return out
    }
}

extension SweepWalkForward {
    /// The windows for a terminal, then the stitched out-of-sample result.
    func table(grid: [String], metric: SweepMetric) -> String {
        let f = TextTable.fixed
        var out = "Walk-forward (train \(train), test \(test)): best in-sample by \(metric.rawValue), run out of sample\n\n"
        var table: [[String]] = [["window", "test period", "#"] + grid + [
            "IS \(metric.rawValue)", "IS return %", "OOS \(metric.rawValue)", "OOS return %", "OOS final equity",
        ]]
        for w in windows {
            table.append([String(w.window), "\(APITimestamp(epochSeconds: w.testStart)) .. \(APITimestamp(epochSeconds: w.testEnd))", String(w.best)]
                + grid.map { w.parameters[$0] ?? "" } + [
                    f(metric.value(w.inSample), 3, ""), f(w.inSample.totalReturnPercent, 2, ""),
                    f(metric.value(w.outOfSample), 3, ""), f(w.outOfSample.totalReturnPercent, 2, ""),
                    f(w.outOfSample.finalEquity, 2, ""),
                ])
        }
        out += TextTable.render(table, rightAligned: Set([0] + Array(2..<table[0].count))) + "\n"
        out += "\nOut of sample, stitched: \(f(outOfSample.initialCapital, 2, "")) -> \(f(outOfSample.finalEquity, 2, "")) "
            + "(\(f(outOfSample.totalReturnPercent, 2, " %")), \(outOfSample.equity.count) steps)\n"
        return out
    }
}
