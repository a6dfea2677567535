import Foundation
import NIOConcurrencyHelpers
import SentioData
import SentioLive
import SentioStore

/// The investing app's backend in `sentio serve`: SentioLive's `PaperBrokerage` (serialized behind a lock; every
/// call writes its changes before it returns), the Apple identity verifier, and the WebSocket hub its events go to
/// once they are durable.
public final class InvestingService: @unchecked Sendable {
    /// The WebSocket's timings and limits, and the synthetic quote spread.
    public struct Options: Sendable {
        /// Seconds between `heartbeat` messages (`--ws-heartbeat`).
        public var heartbeatSeconds = 30
        /// Seconds after a heartbeat interval without a `pong` before the socket is closed (the manual's 10).
        public var pongGraceSeconds = 10.0
        /// Connections at once; one more is closed with 4005 (`--ws-max-connections`).
        public var maxConnections = 10_000
        /// Half-spread of the synthetic quotes in basis points of the last price: `bid = price × (1 − h/10⁴)`,
        /// `ask = price × (1 + h/10⁴)` (`--quote-spread-bps`).
        public var quoteSpreadBasisPoints = 5.0
        /// `token_expiring` is sent once when this many seconds or fewer remain.
        public var expiryWarningSeconds = 60.0
        /// Messages a client may fall behind before it is closed (1008).
        public var buffer = 256

        public init() {}
    }

    // Unchecked: `brokerage` is used only under `lock`.
    private let brokerage: PaperBrokerage
    private let lock = NIOLock()
    public let verifier: AppleIdentityVerifier
    public let options: Options
    let hub: InvestingHub

    public init(brokerage: PaperBrokerage, verifier: AppleIdentityVerifier, options: Options = Options()) {
        self.brokerage = brokerage
        self.verifier = verifier
        self.options = options
        hub = InvestingHub(maxConnections: options.maxConnections, capacity: options.buffer)
    }

    /// Runs `body` with the brokerage, alone.
    func withBrokerage<T>(_ body: (PaperBrokerage) throws -> T) rethrows -> T {
        try lock.withLock { try body(brokerage) }
    }

    /// Runs a brokerage operation that emits events; the events are published after it returned (durable).
    func perform<T>(_ body: (PaperBrokerage) throws -> (T, [PaperEvent])) throws -> T {
        let (value, events) = try lock.withLock { try body(brokerage) }
        publish(events)
        return value
    }

    /// Feeds bars to the brokerage (GBPUSD rates, fills, due schedules, quotes) and publishes what happened.
    public func ingest(_ bars: [FeedBar]) throws {
        _ = try ingestMeasured(bars)
    }

    /// ``ingest(_:)``, with the time of the brokerage's commit and of the fan-out to the sockets (and of its encoding).
    func ingestMeasured(_ bars: [FeedBar]) throws -> (commit: Duration, encoding: Duration, fanout: Duration) {
        guard !bars.isEmpty else { return (.zero, .zero, .zero) }
        let start = ContinuousClock.now
        let events = try lock.withLock { try brokerage.ingest(bars) }
        let committed = ContinuousClock.now
        let encoding = publish(events)
        return (committed - start, encoding, ContinuousClock.now - committed)
    }

    /// The store of the paper brokerage.
    var database: SentioDatabase { brokerage.database }

    /// Feeds bars to the brokerage and has `commit` write its changes: `commit` gets the rows to write in its own
    /// transaction (the live journal's commit of the same bars: one commit, one fsync for both) and runs with the
    /// brokerage locked; when it throws, the brokerage goes back to the stored state. The events are published
    /// after it returned. Returns its value, the time to stage and commit, and the time of the fan-out (the events'
    /// encoding included, also given alone).
    func ingest<T>(_ bars: [FeedBar], committing commit: (InvestingRows) throws -> T) throws -> (T, commit: Duration, encoding: Duration, fanout: Duration) {
        let start = ContinuousClock.now
        let (value, events) = try lock.withLock { () throws -> (T, [PaperEvent]) in
            let staged = brokerage.stage(bars)
            do {
                return (try commit(staged.rows), staged.events)
            } catch {
                try brokerage.discardStaged()
                throw error
            }
        }
        let committed = ContinuousClock.now
        let encoding = publish(events)
        return (value, committed - start, encoding, ContinuousClock.now - committed)
    }

    /// Encodes `events` (each once, whoever receives it) and queues them on the sockets; returns the time of the
    /// encoding (the rest of the call is the hub's queueing).
    @discardableResult
    func publish(_ events: [PaperEvent]) -> Duration {
        guard !events.isEmpty else { return .zero }
        let start = ContinuousClock.now
        let now = Date().timeIntervalSince1970
        let messages = events.map { e in
            let m = InvestingWire.message(e, spreadBasisPoints: options.quoteSpreadBasisPoints)
            return InvestingHub.Outgoing(
                channel: m.channel, symbol: m.symbol, userID: e.userID,
                text: InvestingWire.envelope(type: "event", event: m.event, data: m.data, now: now))
        }
        let encoded = ContinuousClock.now - start
        hub.publish(messages)
        return encoded
    }
}
