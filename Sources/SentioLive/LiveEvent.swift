import SentioBacktest
import SentioSignals

/// One event of a live paper-trading session, as typed values. Its NDJSON line (the bytes `sentio live` prints,
/// the journal stores and SentioAPI's live contracts encode) is written by ``LiveJournalCodec``; every line is an
/// object whose first key is `"type"`.
///
/// | `type` | case |
/// |---|---|
/// | `signal_update` | ``signalUpdate(_:config:)`` |
/// | `order` | ``order(_:)`` |
/// | `fill` | ``fill(_:)`` |
/// | `rejected` | ``rejected(_:)`` |
/// | `equity` | ``equity(_:)`` |
public enum LiveEvent: Sendable, Equatable {
    /// A new signal of a symbol, with the signal model that made it (its recommendation and reasoning texts are
    /// derived from both). A session lists only signals the contract can carry (``LiveJournalCodec/isPublishable(_:)``).
    case signalUpdate(Signal, config: SignalModelConfig)
    case order(LiveOrder)
    case fill(LiveFill)
    case rejected(LiveRejection)
    case equity(LiveEquityMark)

    /// The event's `"type"` value.
    public var type: String {
        switch self {
        case .signalUpdate: "signal_update"
        case .order: "order"
        case .fill: "fill"
        case .rejected: "rejected"
        case .equity: "equity"
        }
    }
}

/// Why an order was placed: `signal`, `contribution` (a DCA deposit-and-buy), `stop-loss`, `take-profit`, `liquidation`.
public enum LiveOrderReason: String, Sendable, Hashable, CaseIterable {
    case signal
    case contribution
    case stopLoss = "stop-loss"
    case takeProfit = "take-profit"
    case liquidation

    /// The reason of an order the backtest's order log records with exit reason `reason`.
    public init(_ reason: ExitReason) {
        switch reason {
        case .signal: self = .signal
        case .stopLoss: self = .stopLoss
        case .takeProfit: self = .takeProfit
        case .liquidation: self = .liquidation
        }
    }
}

/// An order placed by the strategy at a bar's close, or triggered by a stop-loss / take-profit level.
///
/// A strategy order with fill timing `next-open` is followed by its fill or rejection when the symbol's next
/// bar's step completes; with `close` and for level exits, in the same step.
public struct LiveOrder: Sendable, Hashable {
    /// The session's order number (1, 2, …; the backtest's `OrderRecord.id`).
    public var id: Int
    public var symbol: String
    public var side: OrderSide
    public var reason: LiveOrderReason
    /// UTC epoch seconds of the step at whose close (or, for levels, during which) it was decided.
    public var decidedAt: Int64
    /// The deposit of a contribution in currency, `nil` otherwise.
    public var amount: Double?

    public init(id: Int, symbol: String, side: OrderSide, reason: LiveOrderReason, decidedAt: Int64, amount: Double?) {
        self.id = id
        self.symbol = symbol
        self.side = side
        self.reason = reason
        self.decidedAt = decidedAt
        self.amount = amount
    }
}

/// A filled order: `price` after slippage, `shares` bought or sold (fractional when the session allows it),
/// `commission` the commission plus fixed fee of this fill, `cash` the account's cash right after the step that
/// filled it (at the step's close), `timestamp` the step's time (UTC epoch seconds).
public struct LiveFill: Sendable, Hashable {
    public var orderId: Int
    public var symbol: String
    public var side: OrderSide
    public var reason: ExitReason
    public var timestamp: Int64
    public var price: Double
    public var shares: Double
    public var commission: Double
    public var cash: Double

    public init(
        orderId: Int, symbol: String, side: OrderSide, reason: ExitReason, timestamp: Int64, price: Double,
        shares: Double, commission: Double, cash: Double
    ) {
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
}

/// Why the session refused something: an order (the backtest's `RejectionReason`), a bar
/// (``LiveBarRejection/Code``) or an input line that is not a bar (`malformed-line`).
public enum LiveRejectionReason: Sendable, Hashable {
    case order(RejectionReason)
    case bar(LiveBarRejection.Code)
    case malformedLine

    /// The `reason` code of the `rejected` line (`insufficient-cash`, `late-bar`, `malformed-line`, …).
    public var code: String {
        switch self {
        case .order(let r): r.rawValue
        case .bar(let c): c.rawValue
        case .malformedLine: "malformed-line"
        }
    }

    /// The reason of `code`, or `nil` for an unknown code.
    public init?(code: String) {
        if let r = RejectionReason(rawValue: code) {
            self = .order(r)
        } else if let c = LiveBarRejection.Code(rawValue: code) {
            self = .bar(c)
        } else if code == "malformed-line" {
            self = .malformedLine
        } else {
            return nil
        }
    }
}

/// Something the session refused: an order (as the backtest logs it, with `orderId`), an input bar (`field`
/// names the field of an invalid bar) or an input line (`line`, 1-based). What does not apply is `nil`.
public struct LiveRejection: Sendable, Hashable {
    public var reason: LiveRejectionReason
    public var message: String
    public var symbol: String?
    /// UTC epoch seconds.
    public var timestamp: Int64?
    public var orderId: Int?
    public var field: String?
    public var line: Int?

    public init(
        reason: LiveRejectionReason, message: String, symbol: String? = nil, timestamp: Int64? = nil,
        orderId: Int? = nil, field: String? = nil, line: Int? = nil
    ) {
        self.reason = reason
        self.message = message
        self.symbol = symbol
        self.timestamp = timestamp
        self.orderId = orderId
        self.field = field
        self.line = line
    }
}

/// The account marked at a completed step's close: `equity = cash + Σ shares × last close` (a symbol without a
/// bar at the step keeps its last close), the backtest's equity-curve point of that step; `contributions` the
/// deposits made at this step (DCA), 0 otherwise.
public struct LiveEquityMark: Sendable, Hashable {
    /// UTC epoch seconds of the step.
    public var timestamp: Int64
    public var equity: Double
    public var cash: Double
    public var contributions: Double
    public var openPositions: Int

    public init(timestamp: Int64, equity: Double, cash: Double, contributions: Double, openPositions: Int) {
        self.timestamp = timestamp
        self.equity = equity
        self.cash = cash
        self.contributions = contributions
        self.openPositions = openPositions
    }
}
