import SentioAPI
import SentioBacktest
import SentioCore
import SentioSignals

/// One bar as a live feed delivers it.
public struct LiveBar: Sendable, Hashable, Codable {
    public var symbol: String
    /// UTC epoch seconds.
    public var timestamp: Int64
    public var open: Double
    public var high: Double
    public var low: Double
    public var close: Double
    public var volume: Double

    public init(symbol: String, timestamp: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double) {
        self.symbol = symbol
        self.timestamp = timestamp
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
    }

    /// The bar without its symbol.
    public var bar: Bar { Bar(timestamp: timestamp, open: open, high: high, low: low, close: close, volume: volume) }
}

/// Why the session refused a bar. A refused bar changes nothing in the session.
public enum LiveBarRejection: Sendable, Equatable, CustomStringConvertible {
    /// The symbol is not in the session's universe.
    case unknownSymbol
    /// A bar with the same symbol and timestamp was already accepted, with other values (`existing`).
    case conflicting(existing: LiveBar)
    /// The timestamp is older than the step being collected (or, with no step pending, not after the last
    /// completed step), and the bar is not the symbol's processed bar of that time.
    case late(currentStep: Int64)
    /// The bar breaks the OHLCV reader's rules: `field` is `open`, `high`, `low`, `close` or `volume`.
    case invalid(field: String, message: String)
    /// The signal model cannot represent a windowed quantity of this bar (it overflows the double range).
    case unusable(message: String)

    /// The `reason` code of the `rejected` event (``LiveRejectedEvent``).
    public var code: String {
        switch self {
        case .unknownSymbol: "unknown-symbol"
        case .conflicting: "conflicting-bar"
        case .late: "late-bar"
        case .invalid: "invalid-bar"
        case .unusable: "unusable-bar"
        }
    }

    public var description: String {
        switch self {
        case .unknownSymbol: "the symbol is not in the session's universe"
        case .conflicting(let e):
            "a different bar of this symbol and time was already accepted (open \(e.open), high \(e.high), low \(e.low), close \(e.close), volume \(e.volume))"
        case .late(let t): "older than the session's current step \(iso8601(epochSeconds: t))"
        case .invalid(_, let message): message
        case .unusable(let message): message
        }
    }
}

/// What ``LiveSession/process(_:)`` did with a bar.
public enum LiveIngestOutcome: Sendable, Equatable {
    /// The bar was accepted; `completedSteps` steps were completed by it (0 or 1: a later timestamp completes
    /// the pending step; the last missing bar of a step completes it).
    case accepted(completedSteps: Int)
    /// The bar equals an accepted one (same symbol, timestamp and values): nothing happened.
    case duplicate
    /// The bar was refused; nothing changed.
    case rejected(LiveBarRejection)
}

/// A live paper-trading session: the backtest's simulator fed one bar at a time. In memory, no I/O.
///
/// The session holds a ``LiveConfiguration`` and a universe of symbols. Bars arrive one at a time, any symbol,
/// any order within a timestamp; the bars of one timestamp form a *step*, processed by the very step function
/// `Backtest.run` replays (SentioBacktest's `SimulationCore`), so trades, orders, rejections and the equity
/// curve are bit-identical to `Backtest.run` on the same bars. See the catalog article `LiveSessions` for when a
/// step completes and when an order fills.
///
/// A reference type with exclusive mutable state: use it from one task at a time.
public final class LiveSession {
    /// The configuration the session was started with.
    public let configuration: LiveConfiguration
    /// The symbols, in the order the backtest would list them (`Market.series` order).
    public let universe: [String]

    /// A new session, flat, with the configuration's initial capital.
    ///
    /// - Throws: `BacktestError` for an invalid configuration, an empty universe, a symbol listed twice, or a DCA
    ///   symbol outside the universe; `SignalConfigError` for an invalid signal model.
    public init(configuration: LiveConfiguration, universe: [String]) throws {
        self.configuration = configuration
        self.universe = universe
        fatalError("w-live: not implemented yet")
    }

    /// Restores a session from ``snapshot()``: it continues exactly as the session it was taken from.
    ///
    /// - Throws: `BacktestError` when the snapshot is inconsistent (a different format version, arrays of the
    ///   wrong length).
    public init(snapshot: LiveSnapshot) throws {
        self.configuration = snapshot.configuration
        self.universe = snapshot.universe
        fatalError("w-live: not implemented yet")
    }

    /// Feeds one bar; returns the events it caused, in order (see ``LiveEvent``): its `signal_update` (once the
    /// signal model is past its warm-up), then, if it completed a step, that step's orders, fills, order
    /// rejections and its `equity` mark. A refused bar gives one `rejected` event; a duplicate gives none.
    public func ingest(_ bar: LiveBar) -> [LiveEvent] {
        fatalError("w-live: not implemented yet")
    }

    /// Feeds one bar without building events (the allocation-free path): the events are kept until
    /// ``takeEvents()`` or ``discardEvents()``.
    public func process(_ bar: LiveBar) -> LiveIngestOutcome {
        fatalError("w-live: not implemented yet")
    }

    /// Completes the pending step with the symbols that delivered a bar (the others have no bar at that step,
    /// as in the backtest): the grace timeout of a driver. Returns the step's events; none when no step is pending.
    public func closeStep() -> [LiveEvent] {
        fatalError("w-live: not implemented yet")
    }

    /// The events recorded since the last call, as contract values.
    public func takeEvents() -> [LiveEvent] {
        fatalError("w-live: not implemented yet")
    }

    /// Forgets the recorded events (keeping the buffer's capacity).
    public func discardEvents() {
        fatalError("w-live: not implemented yet")
    }

    /// The timestamp of the step being collected (some symbols delivered, the step is not complete), or `nil`.
    public var pendingStepTime: Int64? { fatalError("w-live: not implemented yet") }

    /// The timestamp of the last completed step, or `nil` before the first.
    public var lastCompletedStepTime: Int64? { fatalError("w-live: not implemented yet") }

    /// Number of completed steps.
    public var completedSteps: Int { fatalError("w-live: not implemented yet") }

    /// What `Backtest.run` returns on the completed steps' bars: equal, bit for bit, to the backtest on that
    /// data. Orders still pending are listed as the backtest lists them when its data ends (rejected,
    /// `no-bar-for-symbol`); in the session they stay pending.
    public func result() -> BacktestResult {
        fatalError("w-live: not implemented yet")
    }

    /// `GET /portfolio` of the session (BacktestContracts.portfolio of ``result()``).
    /// - Throws: `APIContractError` before the first completed step, or as the adapter does.
    public func portfolio(recentTrades: Int = 10, exchangeTimeZone: ExchangeTimeZone = .newYork) throws -> Portfolio {
        try BacktestContracts.portfolio(result(), recentTrades: recentTrades, exchangeTimeZone: exchangeTimeZone)
    }

    /// `GET /signals`: each symbol's latest signal (symbols without any bar are left out).
    /// - Throws: `APIContractError` when no symbol has a bar yet, or a ready signal has a non-finite number.
    public func signals() throws -> SignalsResponse {
        fatalError("w-live: not implemented yet")
    }

    /// The trade history (BacktestContracts.tradeHistory of ``result()``).
    /// - Throws: `APIContractError` when there is no closed trade.
    public func tradeHistory() throws -> TradeHistory {
        try BacktestContracts.tradeHistory(result())
    }

    /// The whole state, exactly (doubles as bit patterns): `LiveSession(snapshot:)` continues identically.
    public func snapshot() -> LiveSnapshot {
        fatalError("w-live: not implemented yet")
    }
}

/// The exact state of a ``LiveSession``, Codable. Encode it with ``encoded()`` (JSON; every engine double is
/// written as its bit pattern, the signal model's state through its Codable form).
public struct LiveSnapshot: Sendable, Codable {
    /// Format version (1).
    public var version: Int
    public var configuration: LiveConfiguration
    public var universe: [String]

    /// The snapshot as JSON bytes.
    public func encoded() throws -> [UInt8] { fatalError("w-live: not implemented yet") }

    /// Decodes ``encoded()``'s bytes.
    public init(encoded bytes: [UInt8]) throws { fatalError("w-live: not implemented yet") }
}
