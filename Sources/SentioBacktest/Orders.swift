/// How an order's price is set (see the Backtests article, "Orders", for the fill rules on OHLC bars).
///
/// With `O`, `H`, `L` the open, high and low of a bar on which the order is live:
/// - ``market``: fills at the open (at the close for time in force ``TimeInForce/cls``, and at the decision close
///   with `FillTiming.close`).
/// - ``limit(_:)`` at `P`: a buy fills when `L ≤ P` at `min(O, P)`, a sell when `H ≥ P` at `max(O, P)`: at its
///   price or better, at the open when the bar gaps through it.
/// - ``stop(_:)`` at `S`: a buy fills when `H ≥ S` at `max(O, S)`, a sell when `L ≤ S` at `min(O, S)`: a gap
///   through the stop fills at the open.
/// - ``stopLimit(stop:limit:)``: the stop triggers as above, then the order is a limit order. A buy triggered
///   inside the bar fills on that bar at `min(max(O, S), P)` only when `P > S` (the limit is marketable past the
///   trigger); with `P ≤ S` the price would have to come back after the trigger, an order of events the bar
///   does not tell, so it rests as a limit from the next bar (backtesting.py's rule). Sells mirror this.
/// - ``trailingStopPercent(_:)``, ``trailingStopAmount(_:)``: a stop that follows the best price since the order was
///   placed, starting from the decision close `C₀`: a sell's level is `M · (1 − p/100)` or `M − a` with `M` the
///   highest high (a buy's `m · (1 + p/100)` or `m + a` with `m` the lowest low). A bar is checked against the
///   level set by the bars before it, then the level moves with the bar's high (low): the path inside a bar is
///   unknown, so a level raised by a bar applies from the next bar.
public enum OrderType: Sendable, Equatable, Hashable {
    case market
    case limit(Double)
    case stop(Double)
    case stopLimit(stop: Double, limit: Double)
    /// Trails by a percent of the best price (`5` = 5 %), in (0, 100).
    case trailingStopPercent(Double)
    /// Trails by an amount in price units, > 0.
    case trailingStopAmount(Double)

    /// The CSV and JSON spelling: `market`, `limit`, `stop`, `stop-limit`, `trailing-stop-percent`,
    /// `trailing-stop-amount`.
    public var name: String {
        switch self {
        case .market: "market"
        case .limit: "limit"
        case .stop: "stop"
        case .stopLimit: "stop-limit"
        case .trailingStopPercent: "trailing-stop-percent"
        case .trailingStopAmount: "trailing-stop-amount"
        }
    }

    /// Whether the order waits for its price to be reached from the other side (stops, trailing stops and an
    /// untriggered stop-limit): these are handled before limit orders inside a bar (see ``OrderRequest``).
    var isStopLike: Bool {
        switch self {
        case .stop, .stopLimit, .trailingStopPercent, .trailingStopAmount: true
        case .market, .limit: false
        }
    }
}

/// How long an order stays working.
public enum TimeInForce: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Until the end of the UTC calendar day of the first bar it is live on: it expires at the first bar of a
    /// later day (`day-ended`, recorded at that bar's step).
    case day
    /// Good till cancelled: until filled, cancelled by the strategy or by its OCO sibling, or the end of the data.
    case gtc
    /// Immediate or cancel: only at the first moment it is live (the next open, or the decision close with
    /// `FillTiming.close`); what does not fill then is cancelled (`immediate-or-cancel`). Market or limit only.
    case ioc
    /// At the open of the next bar only (market, or limit checked against the open); else it expires
    /// (`not-filled-at-open`). Market or limit only.
    case opg
    /// At the close of the next bar (the decision close with `FillTiming.close`): market, or limit checked against
    /// the close; else it expires (`not-filled-at-close`). Market or limit only.
    case cls
}

/// How much an order trades, resolved at fill time at the fill price (whole shares unless fractional shares are
/// allowed, rounded down).
public enum OrderQuantity: Sendable, Equatable, Hashable {
    /// A number of shares.
    case shares(Double)
    /// An amount of currency: a buy is sized by the buy sizing rule (`BuyFill`) with this budget (capped by cash);
    /// a sell sells `amount / fill price` shares.
    case notional(Double)
    /// A percent of the marked equity at fill time (`50` = 50 %), then as ``notional(_:)``.
    case percentOfEquity(Double)
    /// A buy: all the cash (the all-in rule); a sell: the whole position.
    case all
    /// Trade to a position worth this percent of the marked equity at fill time (`60` = 60 %, in [0, 100]): a buy
    /// spends `target − shares × price` by the buy sizing rule (capped by cash), a sell sells
    /// `shares − target / fill price` (whole shares rounded down unless fractional). What ``Decision/targetWeight(_:tolerance:)``
    /// places.
    case targetPercent(Double)

    /// The CSV and JSON spelling of the kind: `shares`, `notional`, `percent`, `all`.
    public var kind: String {
        switch self {
        case .shares: "shares"
        case .notional: "notional"
        case .percentOfEquity: "percent"
        case .all: "all"
        case .targetPercent: "target-percent"
        }
    }
}

/// An order as a strategy (or an orders file) places it: ``Decision/order(_:)``, or two of them cancelling each
/// other with ``Decision/oco(_:_:)``.
///
/// **Brackets.** An entry with ``stopLoss`` and/or ``takeProfit`` (absolute prices) is a bracket order: when the
/// entry fills, a stop order at the stop-loss and a limit order at the take-profit, on the other side, for the
/// quantity filled, good till cancelled, are placed and cancel each other (OCO). They are live on the entry bar when
/// the entry was a market order filled at the open (the rest of the bar comes after it; backtesting.py's issue
/// 119), else from the next bar. When the position is closed otherwise, they are cancelled (`position-closed`).
///
/// **Order of events inside a bar**, for the orders live on it (symbols in canonical order): (1) at the open, sells
/// then buys, each in placement order: market orders, and stop, limit and trailing orders the open already
/// satisfies (gaps); `ioc` and `opg` orders that did not fill are cancelled or expire; (2) inside the bar, for each
/// symbol, stop-like orders first (a stop before a limit, so a bracket whose stop-loss and take-profit are both
/// inside one bar exits at the stop: the conservative assumption, as backtesting.py), then limit orders, each group
/// in placement order; (3) at the close, `cls` orders. When an order of an OCO group fills, the others are cancelled
/// at once (`oco`). There are never partial fills: bars carry no depth, so an order fills whole or not at all.
public struct OrderRequest: Sendable, Equatable, Hashable {
    public var side: OrderSide
    public var type: OrderType
    public var quantity: OrderQuantity
    public var timeInForce: TimeInForce
    /// A bracket's stop-loss price (a stop order on the other side once the entry fills), `nil`: none.
    public var stopLoss: Double?
    /// A bracket's take-profit price (a limit order on the other side once the entry fills), `nil`: none.
    public var takeProfit: Double?

    public init(side: OrderSide, type: OrderType = .market, quantity: OrderQuantity = .all,
                timeInForce: TimeInForce = .gtc, stopLoss: Double? = nil, takeProfit: Double? = nil) {
        self.side = side
        self.type = type
        self.quantity = quantity
        self.timeInForce = timeInForce
        self.stopLoss = stopLoss
        self.takeProfit = takeProfit
    }

    /// Why the request cannot be placed, or `nil`. Checked at placement: such an order is logged rejected at once.
    ///
    /// `invalid-amount`: a quantity that is not finite and positive (a percent above 100 included); `invalid-price`:
    /// a limit, stop or bracket price that is not finite and positive, a trailing percent outside (0, 100) or amount
    /// not positive, a stop-limit or bracket on the wrong side (a buy needs stop-loss < take-profit, a sell the
    /// reverse); `invalid-time-in-force`: `ioc`, `opg` or `cls` with anything but a market or limit order;
    /// `short-not-allowed`: a sell bracket (its protective orders would buy) without short selling.
    func problem(allowShort: Bool) -> RejectionReason? {
        switch quantity {
        case .shares(let x), .notional(let x): if !(x.isFinite && x > 0) { return .invalidAmount }
        case .percentOfEquity(let p): if !(p.isFinite && p > 0 && p <= 100) { return .invalidAmount }
        case .targetPercent(let p): if !(p.isFinite && p >= 0 && p <= 100) { return .invalidAmount }
        case .all: break
        }
        func valid(_ p: Double) -> Bool { p.isFinite && p > 0 }
        switch type {
        case .market: break
        case .limit(let p), .stop(let p): if !valid(p) { return .invalidPrice }
        case .stopLimit(let s, let l): if !(valid(s) && valid(l)) { return .invalidPrice }
        case .trailingStopPercent(let p): if !(p > 0 && p < 100) { return .invalidPrice }
        case .trailingStopAmount(let a): if !valid(a) { return .invalidPrice }
        }
        switch timeInForce {
        case .day, .gtc: break
        case .ioc, .opg, .cls:
            switch type {
            case .market, .limit: break
            default: return .invalidTimeInForce
            }
        }
        if let s = stopLoss, !valid(s) { return .invalidPrice }
        if let t = takeProfit, !valid(t) { return .invalidPrice }
        if let s = stopLoss, let t = takeProfit, side == .buy ? !(s < t) : !(s > t) { return .invalidPrice }
        if side == .sell && (stopLoss != nil || takeProfit != nil) && !allowShort { return .shortNotAllowed }
        return nil
    }
}

/// An order of the order model (``OrderRequest``) as the order log records it (``OrderRecord/detail``).
public struct OrderDetail: Sendable, Equatable {
    public var type: OrderType
    public var timeInForce: TimeInForce
    public var quantity: OrderQuantity
    /// The entry whose bracket placed this order, `nil` for an order the strategy placed.
    public var parentID: Int?
    /// Orders that cancel each other share a group number (the id of the group's first order); `nil`: none.
    public var ocoGroup: Int?
}

/// What became of an order (every order of the log ends with one).
public enum OrderStatus: String, Sendable, Codable, CaseIterable {
    case filled, cancelled, expired, rejected
}

/// Why an order ended without a fill and without a rejection.
public enum CancelReason: String, Sendable, Codable, CaseIterable {
    /// Another order of its OCO group (or bracket) filled. Status `cancelled`.
    case oco
    /// The strategy cancelled the symbol's working orders (``Decision/cancelOrders``). Status `cancelled`.
    case strategy
    /// A bracket's protective order whose position was closed otherwise. Status `cancelled`.
    case positionClosed = "position-closed"
    /// An `ioc` order that could not fill at once. Status `cancelled`.
    case immediateOrCancel = "immediate-or-cancel"
    /// A `day` order at the first bar of a later day. Status `expired`.
    case dayEnded = "day-ended"
    /// An `opg` order the open did not fill. Status `expired`.
    case notFilledAtOpen = "not-filled-at-open"
    /// A `cls` order the close did not fill. Status `expired`.
    case notFilledAtClose = "not-filled-at-close"
    /// Still working when the data ended (listed so by `Backtest` and `SteppedSimulation.result()`). Status `expired`.
    case endOfData = "end-of-data"

    /// `expired` for the time-in-force and end-of-data reasons, `cancelled` for the others.
    public var status: OrderStatus {
        switch self {
        case .oco, .strategy, .positionClosed, .immediateOrCancel: .cancelled
        case .dayEnded, .notFilledAtOpen, .notFilledAtClose, .endOfData: .expired
        }
    }
}
