import Foundation
import GRDB

// One record type per table, as GRDB's "Recommended Practices for Designing Record Types" shows: a Codable struct
// whose coding keys are the column names, with its columns in a nested `Columns` enum derived from them. They are
// internal plumbing: the public API speaks in `StoredRun`, `InstrumentSummary`, `LiveJournalEvent`, ..., built from
// and into these records in one place each. (The account tables' records, `StoredUser` and the others in
// `SentioDatabase+Accounts.swift`, are public because the server uses them as they are.)
//
// The bar tables' hot paths bind and read columns through SQLite's C API instead, each saying why where it does it:
// `bars` (the import's insert loop and `loadBars`), the BLOB columns of `bar_blocks` (`writeBlocks`, `loadBlocks`),
// `live_inputs` (the journal's group commit and replay), and the run's equity curve insert.

/// A record that selects its columns by name, never `SELECT *`.
///
/// In a store whose schema was damaged (a changed byte in a column name), SQLite then fails with "no such column",
/// which the store reports as a damaged file, as it did when these requests were written as SQL; `SELECT *` would
/// return the damaged name and fail in the record's decoder instead.
protocol NamedColumnsRecord: TableRecord {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension NamedColumnsRecord {
    static var databaseSelection: [any SQLSelectable] { CodingKeys.allCases.map { Column($0.stringValue) } }
}

// MARK: - Market data (schema version 1)

/// A row of `instruments`: a symbol, its display name and the extent of its stored bars.
struct InstrumentRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "instruments"
    var symbol: String
    var name: String?
    var barCount: Int = 0
    var firstTimestamp: Int64?
    var lastTimestamp: Int64?
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case symbol, name, barCount = "bar_count", firstTimestamp = "first_timestamp", lastTimestamp = "last_timestamp"
        case updatedAt = "updated_at"
    }

    enum Columns {
        static let symbol = Column(CodingKeys.symbol)
        static let name = Column(CodingKeys.name)
        static let barCount = Column(CodingKeys.barCount)
        static let updatedAt = Column(CodingKeys.updatedAt)
    }

    var summary: InstrumentSummary {
        InstrumentSummary(
            symbol: symbol, name: name, barCount: barCount, firstTimestamp: firstTimestamp, lastTimestamp: lastTimestamp)
    }
}

/// A row of `imports`, the import log.
struct ImportLogRecord: Codable, FetchableRecord, MutablePersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "imports"
    var id: Int64?
    var path: String
    var fingerprint: String
    var symbol: String
    var rowCount: Int
    var inserted: Int
    var identical: Int
    var conflicts: Int
    var replaced: Int
    var firstTimestamp: Int64?
    var lastTimestamp: Int64?
    var importedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, path, fingerprint, symbol, rowCount = "row_count", inserted, identical, conflicts, replaced
        case firstTimestamp = "first_timestamp", lastTimestamp = "last_timestamp", importedAt = "imported_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var entry: ImportRecord {
        ImportRecord(
            id: id ?? 0, path: path, fingerprint: fingerprint, symbol: symbol, rowCount: rowCount, inserted: inserted,
            identical: identical, conflicts: conflicts, replaced: replaced, importedAt: importedAt)
    }
}

/// A row of `bar_blocks` with its column BLOBs (little-endian Int64 timestamps, IEEE-754 doubles).
///
/// Loads and writes of blocks go through SQLite's C API (`loadBlocks`, `writeBlocks`): they copy the BLOBs straight
/// into and out of the series' arrays. This record serves the rare paths (the version-3 migration).
struct BarBlockRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "bar_blocks"
    var symbol: String
    var firstTimestamp: Int64
    var lastTimestamp: Int64
    var rowCount: Int
    var timestamps: Data
    var open: Data
    var high: Data
    var low: Data
    var close: Data
    var volume: Data
    /// Since schema version 3; `nil` for a block that disagreed with the `bars` table when it was migrated.
    var checksum: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case symbol, firstTimestamp = "first_timestamp", lastTimestamp = "last_timestamp", rowCount = "row_count"
        case timestamps, open, high, low, close, volume, checksum
    }

    enum Columns {
        static let symbol = Column(CodingKeys.symbol)
        static let firstTimestamp = Column(CodingKeys.firstTimestamp)
        static let lastTimestamp = Column(CodingKeys.lastTimestamp)
        static let rowCount = Column(CodingKeys.rowCount)
        static let checksum = Column(CodingKeys.checksum)
    }

    /// The row of `symbol`'s block that starts at `first`.
    static func block(symbol: String, first: Int64) -> QueryInterfaceRequest<Self> {
        filter(Columns.symbol == symbol && Columns.firstTimestamp == first)
    }
}

/// The key of a `bar_blocks` row and its bar count, without the BLOBs (the block index).
struct BarBlockKey: Decodable, FetchableRecord, NamedColumnsRecord {
    static let databaseTableName = BarBlockRecord.databaseTableName
    var symbol: String
    var first: Int64
    var last: Int64
    var rows: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case symbol, first = "first_timestamp", last = "last_timestamp", rows = "row_count"
    }
}

extension DerivableRequest<BarBlockKey> {
    /// The blocks of `symbol`, oldest first.
    func blocks(of symbol: String) -> Self {
        filter(BarBlockRecord.Columns.symbol == symbol).order(BarBlockRecord.Columns.firstTimestamp)
    }
}

// MARK: - Runs, signals and funds (schema version 2)

/// A row of `runs`: a backtest run's header.
struct RunHeaderRecord: Codable, FetchableRecord, MutablePersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "runs"
    var id: Int64?
    var createdAt: Int64
    var strategy: String
    var label: String?
    /// The symbols joined by commas.
    var symbols: String
    var startTimestamp: Int64?
    var endTimestamp: Int64?
    var initialCapital: Double?
    var finalEquity: Double?
    var tradeCount: Int
    var equityPointCount: Int
    var inputFingerprint: String
    var configJSON: String
    var statisticsJSON: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, createdAt = "created_at", strategy, label, symbols, startTimestamp = "start_timestamp"
        case endTimestamp = "end_timestamp", initialCapital = "initial_capital", finalEquity = "final_equity"
        case tradeCount = "trade_count", equityPointCount = "equity_point_count"
        case inputFingerprint = "input_fingerprint", configJSON = "config_json", statisticsJSON = "statistics_json"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var run: StoredRun {
        var run = StoredRun(
            strategy: strategy, symbols: symbols.isEmpty ? [] : symbols.split(separator: ",").map(String.init),
            configJSON: configJSON, statisticsJSON: statisticsJSON, inputFingerprint: inputFingerprint, label: label,
            startTimestamp: startTimestamp, endTimestamp: endTimestamp, initialCapital: initialCapital,
            finalEquity: finalEquity, createdAt: createdAt)
        run.id = id
        run.tradeCount = tradeCount
        run.equityPointCount = equityPointCount
        return run
    }
}

extension RunHeaderRecord {
    /// A new row for `run` (its `id`, if any, is ignored: the store assigns one).
    init(_ run: StoredRun, tradeCount: Int, equityPointCount: Int) {
        self.init(
            createdAt: run.createdAt, strategy: run.strategy, label: run.label, symbols: run.symbols.joined(separator: ","),
            startTimestamp: run.startTimestamp, endTimestamp: run.endTimestamp, initialCapital: run.initialCapital,
            finalEquity: run.finalEquity, tradeCount: tradeCount, equityPointCount: equityPointCount,
            inputFingerprint: run.inputFingerprint, configJSON: run.configJSON, statisticsJSON: run.statisticsJSON)
    }
}

/// A row of `run_trades`: one trade of a run, at its position `seq` (0, 1, ...).
struct RunTradeRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "run_trades"
    var runID: Int64
    var seq: Int
    var symbol: String
    var entryTimestamp: Int64
    var entryPrice: Double
    var exitTimestamp: Int64?
    var exitPrice: Double?
    var shares: Double
    var pnl: Double?
    var pnlPercent: Double?
    var commission: Double
    var signalType: String?
    var exitReason: String?
    var detailsJSON: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case runID = "run_id", seq, symbol, entryTimestamp = "entry_timestamp", entryPrice = "entry_price"
        case exitTimestamp = "exit_timestamp", exitPrice = "exit_price", shares, pnl, pnlPercent = "pnl_percent"
        case commission, signalType = "signal_type", exitReason = "exit_reason", detailsJSON = "details_json"
    }

    enum Columns {
        static let runID = Column(CodingKeys.runID)
        static let seq = Column(CodingKeys.seq)
    }

    var trade: StoredTrade {
        StoredTrade(
            symbol: symbol, entryTimestamp: entryTimestamp, entryPrice: entryPrice, exitTimestamp: exitTimestamp,
            exitPrice: exitPrice, shares: shares, pnl: pnl, pnlPercent: pnlPercent, commission: commission,
            signalType: signalType, exitReason: exitReason, detailsJSON: detailsJSON)
    }
}

extension RunTradeRecord {
    init(runID: Int64, seq: Int, _ trade: StoredTrade) {
        self.init(
            runID: runID, seq: seq, symbol: trade.symbol, entryTimestamp: trade.entryTimestamp, entryPrice: trade.entryPrice,
            exitTimestamp: trade.exitTimestamp, exitPrice: trade.exitPrice, shares: trade.shares, pnl: trade.pnl,
            pnlPercent: trade.pnlPercent, commission: trade.commission, signalType: trade.signalType,
            exitReason: trade.exitReason, detailsJSON: trade.detailsJSON)
    }
}

/// A row of `run_equity`: one point of a run's equity curve. Inserted through SQLite's C API (`saveRun`).
struct RunEquityRecord: Codable, FetchableRecord, TableRecord, NamedColumnsRecord {
    static let databaseTableName = "run_equity"
    var runID: Int64
    var timestamp: Int64
    var equity: Double
    var cash: Double?
    var contribution: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case runID = "run_id", timestamp, equity, cash, contribution }

    enum Columns {
        static let runID = Column(CodingKeys.runID)
        static let timestamp = Column(CodingKeys.timestamp)
    }

    var point: StoredEquityPoint {
        StoredEquityPoint(timestamp: timestamp, equity: equity, cash: cash, contribution: contribution)
    }
}

/// A row of `signal_history`.
struct SignalRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "signal_history"
    var model: String
    var symbol: String
    var timestamp: Int64
    var signal: String
    var price: Double?
    var confidence: Double?
    var stopLoss: Double?
    var takeProfit: Double?
    var detailsJSON: String?
    var savedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case model, symbol, timestamp, signal, price, confidence, stopLoss = "stop_loss", takeProfit = "take_profit"
        case detailsJSON = "details_json", savedAt = "saved_at"
    }

    enum Columns {
        static let model = Column(CodingKeys.model)
        static let symbol = Column(CodingKeys.symbol)
        static let timestamp = Column(CodingKeys.timestamp)
    }

    var stored: StoredSignal {
        StoredSignal(
            model: model, symbol: symbol, timestamp: timestamp, signal: signal, price: price, confidence: confidence,
            stopLoss: stopLoss, takeProfit: takeProfit, detailsJSON: detailsJSON)
    }
}

extension SignalRecord {
    init(_ s: StoredSignal, savedAt: Int64) {
        self.init(
            model: s.model, symbol: s.symbol, timestamp: s.timestamp, signal: s.signal, price: s.price,
            confidence: s.confidence, stopLoss: s.stopLoss, takeProfit: s.takeProfit, detailsJSON: s.detailsJSON,
            savedAt: savedAt)
    }
}

/// A row of `fund_events`, as text: dates `YYYY-MM-DD`, the amount as exact decimal text (see `StoredFundEvent`).
struct FundEventRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "fund_events"
    var fundID: String
    var seq: Int
    var date: String
    var type: String
    var amount: String
    var dueDate: String?
    var status: String?
    var detailsJSON: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case fundID = "fund_id", seq, date, type, amount, dueDate = "due_date", status, detailsJSON = "details_json"
    }

    enum Columns {
        static let fundID = Column(CodingKeys.fundID)
        static let seq = Column(CodingKeys.seq)
    }

}

extension FundEventRecord {
    init(_ event: StoredFundEvent, seq: Int) {
        self.init(
            fundID: event.fundID, seq: seq, date: event.date.description, type: event.kind.rawValue,
            amount: event.amount.description, dueDate: event.dueDate?.description, status: event.status?.rawValue,
            detailsJSON: event.storedDetails())
    }
}

/// A row of `fund_metadata`.
struct FundMetadataRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "fund_metadata"
    var fundID: String
    var name: String?
    var manager: String?
    var domicile: String?
    var vintage: Int?
    var detailsJSON: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case fundID = "fund_id", name, manager, domicile, vintage, detailsJSON = "details_json"
    }

    enum Columns {
        static let fundID = Column(CodingKeys.fundID)
    }

    var stored: StoredFundMetadata {
        StoredFundMetadata(
            fundID: fundID, name: name, manager: manager, domicile: domicile, vintage: vintage, detailsJSON: detailsJSON)
    }
}

extension FundMetadataRecord {
    init(_ m: StoredFundMetadata) {
        self.init(
            fundID: m.fundID, name: m.name, manager: m.manager, domicile: m.domicile, vintage: m.vintage,
            detailsJSON: m.detailsJSON)
    }
}

// MARK: - Live journal (schema version 4)

/// The row of `live_session` (there is at most one, id 1).
struct LiveSessionRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "live_session"
    var id: Int64 = 1
    var configurationJSON: String
    var startedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable { case id, configurationJSON = "configuration_json", startedAt = "started_at" }

    enum Columns {
        static let configurationJSON = Column(CodingKeys.configurationJSON)
        static let startedAt = Column(CodingKeys.startedAt)
    }
}

/// A row of `live_symbols`: a symbol's small id and the latest timestamp journaled for it.
struct LiveSymbolRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "live_symbols"
    var id: Int64
    var symbol: String
    var lastTimestamp: Int64

    enum CodingKeys: String, CodingKey, CaseIterable { case id, symbol, lastTimestamp = "last_timestamp" }
}

/// The bar values of a row of `live_inputs` (all `nil` for a step closed by the grace delay).
///
/// The journal writes and replays inputs through SQLite's C API (`LiveJournal.commit`, `forEachInput`): one
/// prepared statement bound column by column, no allocation per bar. This record serves the duplicate check.
struct LiveInputRecord: Decodable, FetchableRecord, NamedColumnsRecord {
    static let databaseTableName = "live_inputs"
    var open: Double?
    var high: Double?
    var low: Double?
    var close: Double?
    var volume: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case open, high, low, close, volume }

    enum Columns {
        static let symbolID = Column("symbol_id")
        static let timestamp = Column("timestamp")
    }
}

/// A row of `live_events`: an order, fill or rejection as emitted.
struct LiveEventRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "live_events"
    var seq: Int64
    var inputSeq: Int64
    var type: String
    var eventJSON: String

    enum CodingKeys: String, CodingKey, CaseIterable { case seq, inputSeq = "input_seq", type, eventJSON = "event_json" }

    enum Columns {
        static let seq = Column(CodingKeys.seq)
    }

    var event: LiveJournalEvent { LiveJournalEvent(seq: seq, inputSeq: inputSeq, type: type, json: eventJSON) }
}

/// A row of `live_snapshots`: an engine state covering inputs `1...inputSeq`.
struct LiveSnapshotRecord: Codable, FetchableRecord, PersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "live_snapshots"
    var inputSeq: Int64
    var state: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable { case inputSeq = "input_seq", state, createdAt = "created_at" }

    enum Columns {
        static let inputSeq = Column(CodingKeys.inputSeq)
    }
}

// MARK: - Sweeps (schema version 5)

/// A row of `sweeps`.
struct SweepRecord: Codable, FetchableRecord, MutablePersistableRecord, NamedColumnsRecord {
    static let databaseTableName = "sweeps"
    var id: Int64?
    var createdAt: Int64
    var label: String?
    var strategy: String
    var metric: String
    var combinations: Int
    var rowCount: Int
    /// The symbols joined by commas.
    var symbols: String
    var startTimestamp: Int64
    var endTimestamp: Int64
    var outputJSON: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, createdAt = "created_at", label, strategy, metric, combinations, rowCount = "row_count", symbols
        case startTimestamp = "start_timestamp", endTimestamp = "end_timestamp", outputJSON = "output_json"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var sweep: StoredSweep {
        StoredSweep(
            id: id, createdAt: createdAt, label: label, strategy: strategy, metric: metric, combinations: combinations,
            rowCount: rowCount, symbols: symbols.isEmpty ? [] : symbols.split(separator: ",").map(String.init),
            startTimestamp: startTimestamp, endTimestamp: endTimestamp, outputJSON: outputJSON)
    }
}

extension SweepRecord {
    /// A new row for `sweep` (its `id`, if any, is ignored: the store assigns one).
    init(_ sweep: StoredSweep) {
        self.init(
            createdAt: sweep.createdAt, label: sweep.label, strategy: sweep.strategy, metric: sweep.metric,
            combinations: sweep.combinations, rowCount: sweep.rowCount, symbols: sweep.symbols.joined(separator: ","),
            startTimestamp: sweep.startTimestamp, endTimestamp: sweep.endTimestamp, outputJSON: sweep.outputJSON)
    }
}
