import Foundation
import SentioCore

// Record types for what other modules save. They carry typed fields for what every producer has (so the store
// can list, sort and compare them in SQL) and a JSON text for the rest, so that SentioBacktest, SentioSignals and
// SentioFunds can be saved through small adapters without this module depending on them.

/// A backtest run's header: what was run, on what, and its headline results. Trades and the equity curve are
/// passed beside it to `SentioDatabase.saveRun(_:trades:equity:)`.
public struct StoredRun: Sendable, Equatable {
    /// Assigned by the store (`saveRun` returns it); `nil` before saving.
    public var id: Int64?
    /// When the run was recorded, UTC epoch seconds.
    public var createdAt: Int64
    /// Strategy name as the CLI spells it (`rsi`, `sentio`, `buy-and-hold`, `dca`).
    public var strategy: String
    /// Optional free text to recognise the run.
    public var label: String?
    /// Symbols traded, in the order given.
    public var symbols: [String]
    /// First and last bar timestamps of the simulated timeline, UTC epoch seconds.
    public var startTimestamp: Int64?
    public var endTimestamp: Int64?
    public var initialCapital: Double?
    public var finalEquity: Double?
    /// Fingerprint of the input bars (`ContentFingerprint.of(series:)`) so that runs on identical data can be told
    /// apart from runs on changed data.
    public var inputFingerprint: String
    /// The full configuration as a JSON object (camelCase keys, as `sentio backtest --format json` prints it).
    public var configJSON: String
    /// The statistics as a JSON object (camelCase keys: `totalReturnPercent`, `sharpeRatio`, ...).
    public var statisticsJSON: String
    /// Filled in by the store when reading: how many trades and equity points were saved with the run.
    public var tradeCount: Int
    public var equityPointCount: Int

    public init(
        strategy: String, symbols: [String], configJSON: String, statisticsJSON: String, inputFingerprint: String,
        label: String? = nil, startTimestamp: Int64? = nil, endTimestamp: Int64? = nil,
        initialCapital: Double? = nil, finalEquity: Double? = nil,
        createdAt: Int64 = Int64(Date().timeIntervalSince1970)
    ) {
        self.id = nil
        self.createdAt = createdAt
        self.strategy = strategy
        self.label = label
        self.symbols = symbols
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.initialCapital = initialCapital
        self.finalEquity = finalEquity
        self.inputFingerprint = inputFingerprint
        self.configJSON = configJSON
        self.statisticsJSON = statisticsJSON
        self.tradeCount = 0
        self.equityPointCount = 0
    }

    /// A run whose configuration and statistics are encoded from `Encodable` values (sorted keys, so that equal
    /// values give equal text).
    public init(
        strategy: String, symbols: [String], config: some Encodable, statistics: some Encodable,
        inputFingerprint: String, label: String? = nil, startTimestamp: Int64? = nil, endTimestamp: Int64? = nil,
        initialCapital: Double? = nil, finalEquity: Double? = nil,
        createdAt: Int64 = Int64(Date().timeIntervalSince1970)
    ) throws {
        self.init(
            strategy: strategy, symbols: symbols, configJSON: try encodeJSON(config),
            statisticsJSON: try encodeJSON(statistics), inputFingerprint: inputFingerprint, label: label,
            startTimestamp: startTimestamp, endTimestamp: endTimestamp, initialCapital: initialCapital,
            finalEquity: finalEquity, createdAt: createdAt)
    }

    /// The statistics decoded as a JSON object (`[String: Any]` values from `JSONSerialization`), for display.
    /// On Linux `JSONSerialization` reads numbers through `Decimal` and may be off by an ulp once converted to
    /// `Double`: decode `statisticsJSON` with `JSONDecoder` where exact values matter.
    public func statisticsObject() -> [String: Any] { decodeJSONObject(statisticsJSON) }

    /// The configuration decoded as a JSON object, for display (see `statisticsObject()`).
    public func configObject() -> [String: Any] { decodeJSONObject(configJSON) }
}

/// One trade of a run. A position still open at the end has no exit.
public struct StoredTrade: Sendable, Equatable {
    public var symbol: String
    public var entryTimestamp: Int64
    public var entryPrice: Double
    public var exitTimestamp: Int64?
    public var exitPrice: Double?
    public var shares: Double
    public var pnl: Double?
    public var pnlPercent: Double?
    public var commission: Double
    /// The signal that opened the trade (`BUY`, ...), if any.
    public var signalType: String?
    /// Why it closed (`signal`, `stop-loss`, `take-profit`, `end`...), if closed.
    public var exitReason: String?
    /// Anything else, as a JSON object.
    public var detailsJSON: String?

    public init(
        symbol: String, entryTimestamp: Int64, entryPrice: Double, exitTimestamp: Int64? = nil,
        exitPrice: Double? = nil, shares: Double, pnl: Double? = nil, pnlPercent: Double? = nil,
        commission: Double = 0, signalType: String? = nil, exitReason: String? = nil, detailsJSON: String? = nil
    ) {
        self.symbol = symbol
        self.entryTimestamp = entryTimestamp
        self.entryPrice = entryPrice
        self.exitTimestamp = exitTimestamp
        self.exitPrice = exitPrice
        self.shares = shares
        self.pnl = pnl
        self.pnlPercent = pnlPercent
        self.commission = commission
        self.signalType = signalType
        self.exitReason = exitReason
        self.detailsJSON = detailsJSON
    }
}

/// One point of a run's equity curve (timestamps strictly increasing within a run).
public struct StoredEquityPoint: Sendable, Equatable {
    public var timestamp: Int64
    /// Account value at the step's close.
    public var equity: Double
    public var cash: Double?
    /// External money added at this step (dollar-cost averaging), if any.
    public var contribution: Double?

    public init(timestamp: Int64, equity: Double, cash: Double? = nil, contribution: Double? = nil) {
        self.timestamp = timestamp
        self.equity = equity
        self.cash = cash
        self.contribution = contribution
    }
}

/// A saved run with its trades and equity curve.
public struct StoredRunDetail: Sendable, Equatable {
    public var run: StoredRun
    public var trades: [StoredTrade]
    public var equity: [StoredEquityPoint]
}

/// One signal of a model for a symbol at a bar. `(model, symbol, timestamp)` is unique: saving the same key again
/// replaces the stored signal.
public struct StoredSignal: Sendable, Equatable {
    /// The model that produced it (`sentio`, ...).
    public var model: String
    public var symbol: String
    /// The bar's timestamp, UTC epoch seconds.
    public var timestamp: Int64
    /// `BUY`, `SELL`, `HOLD` or whatever the model emits.
    public var signal: String
    public var price: Double?
    public var confidence: Double?
    public var stopLoss: Double?
    public var takeProfit: Double?
    /// Anything else (indicator values, reasons), as a JSON object.
    public var detailsJSON: String?

    public init(
        model: String, symbol: String, timestamp: Int64, signal: String, price: Double? = nil,
        confidence: Double? = nil, stopLoss: Double? = nil, takeProfit: Double? = nil, detailsJSON: String? = nil
    ) {
        self.model = model
        self.symbol = symbol
        self.timestamp = timestamp
        self.signal = signal
        self.price = price
        self.confidence = confidence
        self.stopLoss = stopLoss
        self.takeProfit = takeProfit
        self.detailsJSON = detailsJSON
    }
}

/// One fund cash-flow or valuation event, as in the fund CSV `fund_id,date,type,amount[,due_date,status]`.
public struct StoredFundEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case commitment, call, distribution, nav
    }

    /// Payment status of a capital call.
    public enum Status: String, Sendable, CaseIterable {
        case pending = "PENDING", paid = "PAID", late = "LATE", overdue = "OVERDUE"
    }

    public var fundID: String
    public var date: CivilDate
    public var kind: Kind
    /// Non-negative; the kind gives the direction. Stored as exact decimal text.
    public var amount: Decimal
    public var dueDate: CivilDate?
    public var status: Status?
    /// Calls only: the date the call was paid. Stored in `details_json` under the key `payment_date`
    /// (`YYYY-MM-DD`), so no schema change was needed.
    public var paymentDate: CivilDate?
    /// The document link of a call or NAV report. Stored in `details_json` under the key `url`.
    public var url: String?
    /// Anything else, as a JSON object (without the keys `payment_date` and `url`, which are the fields above).
    public var detailsJSON: String?

    public init(
        fundID: String, date: CivilDate, kind: Kind, amount: Decimal, dueDate: CivilDate? = nil,
        status: Status? = nil, paymentDate: CivilDate? = nil, url: String? = nil, detailsJSON: String? = nil
    ) {
        self.fundID = fundID
        self.date = date
        self.kind = kind
        self.amount = amount
        self.dueDate = dueDate
        self.status = status
        self.paymentDate = paymentDate
        self.url = url
        self.detailsJSON = detailsJSON
    }

    /// The keys of `details_json` that hold typed fields.
    static let typedDetailKeys: Set<String> = ["payment_date", "url"]

    /// The `details_json` text to store: `detailsJSON`'s keys plus `payment_date` and `url` when set, keys
    /// sorted; `nil` when there is nothing. `detailsJSON` must be a JSON object without those two keys.
    func storedDetails() -> String? {
        guard paymentDate != nil || url != nil else { return detailsJSON }
        var object = detailsJSON.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
        if let paymentDate { object["payment_date"] = paymentDate.description }
        if let url { object["url"] = url }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// Descriptive data of a fund (`name, manager, domicile, vintage`).
public struct StoredFundMetadata: Sendable, Equatable {
    public var fundID: String
    public var name: String?
    public var manager: String?
    public var domicile: String?
    public var vintage: Int?
    public var detailsJSON: String?

    public init(
        fundID: String, name: String? = nil, manager: String? = nil, domicile: String? = nil, vintage: Int? = nil,
        detailsJSON: String? = nil
    ) {
        self.fundID = fundID
        self.name = name
        self.manager = manager
        self.domicile = domicile
        self.vintage = vintage
        self.detailsJSON = detailsJSON
    }
}

/// Encodes `value` as compact JSON with sorted keys.
func encodeJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Decodes a JSON object; `[:]` if the text is not one.
func decodeJSONObject(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

/// `true` when `text` is a JSON object.
func isJSONObject(_ text: String) -> Bool {
    ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) != nil
}
