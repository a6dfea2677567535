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
    /// (SentioAPI's `BacktestRunReport.storedRun`) reads back as the same bytes.
    ///
    /// - Throws: `StoreError.invalidRecord` when the JSON texts are not JSON objects, an equity timestamp does not
    ///   increase, or a number is NaN where the schema needs one; other `StoreError`s for database problems.
    @discardableResult
    public func saveRun(_ run: StoredRun, trades: [StoredTrade], equity: [StoredEquityPoint]) throws -> Int64 {
        try Self.validate(run, trades: trades, equity: equity)
        return try withStoreErrors {
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO runs (created_at, strategy, label, symbols, start_timestamp, end_timestamp,
                                          initial_capital, final_equity, trade_count, equity_point_count,
                                          input_fingerprint, config_json, statistics_json)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        run.createdAt, run.strategy, run.label, run.symbols.joined(separator: ","),
                        run.startTimestamp, run.endTimestamp, run.initialCapital, run.finalEquity, trades.count,
                        equity.count, run.inputFingerprint, run.configJSON, run.statisticsJSON,
                    ])
                let runID = db.lastInsertedRowID
                let insertTrade = try db.makeStatement(
                    sql: """
                        INSERT INTO run_trades (run_id, seq, symbol, entry_timestamp, entry_price, exit_timestamp,
                                                exit_price, shares, pnl, pnl_percent, commission, signal_type,
                                                exit_reason, details_json)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for (seq, trade) in trades.enumerated() {
                    try insertTrade.execute(arguments: [
                        runID, seq, trade.symbol, trade.entryTimestamp, trade.entryPrice, trade.exitTimestamp,
                        trade.exitPrice, trade.shares, trade.pnl, trade.pnlPercent, trade.commission,
                        trade.signalType, trade.exitReason, trade.detailsJSON,
                    ])
                }
                let insertPoint = try db.makeStatement(
                    sql: "INSERT INTO run_equity (run_id, timestamp, equity, cash, contribution) VALUES (?, ?, ?, ?, ?)")
                // Equity curves run to a point per bar: bind raw values, no per-point argument arrays.
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
            try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM runs ORDER BY id").map(Self.run(from:)) }
        }
    }

    /// One run with its trades (in saved order) and equity curve.
    ///
    /// - Throws: `StoreError.runNotFound` for an unknown id.
    public func run(id: Int64) throws -> StoredRunDetail {
        try withStoreErrors {
            try pool.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM runs WHERE id = ?", arguments: [id]) else {
                    throw StoreError.runNotFound(id: id, path: path)
                }
                let trades = try Row.fetchAll(
                    db, sql: "SELECT * FROM run_trades WHERE run_id = ? ORDER BY seq", arguments: [id]
                ).map { row in
                    StoredTrade(
                        symbol: row["symbol"], entryTimestamp: row["entry_timestamp"], entryPrice: row["entry_price"],
                        exitTimestamp: row["exit_timestamp"], exitPrice: row["exit_price"], shares: row["shares"],
                        pnl: row["pnl"], pnlPercent: row["pnl_percent"], commission: row["commission"],
                        signalType: row["signal_type"], exitReason: row["exit_reason"], detailsJSON: row["details_json"])
                }
                let equity = try Row.fetchAll(
                    db, sql: "SELECT timestamp, equity, cash, contribution FROM run_equity WHERE run_id = ? ORDER BY timestamp",
                    arguments: [id]
                ).map {
                    StoredEquityPoint(
                        timestamp: $0["timestamp"], equity: $0["equity"], cash: $0["cash"], contribution: $0["contribution"])
                }
                return StoredRunDetail(run: try Self.run(from: row), trades: trades, equity: equity)
            }
        }
    }

    /// Deletes a run with its trades and equity curve (cascading foreign keys).
    ///
    /// - Throws: `StoreError.runNotFound` for an unknown id.
    public func deleteRun(id: Int64) throws {
        try withStoreErrors {
            try pool.write { db in
                try db.execute(sql: "DELETE FROM runs WHERE id = ?", arguments: [id])
                if db.changesCount == 0 { throw StoreError.runNotFound(id: id, path: path) }
            }
        }
    }

    private static func run(from row: Row) throws -> StoredRun {
        let symbols: String = row["symbols"]
        var run = StoredRun(
            strategy: row["strategy"], symbols: symbols.isEmpty ? [] : symbols.split(separator: ",").map(String.init),
            configJSON: row["config_json"], statisticsJSON: row["statistics_json"],
            inputFingerprint: row["input_fingerprint"], label: row["label"], startTimestamp: row["start_timestamp"],
            endTimestamp: row["end_timestamp"], initialCapital: row["initial_capital"], finalEquity: row["final_equity"],
            createdAt: row["created_at"])
        run.id = row["id"]
        run.tradeCount = row["trade_count"]
        run.equityPointCount = row["equity_point_count"]
        return run
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
                let upsert = try db.makeStatement(
                    sql: """
                        INSERT INTO signal_history (model, symbol, timestamp, signal, price, confidence, stop_loss,
                                                    take_profit, details_json, saved_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (model, symbol, timestamp) DO UPDATE SET
                            signal = excluded.signal, price = excluded.price, confidence = excluded.confidence,
                            stop_loss = excluded.stop_loss, take_profit = excluded.take_profit,
                            details_json = excluded.details_json, saved_at = excluded.saved_at
                        """)
                for signal in signals {
                    try upsert.execute(arguments: [
                        signal.model, signal.symbol, signal.timestamp, signal.signal, signal.price, signal.confidence,
                        signal.stopLoss, signal.takeProfit, signal.detailsJSON, now,
                    ])
                }
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
                var conditions = ["timestamp BETWEEN ? AND ?"]
                var arguments: StatementArguments = [from ?? Int64.min, to ?? Int64.max]
                if let model {
                    conditions.append("model = ?")
                    arguments += [model]
                }
                if let symbols {
                    conditions.append("symbol IN (\(Array(repeating: "?", count: symbols.count).joined(separator: ", ")))")
                    arguments += StatementArguments(symbols)
                }
                let sql = "SELECT * FROM signal_history WHERE \(conditions.joined(separator: " AND ")) ORDER BY model, symbol, timestamp"
                return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                    StoredSignal(
                        model: row["model"], symbol: row["symbol"], timestamp: row["timestamp"], signal: row["signal"],
                        price: row["price"], confidence: row["confidence"], stopLoss: row["stop_loss"],
                        takeProfit: row["take_profit"], detailsJSON: row["details_json"])
                }
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
                    try db.execute(sql: "DELETE FROM fund_events WHERE fund_id = ?", arguments: [fundID])
                    seqByFund[fundID] = 0
                }
                let insert = try db.makeStatement(
                    sql: """
                        INSERT INTO fund_events (fund_id, seq, date, type, amount, due_date, status, details_json)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for event in events {
                    let seq = seqByFund[event.fundID, default: 0]
                    seqByFund[event.fundID] = seq + 1
                    try insert.execute(arguments: [
                        event.fundID, seq, event.date.description, event.kind.rawValue, event.amount.description,
                        event.dueDate?.description, event.status?.rawValue, event.storedDetails(),
                    ])
                }
                let upsert = try db.makeStatement(
                    sql: """
                        INSERT INTO fund_metadata (fund_id, name, manager, domicile, vintage, details_json)
                        VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (fund_id) DO UPDATE SET name = excluded.name, manager = excluded.manager,
                            domicile = excluded.domicile, vintage = excluded.vintage, details_json = excluded.details_json
                        """)
                for entry in metadata {
                    try upsert.execute(arguments: [
                        entry.fundID, entry.name, entry.manager, entry.domicile, entry.vintage, entry.detailsJSON,
                    ])
                }
            }
        }
    }

    /// Stored fund events, by fund id and then in saved order; `fundIDs` nil means all funds.
    public func loadFundEvents(fundIDs: [String]? = nil) throws -> [StoredFundEvent] {
        try withStoreErrors {
            try pool.read { db in
                var sql = "SELECT * FROM fund_events"
                var arguments = StatementArguments()
                if let fundIDs {
                    sql += " WHERE fund_id IN (\(Array(repeating: "?", count: fundIDs.count).joined(separator: ", ")))"
                    arguments = StatementArguments(fundIDs)
                }
                sql += " ORDER BY fund_id, seq"
                return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                    let fundID: String = row["fund_id"]
                    func date(_ column: String) throws -> CivilDate? {
                        guard let text: String = row[column] else { return nil }
                        guard let date = CivilDate(iso: text) else {
                            throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an invalid \(column) '\(text)'")
                        }
                        return date
                    }
                    let amountText: String = row["amount"]
                    guard let amount = Decimal(string: amountText, locale: Locale(identifier: "en_US_POSIX")),
                        let kind = StoredFundEvent.Kind(rawValue: row["type"])
                    else {
                        throw StoreError.corrupt(path: path, detail: "fund \(fundID) has an unreadable event")
                    }
                    let statusText: String? = row["status"]
                    // `payment_date` and `url` live in details_json (see StoredFundEvent); the rest stays there.
                    var paymentDate: CivilDate? = nil, url: String? = nil, details: String? = row["details_json"]
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
                        fundID: fundID, date: try date("date")!, kind: kind, amount: amount,
                        dueDate: try date("due_date"), status: statusText.flatMap(StoredFundEvent.Status.init(rawValue:)),
                        paymentDate: paymentDate, url: url, detailsJSON: details)
                }
            }
        }
    }

    /// Stored fund metadata, sorted by fund id.
    public func loadFundMetadata() throws -> [StoredFundMetadata] {
        try withStoreErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM fund_metadata ORDER BY fund_id").map { row in
                    StoredFundMetadata(
                        fundID: row["fund_id"], name: row["name"], manager: row["manager"], domicile: row["domicile"],
                        vintage: row["vintage"], detailsJSON: row["details_json"])
                }
            }
        }
    }
}
