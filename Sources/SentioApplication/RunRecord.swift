import Foundation
import SentioAPI
import SentioCore
import SentioStore

// Declaration order is key order (`APIJSON`): do not reorder stored properties.

/// A backtest run saved in a store, as `sentio runs list --format json` lists it (the `runs` array of
/// ``RunList``).
///
/// `statistics` is the run's saved statistics object exactly as saved: for runs saved by `sentio backtest --save`
/// it is the whole `BacktestSummary` (the bytes `sentio backtest --format json` printed, `config` included);
/// other producers may save any object. `label`, `start`, `end`, `initialCapital` and `finalEquity` are `null`
/// when the run was saved without them; every other field is always present. `created` is when the run was
/// saved; `start`/`end` are the first and last bar of its timeline. `tradeCount` counts the trades saved with the
/// run (closed trades and the positions still open); `equityPointCount` the points of its equity curve.
public struct RunRecord: Sendable, Equatable, Codable {
    public var id: Int64
    public var created: APITimestamp
    public var label: String?
    public var strategy: String
    public var symbols: [String]
    public var start: APITimestamp?
    public var end: APITimestamp?
    public var initialCapital: Double?
    public var finalEquity: Double?
    public var inputFingerprint: String
    public var tradeCount: Int
    public var equityPointCount: Int
    public var statistics: APIJSONValue

    /// The record of a stored run.
    /// - Throws: `APIJSONParseError` when the saved statistics are not JSON.
    public init(_ run: StoredRun) throws(APIJSONParseError) {
        id = run.id ?? 0
        created = APITimestamp(epochSeconds: run.createdAt)
        label = run.label
        strategy = run.strategy
        symbols = run.symbols
        start = run.startTimestamp.map(APITimestamp.init(epochSeconds:))
        end = run.endTimestamp.map(APITimestamp.init(epochSeconds:))
        initialCapital = run.initialCapital
        finalEquity = run.finalEquity
        inputFingerprint = run.inputFingerprint
        tradeCount = run.tradeCount
        equityPointCount = run.equityPointCount
        statistics = try APIJSONValue.parse(run.statisticsJSON)
    }

    /// Statistics shown in `runs list` and first in `runs compare`: (key of `BacktestSummary`, column label).
    public static let headline: [(key: String, label: String)] = [
        ("totalReturnPercent", "return %"), ("cagrPercent", "CAGR %"), ("sharpeRatio", "Sharpe"),
        ("maxDrawdownPercent", "max DD %"), ("tradeCount", "trades"), ("winRatePercent", "win %"),
    ]

    /// The simulated period as `YYYY-MM-DD..YYYY-MM-DD`, `-` when unknown.
    public var period: String {
        guard let start, let end else { return "-" }
        return "\(CivilDate(epochSeconds: start.epochSeconds))..\(CivilDate(epochSeconds: end.epochSeconds))"
    }

    /// The symbols shortened for a table cell (`A,B,C,+2`).
    public var abbreviatedSymbols: String {
        symbols.count <= 4 ? symbols.joined(separator: ",") : symbols.prefix(3).joined(separator: ",") + ",+\(symbols.count - 3)"
    }
}

/// `sentio runs list --format json`: `{"runs": [RunRecord]}`, oldest first.
public struct RunList: Sendable, Equatable, Codable {
    public var runs: [RunRecord]

    public init(runs: [RunRecord]) { self.runs = runs }

    /// - Throws: `APIJSONParseError` for a run whose saved statistics are not JSON.
    public init(_ runs: [StoredRun]) throws(APIJSONParseError) {
        var records: [RunRecord] = []
        for run in runs { records.append(try RunRecord(run)) }
        self.runs = records
    }

    /// The list for a terminal: id, label (`-` without one; shortened to `RunCell.labelLimit` characters),
    /// created, strategy, symbols, period, final equity and the headline statistics (`-` where a run lacks one);
    /// `no runs in PATH` for an empty store.
    public func table(storePath: String) -> String {
        if runs.isEmpty { return "no runs in \(storePath)" }
        var rows = [["id", "label", "created", "strategy", "symbols", "period", "final equity"] + RunRecord.headline.map(\.label)]
        for run in runs {
            rows.append(
                ["\(run.id)", RunCell.shortened(run.label ?? "-", RunCell.labelLimit), run.created.description, run.strategy,
                 run.abbreviatedSymbols, run.period, run.finalEquity.map { TextTable.fixed($0, 2) } ?? "-"]
                    + RunRecord.headline.map { RunCell.text(run.statistics[$0.key]) })
        }
        return TextTable.render(rows, rightAligned: Set(6..<rows[0].count))
    }
}

/// One trade of a saved run (`trades` of ``RunDetail``): closed trades in saved order, then the positions still
/// open, whose `exitTime`, `exitPrice`, `pnl`, `pnlPercent` and `exitReason` are `null`. `pnlPercent` is a
/// percent; `commission` is in currency; `details` is the producer's extra object or `null`.
public struct RunTrade: Sendable, Equatable, Codable {
    public var symbol: String
    public var entryTime: APITimestamp
    public var entryPrice: Double
    public var exitTime: APITimestamp?
    public var exitPrice: Double?
    public var shares: Double
    public var pnl: Double?
    public var pnlPercent: Double?
    public var commission: Double
    public var signalType: String?
    public var exitReason: String?
    public var details: APIJSONValue?

    public init(_ t: StoredTrade) throws(APIJSONParseError) {
        symbol = t.symbol
        entryTime = APITimestamp(epochSeconds: t.entryTimestamp)
        entryPrice = t.entryPrice
        exitTime = t.exitTimestamp.map(APITimestamp.init(epochSeconds:))
        exitPrice = t.exitPrice
        shares = t.shares
        pnl = t.pnl
        pnlPercent = t.pnlPercent
        commission = t.commission
        signalType = t.signalType
        exitReason = t.exitReason
        details = try t.detailsJSON.map { text throws(APIJSONParseError) in try APIJSONValue.parse(text) }
    }
}

/// One point of a saved equity curve: `cash` is `null` when not saved, `contribution` is `null` where no deposit
/// was made.
public struct RunEquityPoint: Sendable, Equatable, Codable {
    public var timestamp: APITimestamp
    public var equity: Double
    public var cash: Double?
    public var contribution: Double?

    public init(_ p: StoredEquityPoint) {
        timestamp = APITimestamp(epochSeconds: p.timestamp)
        equity = p.equity
        cash = p.cash
        contribution = p.contribution
    }
}

/// `sentio runs show ID --format json`: the ``RunRecord`` fields, then `config` (the saved configuration object),
/// `trades` and the whole `equity` curve.
public struct RunDetail: Sendable, Equatable, Codable {
    public var record: RunRecord
    public var config: APIJSONValue
    public var trades: [RunTrade]
    public var equity: [RunEquityPoint]

    /// - Throws: `APIJSONParseError` when a saved JSON text does not parse.
    public init(_ detail: StoredRunDetail) throws(APIJSONParseError) {
        record = try RunRecord(detail.run)
        config = try APIJSONValue.parse(detail.run.configJSON)
        var trades: [RunTrade] = []
        for t in detail.trades { trades.append(try RunTrade(t)) }
        self.trades = trades
        equity = detail.equity.map(RunEquityPoint.init)
    }

    enum CodingKeys: String, CodingKey { case config, trades, equity }

    public func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(config, forKey: .config)
        try c.encode(trades, forKey: .trades)
        try c.encode(equity, forKey: .equity)
    }

    public init(from decoder: any Decoder) throws {
        record = try RunRecord(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        config = try c.decode(APIJSONValue.self, forKey: .config)
        trades = try c.decode([RunTrade].self, forKey: .trades)
        equity = try c.decode([RunEquityPoint].self, forKey: .equity)
    }

    /// The run for a terminal: header, configuration, statistics (keys sorted; `config` is listed once, above),
    /// trades and a summary of the equity curve (first, last, low, high).
    public func table() -> String {
        let run = record
        var lines: [String] = []
        func pair(_ key: String, _ value: String) -> String { "  " + key.padding(toLength: 28, withPad: " ", startingAt: 0) + " " + value }
        lines.append("run \(run.id): \(run.strategy) on \(run.symbols.joined(separator: ","))")
        lines.append("  created            \(run.created)")
        if let label = run.label { lines.append("  label              \(label)") }
        lines.append("  period             \(run.period)")
        lines.append("  input fingerprint  \(run.inputFingerprint)")
        if let capital = run.initialCapital { lines.append("  initial capital    \(TextTable.fixed(capital, 2))") }
        if let equity = run.finalEquity { lines.append("  final equity       \(TextTable.fixed(equity, 2))") }
        lines.append("\nconfig")
        for field in config.fields.sorted(by: { $0.key < $1.key }) { lines.append(pair(field.key, RunCell.text(field.value))) }
        lines.append("\nstatistics")
        for field in run.statistics.fields.sorted(by: { $0.key < $1.key }) where field.key != "config" {
            lines.append(pair(field.key, RunCell.text(field.value)))
        }
        lines.append("\ntrades (\(trades.count))")
        if !trades.isEmpty {
            var rows = [["#", "symbol", "entry", "entry price", "exit", "exit price", "shares", "pnl", "pnl %", "exit reason"]]
            for (i, t) in trades.enumerated() {
                rows.append([
                    "\(i + 1)", t.symbol, t.entryTime.description, TextTable.fixed(t.entryPrice, 4),
                    t.exitTime?.description ?? "open", t.exitPrice.map { TextTable.fixed($0, 4) } ?? "-",
                    TextTable.fixed(t.shares, 4), t.pnl.map { TextTable.fixed($0, 2) } ?? "-",
                    t.pnlPercent.map { TextTable.fixed($0, 4) } ?? "-", t.exitReason ?? "-",
                ])
            }
            lines.append(TextTable.render(rows, rightAligned: [0, 3, 5, 6, 7, 8]))
        }
        lines.append("\nequity curve (\(equity.count) points)")
        if let first = equity.first, let last = equity.last,
            let low = equity.min(by: { $0.equity < $1.equity }), let high = equity.max(by: { $0.equity < $1.equity })
        {
            for (name, point) in [("first", first), ("last ", last), ("low  ", low), ("high ", high)] {
                lines.append("  \(name)  \(point.timestamp)  \(TextTable.fixed(point.equity, 2))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `sentio runs compare ID ID… --format json`: `{"runs", "statistics", "configDifferences"}`.
///
/// `statistics` maps each statistic key to one value per run (in `runs` order; `null` where a run lacks it):
/// the headline statistics first, then the other keys sorted (`config` is not a statistic: see
/// `configDifferences`). `configDifferences` maps each configuration key whose values are not all equal to one
/// value per run (`null` where absent), keys sorted.
public struct RunComparison: Sendable, Equatable, Codable {
    public var runs: [RunRecord]
    public var statistics: APIJSONValue
    public var configDifferences: APIJSONValue

    /// - Throws: `APIJSONParseError` when a saved JSON text does not parse.
    public init(_ stored: [StoredRun]) throws(APIJSONParseError) {
        let runs = try RunList(stored).runs
        var configs: [APIJSONValue] = []
        for run in stored { configs.append(try APIJSONValue.parse(run.configJSON)) }
        self.runs = runs
        let headlineKeys = RunRecord.headline.map(\.key)
        let allKeys = Set(runs.flatMap { $0.statistics.fields.map(\.key) }).subtracting(["config"])
        let statisticKeys = headlineKeys.filter(allKeys.contains) + allKeys.subtracting(headlineKeys).sorted()
        statistics = .object(statisticKeys.map { key in .init(key, .array(runs.map { $0.statistics[key] ?? .null })) })
        let configKeys = Set(configs.flatMap { $0.fields.map(\.key) }).sorted().filter { key in
            Set(configs.map { $0[key] ?? .null }).count > 1
        }
        configDifferences = .object(configKeys.map { key in .init(key, .array(configs.map { $0[key] ?? .null })) })
    }

    /// Statistics the comparison table shows, in order: (key of `BacktestSummary`, possibly nested with `.`,
    /// row label). The JSON form has every statistic.
    public static let tableStatistics: [(key: String, label: String)] = [
        ("totalReturnPercent", "total return %"), ("cagrPercent", "CAGR %"),
        ("annualizedVolatilityPercent", "volatility %"), ("sharpeRatio", "Sharpe"), ("sortinoRatio", "Sortino"),
        ("calmarRatio", "Calmar"), ("maxDrawdownPercent", "max drawdown %"), ("maxDrawdownDurationDays", "max DD days"),
        ("tradeCount", "closed trades"), ("winRatePercent", "win rate %"), ("profitFactor", "profit factor"),
        ("averageTradePercent", "avg trade %"), ("exposurePercent", "exposure %"), ("commissionsPaid", "commissions"),
        ("rejectedOrderCount", "rejected orders"), ("benchmark.symbol", "benchmark"), ("benchmark.alpha", "alpha"),
        ("benchmark.beta", "beta"), ("benchmark.informationRatio", "information ratio"),
    ]

    /// The comparison for a terminal: one column per run with the header rows (label, strategy, symbols, period,
    /// final equity), the statistics of ``tableStatistics`` (rounded; `-` where a run lacks one) and the
    /// configuration values that differ; every cell at most `RunCell.comparisonLimit` characters. Ends with a
    /// line pointing to `--format json` for the rest.
    public func table() -> String {
        let limit = RunCell.comparisonLimit
        func cell(_ value: APIJSONValue?) -> String { RunCell.shortened(RunCell.text(value), limit) }
        var rows = [[""] + runs.map { "run \($0.id)" }]
        rows.append(["label"] + runs.map { RunCell.shortened($0.label ?? "-", limit) })
        rows.append(["strategy"] + runs.map(\.strategy))
        rows.append(["symbols"] + runs.map { RunCell.shortened($0.abbreviatedSymbols, limit) })
        rows.append(["period"] + runs.map(\.period))
        rows.append(["final equity"] + runs.map { $0.finalEquity.map { TextTable.fixed($0, 2) } ?? "-" })
        for (key, label) in Self.tableStatistics {
            let values = runs.map { $0.statistics.value(at: key) }
            if values.allSatisfy({ $0 == nil || $0 == .null }) { continue }
            rows.append([label] + values.map { RunCell.rounded($0, limit) })
        }
        if !configDifferences.fields.isEmpty {
            rows.append([""] + runs.map { _ in "" })
            rows.append(["config (differences)"] + runs.map { _ in "" })
            for field in configDifferences.fields {
                guard case .array(let values) = field.value else { continue }
                rows.append(["  " + field.key] + values.map(cell))
            }
        }
        let keys = statistics.fields.count
        return TextTable.render(rows, rightAligned: Set(1..<rows[0].count))
            + "\n\n\(keys) statistics per run in all; `--format json` lists every one and the whole configuration."
    }
}

/// A signal saved in a store's signal history (`sentio signals --save`), as `sentio runs show --signals`
/// prints it. `price`, `confidence`, `stopLoss`, `takeProfit` and `details` are `null` when not saved.
public struct RunSignal: Sendable, Equatable, Codable {
    public var model: String
    public var symbol: String
    public var timestamp: APITimestamp
    public var signal: String
    public var price: Double?
    public var confidence: Double?
    public var stopLoss: Double?
    public var takeProfit: Double?
    public var details: APIJSONValue?

    /// - Throws: `APIJSONParseError` when the saved details are not JSON.
    public init(_ s: StoredSignal) throws(APIJSONParseError) {
        model = s.model
        symbol = s.symbol
        timestamp = APITimestamp(epochSeconds: s.timestamp)
        signal = s.signal
        price = s.price
        confidence = s.confidence
        stopLoss = s.stopLoss
        takeProfit = s.takeProfit
        details = try s.detailsJSON.map { text throws(APIJSONParseError) in try APIJSONValue.parse(text) }
    }
}

/// `sentio runs show --signals --format json`: `{"signals": [RunSignal]}` ordered by model, symbol and time.
public struct RunSignalList: Sendable, Equatable, Codable {
    public var signals: [RunSignal]

    /// - Throws: `APIJSONParseError` when saved details are not JSON.
    public init(_ stored: [StoredSignal]) throws(APIJSONParseError) {
        var signals: [RunSignal] = []
        for s in stored { signals.append(try RunSignal(s)) }
        self.signals = signals
    }

    /// The signals for a terminal: a count per model and symbol, then one row per signal (model, symbol, time,
    /// signal, price, confidence, stop loss, take profit; `-` where not saved); `no saved signals in PATH` when
    /// there are none.
    public func table(storePath: String) -> String {
        if signals.isEmpty { return "no saved signals in \(storePath)" }
        var rows = [["model", "symbol", "time", "signal", "price", "confidence", "stop loss", "take profit"]]
        for s in signals {
            rows.append([s.model, s.symbol, s.timestamp.description, s.signal,
                         s.price.map { TextTable.fixed($0, 4) } ?? "-", s.confidence.map { TextTable.fixed($0, 3) } ?? "-",
                         s.stopLoss.map { TextTable.fixed($0, 4) } ?? "-", s.takeProfit.map { TextTable.fixed($0, 4) } ?? "-"])
        }
        let symbols = Set(signals.map { "\($0.model)|\($0.symbol)" }).count
        return "\(signals.count) saved signal(s) for \(symbols) model/symbol pair(s) in \(storePath)\n\n"
            + TextTable.render(rows, rightAligned: [4, 5, 6, 7])
    }
}

/// A saved JSON value in a table cell.
enum RunCell {
    /// Longest compact JSON shown for an array or object; longer ones are summarized (`[12 items]`, `{14 keys}`).
    static let compactLimit = 60
    /// Longest label in `runs list`.
    static let labelLimit = 24
    /// Longest cell in `runs compare`'s table.
    static let comparisonLimit = 28

    /// `text` cut to `limit` characters, the last one `…` when cut.
    static func shortened(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// Numbers with 2 decimals (integers as they are), other values as ``text(_:)``, cut to `limit`.
    static func rounded(_ value: APIJSONValue?, _ limit: Int) -> String {
        if case .number(let x) = value, x != x.rounded() || abs(x) >= 1e15 { return TextTable.fixed(x, 2) }
        return shortened(text(value), limit)
    }

    /// `-` when absent or `null`; strings as they are; integral numbers without decimals, others with 4;
    /// arrays and objects as compact JSON up to ``compactLimit`` characters, else their size.
    static func text(_ value: APIJSONValue?) -> String {
        guard let value else { return "-" }
        switch value {
        case .null: return "-"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let x): return x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : TextTable.fixed(x, 4)
        case .string(let s): return s
        case .array(let items):
            let text = compact(value)
            return text.count <= compactLimit ? text : "[\(items.count) items]"
        case .object(let fields):
            let text = compact(value)
            return text.count <= compactLimit ? text : "{\(fields.count) keys}"
        }
    }

    static func compact(_ value: APIJSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let x): return x.description
        case .string(let s): return JSONText.quoted(s)
        case .array(let items): return "[" + items.map(compact).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { JSONText.quoted($0.key) + ":" + compact($0.value) }.joined(separator: ",") + "}"
        }
    }
}

extension APIJSONValue {
    /// The value at a dotted path of object keys (`benchmark.alpha`), `nil` when a step is missing.
    func value(at path: String) -> APIJSONValue? {
        var current: APIJSONValue? = self
        for key in path.split(separator: ".") { current = current?[String(key)] }
        return current
    }
}
