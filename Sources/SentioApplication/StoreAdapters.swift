import Foundation
import SentioCore
import SentioFunds
import SentioSignals
import SentioStore

// Adapters between the engine's types and the store's records (for the `--save` flags and any other front end).
// They live in SentioApplication because SentioStore must not depend on SentioSignals or SentioFunds.

extension StoredSignal {
    /// The Sentio model's signal as a stored record: `price` (close), `confidence`, `stopLoss` (a negative
    /// percent, as the model reports it) and `takeProfit` (the model's profit-target price) in typed columns; every
    /// other field in the details JSON, NaN written as `null`. `Signal(stored:)` gives back an equal signal.
    public init(_ signal: Signal, model: String = "sentio") {
        // Written by hand: Swift's `description` is the shortest text that reads back to the same Double, while
        // JSONSerialization rounds to 15 digits. NaN (and ±infinity, which the model never emits) become null.
        func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
        let fields: [(String, String)] = [
            ("adjustedRSquared", number(signal.adjustedRSquared)), ("aiSignal", number(signal.aiSignal)),
            ("averageTrueRange", number(signal.averageTrueRange)), ("barIndex", "\(signal.barIndex)"),
            ("barsUntilReady", "\(signal.barsUntilReady)"), ("change", number(signal.change)),
            ("changePercent", number(signal.changePercent)), ("forecastLogReturn", number(signal.forecastLogReturn)),
            ("fitStrength", number(signal.fitStrength)),
            ("forecastStandardError", number(signal.forecastStandardError)), ("reason", "\"\(signal.reason.rawValue)\""),
            ("rsi", number(signal.rsi)), ("targetReturn", number(signal.targetReturn)),
            ("volumeRatio", number(signal.volumeRatio)),
        ]
        let json = "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        self.init(
            model: model, symbol: signal.symbol, timestamp: signal.timestamp, signal: signal.signalType.rawValue,
            price: signal.price, confidence: signal.confidence, stopLoss: signal.stopLoss,
            takeProfit: signal.profitTarget, detailsJSON: json)
    }
}

extension Signal {
    /// The fields `StoredSignal(_:model:)` keeps in the details JSON (null for NaN).
    private struct Details: Decodable {
        var adjustedRSquared, aiSignal, averageTrueRange, change, changePercent, forecastLogReturn: Double?
        var forecastStandardError, rsi, targetReturn, volumeRatio: Double?
        /// Absent in records written before the calibrated confidence (then 0).
        var fitStrength: Double?
        var barIndex, barsUntilReady: Int
        var reason: String
    }

    /// The signal a `StoredSignal(_:model:)` record was made from; `nil` if the record was not written that way.
    /// (Decoded with `JSONDecoder`, which reads numbers exactly; `JSONSerialization` goes through `Decimal`.)
    public init?(stored: StoredSignal) {
        guard let type = SignalType(rawValue: stored.signal), let text = stored.detailsJSON,
            let details = try? JSONDecoder().decode(Details.self, from: Data(text.utf8)),
            let reason = SignalReason(rawValue: details.reason)
        else { return nil }
        self.init(
            symbol: stored.symbol, timestamp: stored.timestamp, barIndex: details.barIndex, price: stored.price ?? .nan,
            change: details.change ?? .nan, changePercent: details.changePercent ?? .nan, signalType: type,
            confidence: stored.confidence ?? .nan, targetReturn: details.targetReturn ?? .nan,
            stopLoss: stored.stopLoss ?? .nan, profitTarget: stored.takeProfit ?? .nan,
            aiSignal: details.aiSignal ?? .nan, rsi: details.rsi ?? .nan, volumeRatio: details.volumeRatio ?? .nan,
            forecastLogReturn: details.forecastLogReturn ?? .nan,
            forecastStandardError: details.forecastStandardError ?? .nan,
            adjustedRSquared: details.adjustedRSquared ?? .nan, averageTrueRange: details.averageTrueRange ?? .nan,
            reason: reason, barsUntilReady: details.barsUntilReady, fitStrength: details.fitStrength ?? 0)
    }
}

extension StoredFundEvent {
    /// A fund event as stored: the exact decimal amount, type and status by their raw values.
    public init(_ event: FundEvent) {
        self.init(
            fundID: event.fundID, date: event.date, kind: Kind(rawValue: event.type.rawValue)!,
            amount: event.amount.decimal, dueDate: event.dueDate,
            status: event.status.map { Status(rawValue: $0.rawValue)! }, paymentDate: event.paymentDate, url: event.url)
    }
}

extension FundEvent {
    /// The event a stored record holds (`line` is 0: it no longer comes from a file).
    public init(stored: StoredFundEvent) {
        self.init(
            fundID: stored.fundID, date: stored.date, type: FundEventType(rawValue: stored.kind.rawValue)!,
            amount: MoneyAmount(stored.amount), dueDate: stored.dueDate,
            status: stored.status.map { CapitalCallStatus(rawValue: $0.rawValue)! }, paymentDate: stored.paymentDate,
            url: stored.url, line: 0)
    }
}

extension StoredFundMetadata {
    /// A fund's metadata as stored.
    public init(_ metadata: FundMetadata) {
        self.init(
            fundID: metadata.id, name: metadata.name, manager: metadata.manager, domicile: metadata.domicile,
            vintage: metadata.vintage)
    }
}

extension FundMetadata {
    /// The metadata a stored record holds.
    public init(stored: StoredFundMetadata) {
        self.init(id: stored.fundID, name: stored.name, manager: stored.manager, domicile: stored.domicile, vintage: stored.vintage)
    }
}

extension SentioDatabase {
    /// Every stored fund's events and metadata as the fund readers give them, or `nil` when the store holds no
    /// fund events.
    ///
    /// Funds are ordered by their first event date, then id (a file lists its funds in its own order; for the
    /// bundled sample, whose funds are in commitment order, the report is the same). Funds without stored
    /// metadata get an empty entry (names null); with no metadata stored at all the metadata is `nil`.
    public func storedFunds() throws -> (events: FundEventFile, metadata: FundMetadataFile?)? {
        let events = try loadFundEvents().map(FundEvent.init(stored:))
        guard !events.isEmpty else { return nil }
        var firstDate: [String: CivilDate] = [:]
        for e in events { firstDate[e.fundID] = min(firstDate[e.fundID] ?? e.date, e.date) }
        let order = firstDate.keys.sorted { (firstDate[$0]!, $0) < (firstDate[$1]!, $1) }
        let eventFile = try FundEventFile(events: events, fundOrder: order, file: "\(path) (stored fund events)")
        let stored = try loadFundMetadata().map(FundMetadata.init(stored:))
        guard !stored.isEmpty else { return (eventFile, nil) }
        let described = Set(stored.map(\.id))
        let placeholders = order.filter { !described.contains($0) }.map { FundMetadata(id: $0) }
        return (eventFile, FundMetadataFile(funds: stored + placeholders, file: "\(path) (stored fund metadata)"))
    }
}
