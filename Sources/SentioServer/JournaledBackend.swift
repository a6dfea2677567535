import Foundation
import SentioAPI
import SentioCore
import SentioData
import SentioLive
import SentioStore

/// The live backend on SentioLive's `JournaledLiveSession`: every accepted bar, order, fill and rejection is
/// journaled in the store (one group commit per ingestion batch) before the response is sent and the signals are
/// published; the portfolio and trades are the session's, bit-identical to the backtest on the same bars; a restart
/// continues from the newest snapshot plus the journal's tail.
///
/// A step completes when every symbol of the universe delivered its bar, when a later timestamp arrives, or when
/// ``tick(now:)`` finds it pending for longer than `stepTimeout` seconds (0 = never).
public final class JournaledLiveBackend: LiveBackend, JointCommitBackend {
    public let live: JournaledLiveSession
    public let names: InstrumentNames
    public let stepTimeout: Double
    let zone: ExchangeTimeZone
    private var history: [String: OHLCVSeries] = [:]
    private var pendingSince: Double?

    /// Opens (or starts) the session stored in `database` with `setup` (see `JournaledLiveSession`), and loads the
    /// journaled bars for the symbol detail's history.
    /// - Throws: as `JournaledLiveSession.init`, `StoreError`.
    public init(
        database: SentioDatabase, setup: LiveSessionSetup?, reset: Bool = false, stepTimeout: Double = 10,
        names: InstrumentNames = InstrumentNames(), exchangeTimeZone: ExchangeTimeZone = .newYork
    ) throws {
        live = try JournaledLiveSession(database: database, setup: setup, reset: reset)
        self.names = names
        self.stepTimeout = stepTimeout
        zone = exchangeTimeZone
        for symbol in live.setup.universe { history[symbol] = OHLCVSeries(symbol: symbol) }
        try live.journal.forEachInput(after: 0) { _, input in
            if case .bar(let symbol, let b) = input, history[symbol] != nil {
                history[symbol]!.append(timestamp: b.timestamp, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume)
            }
        }
    }

    public var universe: [String] { live.setup.universe }

    public func ingest(_ bars: [FeedBar]) throws -> IngestResult { try ingest(bars, alongside: InvestingRows()) }

    /// The store of the journal.
    public var database: SentioDatabase { live.journal.database }

    /// ``ingest(_:)``, writing `investing` (the paper brokerage's rows of the same bars) in the same commit.
    /// - Throws: a store error: then nothing of the batch counts as received, and `investing` is not written.
    public func ingest(_ bars: [FeedBar], alongside investing: InvestingRows) throws -> IngestResult {
        var statuses: [BarOutcome?] = []
        var accepted: [FeedBar] = []
        for bar in bars {
            let before = live.counts
            try live.ingest(bar)
            let after = live.counts
            if after.accepted > before.accepted {
                statuses.append(.accepted)
                accepted.append(bar)
            } else if after.duplicates > before.duplicates {
                statuses.append(.duplicate)
            } else {
                statuses.append(nil)  // rejected: the reason comes with its event
            }
        }
        let events = try live.commit(alongside: investing)
        // Durable: now apply to the history and fill in the rejections, in order.
        for b in accepted {
            history[b.symbol]?.append(
                timestamp: b.bar.timestamp, open: b.bar.open, high: b.bar.high, low: b.bar.low, close: b.bar.close,
                volume: b.bar.volume)
        }
        var barRejections = events.compactMap { event -> LiveRejection? in
            if case .rejected(let r) = event, r.orderId == nil { return r }
            return nil
        }.makeIterator()
        let outcomes = statuses.map { status -> BarOutcome in
            if let status { return status }
            let r = barRejections.next()
            return .rejected(reason: r?.reason.code ?? "rejected", message: r?.message ?? "refused by the live session")
        }
        var messages: [LiveMessage] = []
        for case let .signalUpdate(signal, config) in events {
            if let m = try? SignalContracts.liveMessage(signal, config: config) { messages.append(m) }
        }
        if live.session.pendingStepTime != nil {
            if pendingSince == nil { pendingSince = Date().timeIntervalSince1970 }
        } else {
            pendingSince = nil
        }
        return IngestResult(outcomes: outcomes, messages: messages)
    }

    public func tick(now: Double) throws -> (changed: Bool, messages: [LiveMessage]) {
        guard stepTimeout > 0, let since = pendingSince, now - since >= stepTimeout else { return (false, []) }
        pendingSince = nil
        guard try live.closeStepIfPending() else { return (false, []) }
        let events = try live.commit()
        var messages: [LiveMessage] = []
        for case let .signalUpdate(signal, config) in events {
            if let m = try? SignalContracts.liveMessage(signal, config: config) { messages.append(m) }
        }
        return (true, messages)
    }

    public func signals() throws -> SignalsResponse { try live.session.signals() }

    public func currentMessages() -> [LiveMessage] {
        ((try? live.session.signals())?.signals ?? []).map { LiveMessage(signalUpdate: $0) }
    }

    public func symbolDetail(_ symbol: String, timeframe: Timeframe) throws -> SymbolDetail? {
        guard let s = history[symbol], !s.isEmpty,
              let signal = (try? live.session.signals())?.signals.first(where: { $0.symbol == symbol })
        else { return nil }
        let name = try names.name(of: symbol)
        let start = timeframe.startIndex(s.timestamps, zone: zone)
        var bars: [HistoricalBar] = []
        bars.reserveCapacity(s.count - start)
        for k in start..<s.count {
            let b = s[bar: k]
            bars.append(HistoricalBar(
                timestamp: APITimestamp(epochSeconds: b.timestamp), open: b.open, high: b.high, low: b.low,
                close: b.close, volume: b.volume))
        }
        return SymbolDetail(symbol: symbol, name: name, price: signal.price, signal: signal, historicalData: bars)
    }

    public func portfolio() throws -> Portfolio { try live.session.portfolio(exchangeTimeZone: zone) }

    public func tradeHistory() throws -> TradeHistory { try live.session.tradeHistory() }

    public func finish() throws { _ = try live.finish() }
}
