import Foundation
import GRDB
import GRDBSQLite
import SentioCore

extension SentioDatabase {
    /// Records a run with its trades and equity curve in one transaction and returns its id.
    ///
    /// Killed mid-way, the store holds the whole run or nothing of it. Trades keep the given order (`seq` 0...);
    /// equity timestamps must be strictly increasing. `configJSON` and `statisticsJSON` are kept byte for byte as
    /// given (checked to be JSON objects, never re-encoded), so a run saved with the text a front end printed
    /// (SentioApplication's `BacktestRunReport.storedRun`) reads back as the same bytes.
    ///
    /// - Throws: `StoreError.invalidRecord` when the JSON texts are not JSON objects, an equity timestamp does not
    ///   increase, or a number is NaN where the schema needs one; other `StoreError`s for database problems.
    @discardableResult
    public func saveRun(_ run: StoredRun, trades: [StoredTrade], equity: [StoredEquityPoint]) throws -> Int64 {
        try Self.validate(run, trades: trades, equity: equity)
        return try withStoreErrors {
            try pool.write { db in
                var header = RunHeaderRecord(run, tradeCount: trades.count, equityPointCount: equity.count)
                try header.insert(db)
                let runID = header.id!
                for (seq, trade) in trades.enumerated() {
                    try RunTradeRecord(runID: runID, seq: seq, trade).insert(db)
                }
                let insertPoint = try db.makeStatement(
                    sql: "INSERT INTO run_equity (run_id, timestamp, equity, cash, contribution) VALUES (?, ?, ?, ?, ?)")
                // Equity curves run to a point per bar: bind raw values through SQLite's C API, no per-point record
                // or argument array (`RunEquityRecord` reads them back).
                let handle = insertPoint.sqliteStatement
                sqlite3_bind_int64(handle, 1, runID)
                for point in equity {
                    sqlite3_bind_int64(handle, 2, point.timestamp)
                    sqlite3_bind_double(handle, 3, point.equity)
                    if let cash = point.cash { sqlite3_bind_double(handle, 4, cash) } else { sqlite3_bind_null(handle, 4) }
                    if let contribution = point.contribution {
                        sqlite3_bind_double(handle, 5, contribution)
                    } else {
                        sqlite3_bind_null(handle, 5)
                    }
                    let code = sqlite3_step(handle)
                    sqlite3_reset(handle)
                    if code != SQLITE_DONE {
                        throw DatabaseError(
                            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                    }
                }
                return runID
            }
        }
    }

    private static func validate(_ run: StoredRun, trades: [StoredTrade], equity: [StoredEquityPoint]) throws {
        func invalid(_ detail: String) -> StoreError { .invalidRecord(kind: "run", detail: detail) }
        if run.strategy.isEmpty { throw invalid("empty strategy name") }
        if !isJSONObject(run.configJSON) { throw invalid("config is not a JSON object: \(run.configJSON.prefix(80))") }
        if !isJSONObject(run.statisticsJSON) {
            throw invalid("statistics is not a JSON object: \(run.statisticsJSON.prefix(80))")
        }
        for (i, trade) in trades.enumerated() {
            if !trade.entryPrice.isFinite || !trade.shares.isFinite || !trade.commission.isFinite {
                throw invalid("trade \(i) (\(trade.symbol)) has a non-finite entry price, shares or commission")
            }
            if let details = trade.detailsJSON, !isJSONObject(details) {
                throw invalid("trade \(i) details are not a JSON object")
            }
        }
        for i in equity.indices {
            if !equity[i].equity.isFinite { throw invalid("equity point \(i) is \(equity[i].equity)") }
            if i > 0 && equity[i].timestamp <= equity[i - 1].timestamp {
                throw invalid(
                    "equity timestamps not strictly increasing at point \(i) (\(equity[i - 1].timestamp) then \(equity[i].timestamp))")
            }
        }
    }

    /// Every saved run's header, oldest first (no trades or equity).
    public func runs() throws -> [StoredRun] {
        try withStoreErrors {
            try pool.read { db in try RunHeaderRecord.order(RunHeaderRecord.Columns.id).fetchAll(db).map(\.run) }
        }
    }

    /// One run with its trades (in saved order) and equity curve.
    ///
    /// - Throws: `StoreError.runNotFound` for an unknown id.
    public func run(id: Int64) throws -> StoredRunDetail {
        try withStoreErrors {
            try pool.read { db in
                guard let header = try RunHeaderRecord.fetchOne(db, key: id) else {
                    throw StoreError.runNotFound(id: id, path: path)
                }
                let trades = try RunTradeRecord.filter(RunTradeRecord.Columns.runID == id)
                    .order(RunTradeRecord.Columns.seq).fetchAll(db)
                let equity = try RunEquityRecord.filter(RunEquityRecord.Columns.runID == id)
                    .order(RunEquityRecord.Columns.timestamp).fetchAll(db)
                return StoredRunDetail(run: header.run, trades: trades.map(\.trade), equity: equity.map(\.point))
            }
        }
    }

    /// Deletes a run with its trades and equity curve (cascading foreign keys).
    ///
    /// - Throws: `StoreError.runNotFound` for an unknown id.
    public func deleteRun(id: Int64) throws {
        try withStoreErrors {
            try pool.write { db in
                if try !RunHeaderRecord.deleteOne(db, key: id) { throw StoreError.runNotFound(id: id, path: path) }
            }
        }
    }

    // MARK: - Signals

    /// Saves signals in one transaction; a signal with the same `(model, symbol, timestamp)` as a stored one
    /// replaces it. Returns how many were written.
    @discardableResult
    public func saveSignals(_ signals: [StoredSignal]) throws -> Int {
        for (i, signal) in signals.enumerated() {
            if signal.model.isEmpty || signal.symbol.isEmpty || signal.signal.isEmpty {
                throw StoreError.invalidRecord(kind: "signal", detail: "signal \(i) has an empty model, symbol or signal")
            }
            if let details = signal.detailsJSON, !isJSONObject(details) {
                throw StoreError.invalidRecord(kind: "signal", detail: "signal \(i) details are not a JSON object")
            }
        }
        return try withStoreErrors {
            try pool.write { db in
                let now = Int64(Date().timeIntervalSince1970)
                // On a stored `(model, symbol, timestamp)` the row is replaced, which overwrites every other column
                // (GRDB's `upsert` returns the rowid, which this WITHOUT ROWID table does not have).
                for signal in signals { try SignalRecord(signal, savedAt: now).insert(db, onConflict: .replace) }
                return signals.count
            }
        }
    }

    /// Stored signals, ordered by model, symbol and time; each filter is optional, the time bounds inclusive.
    public func loadSignals(
        model: String? = nil, symbols: [String]? = nil, from: Int64? = nil, to: Int64? = nil
    ) throws -> [StoredSignal] {
        try withStoreErrors {
            try pool.read { db in
                typealias Columns = SignalRecord.Columns
                var request = SignalRecord.filter(Columns.timestamp >= from ?? Int64.min && Columns.timestamp <= to ?? Int64.max)
                if let model { request = request.filter(Columns.model == model) }
                if let symbols { request = request.filter(symbols.contains(Columns.symbol)) }
                return try request.order(Columns.model, Columns.symbol, Columns.timestamp).fetchAll(db).map(\.stored)
            }
        }
    }

    // MARK: - Funds

    /// Saves fund events and metadata in one transaction.
    ///
    /// A fund's event history is saved as a whole: for every fund id present in `events`, the stored events of
    /// that fund are replaced by the given ones (kept in the given order). Metadata rows replace stored metadata
    /// of the same fund id. Funds not mentioned are untouched.
    ///
    /// - Throws: `StoreError.invalidRecord` for an empty fund id, a negative or non-finite amount, or details that
    ///   are not a JSON object.
    public func saveFundEvents(_ events: [StoredFundEvent], metadata: [StoredFundMetadata] = []) throws {
        for (i, event) in events.enumerated() {
            if event.fundID.isEmpty {
                throw StoreError.invalidRecord(kind: "fund event", detail: "event \(i) has an empty fund id")
            }
            if event.amount.isNaN || event.amount < 0 {
                throw StoreError.invalidRecord(
                    kind: "fund event", detail: "event \(i) of fund \(event.fundID) has amount \(event.amount) (must be >= 0)")
            }
            if let details = event.detailsJSON {
                guard let object = (try? JSONSerialization.jsonObject(with: Data(details.utf8))) as? [String: Any] else {
                    throw StoreError.invalidRecord(kind: "fund event", detail: "event \(i) details are not a JSON object")
                }
                if let key = object.keys.sorted().first(where: StoredFundEvent.typedDetailKeys.contains) {
                    throw StoreError.invalidRecord(kind: "fund event",
                        detail: "event \(i) details hold the key '\(key)', which is a field of its own (paymentDate, url)")
                }
            }
            if event.paymentDate != nil && event.kind != .call {
                throw StoreError.invalidRecord(
                    kind: "fund event", detail: "event \(i) of fund \(event.fundID) is a \(event.kind.rawValue) with a payment date (calls only)")
            }
        }
        for entry in metadata {
            if entry.fundID.isEmpty { throw StoreError.invalidRecord(kind: "fund metadata", detail: "empty fund id") }
            if let details = entry.detailsJSON, !isJSONObject(details) {
                throw StoreError.invalidRecord(kind: "fund metadata", detail: "details of \(entry.fundID) are not a JSON object")
            }
        }
        try withStoreErrors {
            try pool.write { db in
                var seqByFund: [String: Int] = [:]
                for fundID in Set(events.map(\.fundID)) {
                    try FundEventRecord.filter(FundEventRecord.Columns.fundID == fundID).deleteAll(db)
                    seqByFund[fundID] = 0
                }
                for event in events {
                    let seq = seqByFund[event.fundID, default: 0]
                    seqByFund[event.fundID] = seq + 1
                    try FundEventRecord(event, seq: seq).insert(db)
                }
                for entry in metadata { try FundMetadataRecord(entry).upsert(db) }
            }
        }
    }

    /// Stored fund events, by fund id and then in saved order; `fundIDs` nil means all funds.
    public func loadFundEvents(fundIDs: [String]? = nil) throws -> [StoredFundEvent] {
        try withStoreErrors {
            try pool.read { db in
                typealias Columns = FundEventRecord.Columns
                var request = FundEventRecord.all()
                if let fundIDs { request = request.filter(fundIDs.contains(Columns.fundID)) }
                return try request.order(Columns.fundID, Columns.seq).fetchAll(db).map { row in
                    let fundID = row.fundID
                    func date(_ text: String?, _ column: String) throws -> CivilDate? {
                        guard let text else { return nil }
                        guard let date = CivilDate(iso: text) else {
                            throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an invalid \(column) '\(text)'")
                        }
                        return date
                    }
                    guard let amount = Decimal(string: row.amount, locale: Locale(identifier: "en_US_POSIX")),
                        let kind = StoredFundEvent.Kind(rawValue: row.type)
                    else {
                        throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an unreadable event")
                    }
                    // `payment_date` and `url` live in details_json (see StoredFundEvent); the rest stays there.
                    var paymentDate: CivilDate? = nil, url: String? = nil, details = row.detailsJSON
                    if let text = details, var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                        !StoredFundEvent.typedDetailKeys.isDisjoint(with: object.keys)
                    {
                        if let value = object.removeValue(forKey: "payment_date") {
                            guard let text = value as? String, let parsed = CivilDate(iso: text) else {
                                throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an invalid payment_date '\(value)'")
                            }
                            paymentDate = parsed
                        }
                        if let value = object.removeValue(forKey: "url") {
                            guard let text = value as? String, !text.isEmpty else {
                                throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an invalid url '\(value)'")
                            }
                            url = text
                        }
                        details = object.isEmpty ? nil : String(decoding: try JSONSerialization.data(
                            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
                    }
                    return StoredFundEvent(
                        fundID: fundID, date: try date(row.date, "date")!, kind: kind, amount: amount,
                        dueDate: try date(row.dueDate, "due_date"), status: row.status.flatMap(StoredFundEvent.Status.init(rawValue:)),
                        paymentDate: paymentDate, url: url, detailsJSON: details)
                }
            }
        }
    }

    /// Stored fund metadata, sorted by fund id.
    public func loadFundMetadata() throws -> [StoredFundMetadata] {
        try withStoreErrors {
            try pool.read { db in
                try FundMetadataRecord.order(FundMetadataRecord.Columns.fundID).fetchAll(db).map(\.stored)
            }
        }
    }
}
