import Foundation
import SentioAPI
import SentioBacktest
import SentioCore
import SentioData
import SentioSignals
import SentioStore

/// What the server needs from the live engine: ingest bars durably, and answer the app contracts.
///
/// The server calls it from one task at a time (its engine actor), so an implementation may keep exclusive
/// mutable state. ``JournaledLiveBackend`` is the implementation `sentio serve` runs (SentioLive's journaled
/// session); tests may plug in others.
public protocol LiveBackend: AnyObject {
    /// The symbols served, in order.
    var universe: [String] { get }
    /// Feeds bars; returns one outcome per bar (in order) and the `signal_update` messages they caused.
    /// When it returns, every accepted bar is durable.
    /// - Throws: a store error: then nothing of the batch counts as received.
    func ingest(_ bars: [FeedBar]) throws -> IngestResult
    /// `GET /signals`. - Throws: `APIContractError` when no symbol has a bar yet.
    func signals() throws -> SignalsResponse
    /// Each symbol's current `signal_update` (symbols past warm-up only), in universe order.
    func currentMessages() -> [LiveMessage]
    /// `GET /symbols/{symbol}`; `nil` for a symbol outside the universe or without bars.
    func symbolDetail(_ symbol: String, timeframe: Timeframe) throws -> SymbolDetail?
    /// `GET /portfolio`. - Throws: `APIContractError` before the first bar.
    func portfolio() throws -> Portfolio
    /// `GET /trades`. - Throws: `APIContractError` before the first closed trade.
    func tradeHistory() throws -> TradeHistory
    /// The last commit of a clean exit.
    func finish() throws
    /// Called about once a second (`now`: UTC epoch seconds): a backend with a step grace delay completes a step
    /// that waited too long. Returns whether the state changed, and the `signal_update` messages it caused.
    func tick(now: Double) throws -> (changed: Bool, messages: [LiveMessage])
}

extension LiveBackend {
    public func tick(now: Double) throws -> (changed: Bool, messages: [LiveMessage]) { (false, []) }
}

/// What happened to one ingested bar (the ingestion endpoint's per-bar status).
public enum BarOutcome: Sendable, Equatable {
    case accepted
    /// Equal to a bar already accepted: nothing happened.
    case duplicate
    /// Refused: `reason` is a `LiveRejectedEvent` reason code, `message` says why.
    case rejected(reason: String, message: String)
}

/// The outcome of one ingestion batch.
public struct IngestResult: Sendable {
    public var outcomes: [BarOutcome]
    public var messages: [LiveMessage]
}

/// The history window of `GET /symbols/{symbol}`: the last 1 or 5 trading days (exchange-local dates that have
/// bars), or the bars of the last 1 or 3 calendar months up to the last bar's local date.
public enum Timeframe: String, Sendable, CaseIterable {
    case oneDay = "1D", fiveDays = "5D", oneMonth = "1M", threeMonths = "3M"

    /// The index of the first bar of the window in `timestamps` (time-ordered, non-empty).
    func startIndex(_ timestamps: [Int64], zone: ExchangeTimeZone) -> Int {
        guard let last = timestamps.last else { return 0 }
        let lastDate = zone.localDate(last)
        switch self {
        case .oneDay, .fiveDays:
            let days = self == .oneDay ? 1 : 5
            var seen = 0, current: CivilDate? = nil, i = timestamps.count - 1
            while i >= 0 {
                let d = zone.localDate(timestamps[i])
                if d != current {
                    seen += 1
                    if seen > days { return i + 1 }
                    current = d
                }
                i -= 1
            }
            return 0
        case .oneMonth, .threeMonths:
            let first = lastDate.addingMonths(self == .oneMonth ? -1 : -3)
            var i = timestamps.count - 1
            while i >= 0, zone.localDate(timestamps[i]) > first { i -= 1 }
            return i + 1
        }
    }
}

/// A backend whose ingestion commit also writes the paper brokerage's rows of the same bars (one transaction in
/// ``database``): the server then makes a batch durable with one commit for both.
protocol JointCommitBackend: LiveBackend {
    var database: SentioDatabase { get }
    func ingest(_ bars: [FeedBar], alongside investing: InvestingRows) throws -> IngestResult
}
