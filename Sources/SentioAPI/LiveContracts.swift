import SentioBacktest
import SentioCore
import SentioLive

/// The wire contract of one event of a live paper-trading session (`sentio live`, the server): SentioLive's typed
/// `LiveEvent` as its NDJSON line's shape. Every event is an object whose first key is `"type"`.
///
/// | `type` | shape |
/// |---|---|
/// | `signal_update` | ``LiveMessage`` (`{"type", "data": {"symbol", "price", "signal"}}`) |
/// | `order` | ``LiveOrderEvent`` |
/// | `fill` | ``LiveFillEvent`` |
/// | `rejected` | ``LiveRejectedEvent`` |
/// | `equity` | ``LiveEquityEvent`` |
///
/// Encode it with ``APIJSON/encode(_:)`` (the one JSON encoding); numbers are never NaN or infinite. SentioLive's
/// `LiveJournalCodec` writes the same line straight from the typed event (the journal's and `sentio live`'s bytes).
public enum LiveEventContract: Sendable, Hashable, Encodable {
    case signalUpdate(LiveMessage)
    case order(LiveOrderEvent)
    case fill(LiveFillEvent)
    case rejected(LiveRejectedEvent)
    case equity(LiveEquityEvent)

    /// The contract of a typed live event.
    ///
    /// - Throws: ``APIContractError`` for a signal update the contract cannot carry (as
    ///   ``SignalContracts/liveMessage(_:config:)``).
    public init(_ event: LiveEvent) throws(APIContractError) {
        switch event {
        case let .signalUpdate(signal, config): self = .signalUpdate(try SignalContracts.liveMessage(signal, config: config))
        case .order(let e): self = .order(LiveOrderEvent(e))
        case .fill(let e): self = .fill(LiveFillEvent(e))
        case .rejected(let e): self = .rejected(LiveRejectedEvent(e))
        case .equity(let e): self = .equity(LiveEquityEvent(e))
        }
    }

    /// The event's `"type"` value.
    public var type: String {
        switch self {
        case .signalUpdate(let m): m.type
        case .order(let e): e.type
        case .fill(let e): e.type
        case .rejected(let e): e.type
        case .equity(let e): e.type
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .signalUpdate(let m): try m.encode(to: encoder)
        case .order(let e): try e.encode(to: encoder)
        case .fill(let e): try e.encode(to: encoder)
        case .rejected(let e): try e.encode(to: encoder)
        case .equity(let e): try e.encode(to: encoder)
        }
    }
}

/// An order placed by the strategy at a bar's close, or triggered by a stop-loss / take-profit level:
/// `{"type": "order", "id", "symbol", "side", "reason", "decidedAt", "amount"}`.
///
/// - `id`: the session's order number (1, 2, …; the backtest's `OrderRecord.id`).
/// - `side`: `buy` or `sell`; `reason`: `signal`, `contribution` (a DCA deposit-and-buy), `stop-loss`, `take-profit`,
///   `liquidation` (the maintenance-margin rule, short selling only).
/// - `decidedAt`: the timestamp of the step at whose close (or, for levels, during which) it was decided.
/// - `amount`: the deposit of a contribution in currency, `null` otherwise.
///
/// A strategy order with fill timing `next-open` is followed by its `fill` or `rejected` event when the
/// symbol's next bar's step completes; with `close` and for level exits, in the same step.
public struct LiveOrderEvent: Sendable, Hashable, Codable {
    /// Always `"order"`.
    public var type: String
    public var id: Int
    public var symbol: String
    public var side: String
    public var reason: String
    public var decidedAt: APITimestamp
    public var amount: Double?

    public init(id: Int, symbol: String, side: String, reason: String, decidedAt: APITimestamp, amount: Double?) {
        self.type = "order"
        self.id = id
        self.symbol = symbol
        self.side = side
        self.reason = reason
        self.decidedAt = decidedAt
        self.amount = amount
    }

    /// The contract of a typed order event.
    public init(_ e: LiveOrder) {
        self.init(
            id: e.id, symbol: e.symbol, side: e.side.rawValue, reason: e.reason.rawValue,
            decidedAt: APITimestamp(epochSeconds: e.decidedAt), amount: e.amount)
    }
}

/// A filled order: `{"type": "fill", "orderId", "symbol", "side", "reason", "timestamp", "price", "shares",
/// "commission", "cash"}`.
///
/// `price` is the fill price after slippage, `shares` the amount bought or sold (fractional when the session
/// allows it), `commission` the commission plus fixed fee of this fill, `cash` the account's cash right after
/// the step that filled it (at the step's close), `timestamp` the step's time.
public struct LiveFillEvent: Sendable, Hashable, Codable {
    /// Always `"fill"`.
    public var type: String
    public var orderId: Int
    public var symbol: String
    public var side: String
    public var reason: String
    public var timestamp: APITimestamp
    public var price: Double
    public var shares: Double
    public var commission: Double
    public var cash: Double

    public init(
        orderId: Int, symbol: String, side: String, reason: String, timestamp: APITimestamp, price: Double,
        shares: Double, commission: Double, cash: Double
    ) {
        self.type = "fill"
        self.orderId = orderId
        self.symbol = symbol
        self.side = side
        self.reason = reason
        self.timestamp = timestamp
        self.price = price
        self.shares = shares
        self.commission = commission
        self.cash = cash
    }

    /// The contract of a typed fill event.
    public init(_ e: LiveFill) {
        self.init(
            orderId: e.orderId, symbol: e.symbol, side: e.side.rawValue, reason: e.reason.rawValue,
            timestamp: APITimestamp(epochSeconds: e.timestamp), price: e.price, shares: e.shares,
            commission: e.commission, cash: e.cash)
    }
}

/// Something the session refused: an order (as the backtest logs it) or an input bar/line.
///
/// `{"type": "rejected", "reason", "message", "symbol", "timestamp", "orderId", "field", "line"}`; the keys
/// that do not apply are `null`.
///
/// `reason` codes:
/// - orders: the backtest's `RejectionReason` (`insufficient-cash`, `zero-size`, `no-bar-for-symbol`,
///   `max-positions-reached`, `position-already-open`, `no-open-position`, `invalid-amount`, `quantity-overflow`), with `orderId`;
/// - bars: `conflicting-bar` (same symbol and timestamp as a processed bar, different values), `late-bar`
///   (older than the session's current step), `invalid-bar` (the OHLCV reader's rules; `field` names the
///   field), `unknown-symbol` (not in the session's universe), `unusable-bar` (the signal model cannot
///   represent a quantity of this bar), `suspected-split` (the move from the symbol's previous bar looks like a split
///   no corporate action of the session explains);
/// - input lines (front ends): `malformed-line`, with `line` (1-based).
public struct LiveRejectedEvent: Sendable, Hashable, Codable {
    /// Always `"rejected"`.
    public var type: String
    public var reason: String
    public var message: String
    public var symbol: String?
    public var timestamp: APITimestamp?
    public var orderId: Int?
    public var field: String?
    public var line: Int?

    public init(
        reason: String, message: String, symbol: String? = nil, timestamp: APITimestamp? = nil, orderId: Int? = nil,
        field: String? = nil, line: Int? = nil
    ) {
        self.type = "rejected"
        self.reason = reason
        self.message = message
        self.symbol = symbol
        self.timestamp = timestamp
        self.orderId = orderId
        self.field = field
        self.line = line
    }

    /// The contract of a typed rejection event.
    public init(_ e: LiveRejection) {
        self.init(
            reason: e.reason.code, message: e.message, symbol: e.symbol, timestamp: e.timestamp.map(APITimestamp.init(epochSeconds:)),
            orderId: e.orderId, field: e.field, line: e.line)
    }
}

/// The account marked at a completed step's close: `{"type": "equity", "timestamp", "equity", "cash",
/// "contributions", "openPositions"}`.
///
/// `equity = cash + Σ shares × last close` (a symbol without a bar at the step keeps its last close), the
/// backtest's equity-curve point of that step; `contributions` the deposits made at this step (DCA), 0 otherwise.
public struct LiveEquityEvent: Sendable, Hashable, Codable {
    /// Always `"equity"`.
    public var type: String
    public var timestamp: APITimestamp
    public var equity: Double
    public var cash: Double
    public var contributions: Double
    public var openPositions: Int

    public init(timestamp: APITimestamp, equity: Double, cash: Double, contributions: Double, openPositions: Int) {
        self.type = "equity"
        self.timestamp = timestamp
        self.equity = equity
        self.cash = cash
        self.contributions = contributions
        self.openPositions = openPositions
    }

    /// The contract of a typed equity mark.
    public init(_ e: LiveEquityMark) {
        self.init(
            timestamp: APITimestamp(epochSeconds: e.timestamp), equity: e.equity, cash: e.cash,
            contributions: e.contributions, openPositions: e.openPositions)
    }
}
