import ArgumentParser
import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output format of the store commands.
enum StoreOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}

/// `sentio runs`: list, show and compare backtest runs saved in a store.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List, show and compare backtest runs saved in a Sentio store.",
        discussion: """
            Runs are saved by `sentio backtest --save --db FILE`. Statistics come from each run's saved statistics \
            (the keys `sentio backtest --format json` prints); a statistic a run lacks shows as '-'.
            """,
        subcommands: [List.self, Show.self, Compare.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List saved runs, oldest first, with their headline statistics.")
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format.", valueName: "table|json"))
        var format: StoreOutputFormat = .table

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let runs = try database.runs()
            switch format {
            case .json:
                try printJSON(["runs": runs.map(runSummaryObject)])
            case .table:
                if runs.isEmpty {
                    print("no runs in \(database.path)")
                    return
                }
                var rows = [["id", "created", "strategy", "symbols", "period", "final equity"]
                    + RunsCommand.headline.map(\.label)]
                for run in runs {
                    let statistics = run.statisticsObject()
                    rows.append(
                        [
                            "\(run.id ?? 0)", iso8601(epochSeconds: run.createdAt), run.strategy,
                            abbreviate(run.symbols), period(run),
                            run.finalEquity.map { formatNumber($0, decimals: 2) } ?? "-",
                        ] + RunsCommand.headline.map { formatStatistic(statistics[$0.key]) })
                }
                print(renderTable(rows, rightAligned: Set(4..<rows[0].count)))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one run in full: configuration, statistics, trades and an equity summary (json: the whole curve).")
        @Argument(help: "Run id (see `sentio runs list`).")
        var id: Int64
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format.", valueName: "table|json"))
        var format: StoreOutputFormat = .table

        func run() throws {
            let detail = try store.open(mode: .readOnly).run(id: id)
            let run = detail.run
            switch format {
            case .json:
                var object = runSummaryObject(run)
                object["config"] = run.configObject()
                object["trades"] = detail.trades.map(tradeObject)
                object["equity"] = detail.equity.map { point -> [String: Any] in
                    var entry: [String: Any] = ["timestamp": iso8601(epochSeconds: point.timestamp), "equity": point.equity]
                    if let cash = point.cash { entry["cash"] = cash }
                    if let contribution = point.contribution { entry["contribution"] = contribution }
                    return entry
                }
                try printJSON(object)
            case .table:
                print("run \(run.id ?? 0): \(run.strategy) on \(run.symbols.joined(separator: ","))")
                print("  created            \(iso8601(epochSeconds: run.createdAt))")
                if let label = run.label { print("  label              \(label)") }
                print("  period             \(period(run))")
                print("  input fingerprint  \(run.inputFingerprint)")
                if let capital = run.initialCapital { print("  initial capital    \(formatNumber(capital, decimals: 2))") }
                if let equity = run.finalEquity { print("  final equity       \(formatNumber(equity, decimals: 2))") }
                print("\nconfig")
                for (key, value) in run.configObject().sorted(by: { $0.key < $1.key }) {
                    print("  \(key.padding(toLength: 28, withPad: " ", startingAt: 0)) \(formatStatistic(value))")
                }
                print("\nstatistics")
                for (key, value) in run.statisticsObject().sorted(by: { $0.key < $1.key }) {
                    print("  \(key.padding(toLength: 28, withPad: " ", startingAt: 0)) \(formatStatistic(value))")
                }
                print("\ntrades (\(detail.trades.count))")
                if !detail.trades.isEmpty {
                    var rows = [["#", "symbol", "entry", "entry price", "exit", "exit price", "shares", "pnl", "pnl %", "exit reason"]]
                    for (i, trade) in detail.trades.enumerated() {
                        rows.append([
                            "\(i + 1)", trade.symbol, iso8601(epochSeconds: trade.entryTimestamp),
                            formatNumber(trade.entryPrice, decimals: 4),
                            trade.exitTimestamp.map { iso8601(epochSeconds: $0) } ?? "open",
                            trade.exitPrice.map { formatNumber($0, decimals: 4) } ?? "-",
                            formatNumber(trade.shares, decimals: 4), trade.pnl.map { formatNumber($0, decimals: 2) } ?? "-",
                            trade.pnlPercent.map { formatNumber($0, decimals: 4) } ?? "-", trade.exitReason ?? "-",
                        ])
                    }
                    print(renderTable(rows, rightAligned: [0, 3, 5, 6, 7, 8]))
                }
                print("\nequity curve (\(detail.equity.count) points)")
                if let first = detail.equity.first, let last = detail.equity.last {
                    let low = detail.equity.min { $0.equity < $1.equity }!
                    let high = detail.equity.max { $0.equity < $1.equity }!
                    print("  first  \(iso8601(epochSeconds: first.timestamp))  \(formatNumber(first.equity, decimals: 2))")
                    print("  last   \(iso8601(epochSeconds: last.timestamp))  \(formatNumber(last.equity, decimals: 2))")
                    print("  low    \(iso8601(epochSeconds: low.timestamp))  \(formatNumber(low.equity, decimals: 2))")
                    print("  high   \(iso8601(epochSeconds: high.timestamp))  \(formatNumber(high.equity, decimals: 2))")
                }
            }
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare runs side by side: every statistic, and the configuration values that differ.")
        @Argument(help: "Two or more run ids.")
        var ids: [Int64]
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Output format.", valueName: "table|json"))
        var format: StoreOutputFormat = .table

        func validate() throws {
            if ids.count < 2 { throw ValidationError("compare needs at least two run ids, got \(ids.count)") }
        }

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let runs = try ids.map { try database.run(id: $0).run }
            let statistics = runs.map { $0.statisticsObject() }
            let configs = runs.map { $0.configObject() }
            // Headline statistics first, in their usual order, then the rest alphabetically.
            let headlineKeys = RunsCommand.headline.map(\.key)
            let allKeys = Set(statistics.flatMap(\.keys))
            let statisticKeys = headlineKeys.filter(allKeys.contains) + allKeys.subtracting(headlineKeys).sorted()
            let configKeys = Set(configs.flatMap(\.keys)).sorted().filter { key in
                Set(configs.map { canonicalJSON($0[key]) }).count > 1
            }
            switch format {
            case .json:
                func column(_ objects: [[String: Any]], _ key: String) -> [Any] { objects.map { $0[key] ?? NSNull() } }
                try printJSON([
                    "runs": runs.map(runSummaryObject),
                    "statistics": Dictionary(uniqueKeysWithValues: statisticKeys.map { ($0, column(statistics, $0)) }),
                    "configDifferences": Dictionary(uniqueKeysWithValues: configKeys.map { ($0, column(configs, $0)) }),
                ])
            case .table:
                var rows = [[""] + runs.map { "run \($0.id ?? 0)" }]
                rows.append(["strategy"] + runs.map(\.strategy))
                rows.append(["symbols"] + runs.map { abbreviate($0.symbols) })
                rows.append(["period"] + runs.map(period))
                rows.append(["input fingerprint"] + runs.map(\.inputFingerprint))
                rows.append(["final equity"] + runs.map { $0.finalEquity.map { formatNumber($0, decimals: 2) } ?? "-" })
                for key in statisticKeys {
                    rows.append([key] + statistics.map { formatStatistic($0[key]) })
                }
                if !configKeys.isEmpty {
                    rows.append([""] + runs.map { _ in "" })
                    rows.append(["config (differences)"] + runs.map { _ in "" })
                    for key in configKeys {
                        rows.append(["  " + key] + configs.map { formatStatistic($0[key]) })
                    }
                }
                print(renderTable(rows, rightAligned: Set(1..<rows[0].count)))
            }
        }
    }

    /// Statistics shown in `list` and first in `compare`: (JSON key of `sentio backtest --format json`, label).
    static let headline: [(key: String, label: String)] = [
        ("totalReturnPercent", "return %"), ("cagrPercent", "CAGR %"), ("sharpeRatio", "Sharpe"),
        ("maxDrawdownPercent", "max DD %"), ("tradeCount", "trades"), ("winRatePercent", "win %"),
    ]
}

// MARK: - Formatting helpers shared by the store commands

/// The header fields of a run as a JSON object (camelCase keys), with its statistics object.
private func runSummaryObject(_ run: StoredRun) -> [String: Any] {
    var object: [String: Any] = [
        "id": run.id ?? 0, "created": iso8601(epochSeconds: run.createdAt), "strategy": run.strategy,
        "symbols": run.symbols, "inputFingerprint": run.inputFingerprint, "tradeCount": run.tradeCount,
        "equityPointCount": run.equityPointCount, "statistics": run.statisticsObject(),
    ]
    if let label = run.label { object["label"] = label }
    if let start = run.startTimestamp { object["start"] = iso8601(epochSeconds: start) }
    if let end = run.endTimestamp { object["end"] = iso8601(epochSeconds: end) }
    if let capital = run.initialCapital { object["initialCapital"] = capital }
    if let equity = run.finalEquity { object["finalEquity"] = equity }
    return object
}

private func tradeObject(_ trade: StoredTrade) -> [String: Any] {
    var object: [String: Any] = [
        "symbol": trade.symbol, "entryTime": iso8601(epochSeconds: trade.entryTimestamp), "entryPrice": trade.entryPrice,
        "shares": trade.shares, "commission": trade.commission,
    ]
    if let exit = trade.exitTimestamp { object["exitTime"] = iso8601(epochSeconds: exit) }
    if let price = trade.exitPrice { object["exitPrice"] = price }
    if let pnl = trade.pnl { object["pnl"] = pnl }
    if let percent = trade.pnlPercent { object["pnlPercent"] = percent }
    if let signal = trade.signalType { object["signalType"] = signal }
    if let reason = trade.exitReason { object["exitReason"] = reason }
    if let details = trade.detailsJSON,
        let parsed = try? JSONSerialization.jsonObject(with: Data(details.utf8))
    {
        object["details"] = parsed
    }
    return object
}

/// Prints a JSON object with sorted keys, pretty-printed.
private func printJSON(_ object: Any) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
}

/// A JSON value's canonical text, to compare values of any type.
private func canonicalJSON(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "null" }
    let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
}

/// A statistic or config value for a table cell: numbers with up to 4 decimals, strings as is, '-' when absent.
private func formatStatistic(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "-" }
    if let string = value as? String { return string }
    if let number = value as? NSNumber {
        let type = String(cString: number.objCType)
        if type == "c" || type == "B" { return number.boolValue ? "true" : "false" }
        if type == "d" || type == "f" {
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : formatNumber(double, decimals: 4)
        }
        return number.stringValue
    }
    return canonicalJSON(value)
}

/// `value` with `decimals` decimals, trailing zeros kept (fixed columns read better).
private func formatNumber(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    return String(format: "%.\(decimals)f", value)
}

/// The run's simulated period as `YYYY-MM-DD..YYYY-MM-DD`.
private func period(_ run: StoredRun) -> String {
    guard let start = run.startTimestamp, let end = run.endTimestamp else { return "-" }
    return "\(CivilDate(epochSeconds: start))..\(CivilDate(epochSeconds: end))"
}

/// A symbol list shortened for a table cell.
private func abbreviate(_ symbols: [String]) -> String {
    symbols.count <= 4 ? symbols.joined(separator: ",") : symbols.prefix(3).joined(separator: ",") + ",+\(symbols.count - 3)"
}

/// Renders rows as an aligned text table; the first row is the header, underlined.
private func renderTable(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    guard let header = rows.first else { return "" }
    var widths = [Int](repeating: 0, count: header.count)
    for row in rows {
        for (j, cell) in row.enumerated() where j < widths.count { widths[j] = max(widths[j], cell.count) }
    }
    func line(_ row: [String]) -> String {
        row.enumerated().map { j, cell in
            let pad = String(repeating: " ", count: widths[j] - cell.count)
            return rightAligned.contains(j) ? pad + cell : cell + pad
        }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }
    var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    lines += rows.dropFirst().map(line)
    return lines.joined(separator: "\n")
}

/// `--db FILE`, shared by every command that uses the store (`import`, `runs`, and the `--save` flags).
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "SQLite store file (default: $SENTIO_DB if set, else ./sentio.sqlite in the working directory).",
            valueName: "FILE"))
    var database: String?

    /// The path to use: `--db`, else the documented default.
    var path: String { database ?? SentioDatabase.defaultPath() }

    /// Opens the store; `.readOnly` for commands that only read (a store whose file or folder is not writable is
    /// then opened read-only, creating no `-wal`/`-shm` files). An empty `--db ''` is a usage error (exit 2).
    func open(mode: SentioDatabase.OpenMode) throws -> SentioDatabase {
        if database?.isEmpty == true { throw UsageError("--db needs a file path; got an empty string") }
        return try SentioDatabase(path: path, mode: mode)
    }
}
