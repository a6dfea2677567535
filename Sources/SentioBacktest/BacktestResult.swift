import SentioCore

/// Why a position was closed.
public enum ExitReason: String, Sendable, Codable {
    /// The strategy decided to sell.
    case signal
    case stopLoss = "stop-loss"
    case takeProfit = "take-profit"
    /// Closed by the maintenance-margin rule (``BacktestConfiguration/maintenanceMargin``).
    case liquidation
}

/// Why an order was not filled. Rejections are results: each one is logged in `BacktestResult.orders`.
public enum RejectionReason: String, Sendable, Codable {
    /// The cash cannot pay for one share (or, with fractional shares, for anything after the fee).
    case insufficientCash = "insufficient-cash"
    /// The sizing rule's budget buys zero shares although the cash could pay for one.
    case zeroSize = "zero-size"
    /// The symbol has no later bar to fill at (the order was decided on its last bar).
    case noBarForSymbol = "no-bar-for-symbol"
    /// Equal-weight sizing already holds `maxPositions` positions.
    case maxPositionsReached = "max-positions-reached"
    /// A buy for a symbol that is already held (long-only, one position per symbol; DCA adds instead).
    case positionAlreadyOpen = "position-already-open"
    /// A sell for a symbol that is not held.
    case noOpenPosition = "no-open-position"
    /// A contribution amount that is not finite and positive.
    case invalidAmount = "invalid-amount"
    /// The budget buys more shares than a double can count (a price below about budget / 1.8e308, such as
    /// 1e-306): no quantity can be represented, so nothing is bought (a capped quantity would invest a
    /// fraction of the budget and report it as a full purchase).
    case quantityOverflow = "quantity-overflow"
    /// An order whose limit, stop, trailing distance or bracket prices are not valid (``OrderRequest``).
    case invalidPrice = "invalid-price"
    /// `ioc`, `opg` or `cls` with an order type other than market or limit.
    case invalidTimeInForce = "invalid-time-in-force"
    /// A sell that would open or increase a short position (or a sell bracket) without short selling allowed.
    case shortNotAllowed = "short-not-allowed"
    /// A short sale the equity cannot margin (``BacktestConfiguration/margin``).
    case insufficientMargin = "insufficient-margin"
}

public enum OrderSide: String, Sendable, Codable { case buy, sell }

/// One order and what became of it.
public struct OrderRecord: Sendable, Equatable {
    public var id: Int
    public var symbol: Int
    public var side: OrderSide
    /// `signal` for strategy orders, `stop-loss`/`take-profit` for exits triggered by levels.
    public var reason: ExitReason
    /// The timeline step at whose close the order was decided (for level exits: the step they fired).
    public var decidedStep: Int
    /// The step at which it was filled or rejected.
    public var resolvedStep: Int
    /// `nil` when filled.
    public var rejection: RejectionReason?
    public var fillPrice: Double
    public var shares: Double
    /// Commission plus fixed fee paid on this fill.
    public var commission: Double
    /// An order of the order model (``OrderRequest``): its type, time in force, quantity and links; `nil` for the
    /// built-in decisions (`buy`, `sell`, `contribute`) and the configuration's stop-loss and take-profit exits.
    public var detail: OrderDetail? = nil
    /// Why an order ended unfilled without a rejection (cancelled or expired), `nil` otherwise.
    public var cancellation: CancelReason? = nil
    /// Filled, or not filled: `rejection`, `cancellation`.
    public var isFilled: Bool { rejection == nil && cancellation == nil }
    /// The final status: `rejected` (with ``rejection``), `cancelled` or `expired` (with ``cancellation``), else `filled`.
    public var status: OrderStatus {
        if rejection != nil { return .rejected }
        if let c = cancellation { return c.status }
        return .filled
    }
}

/// A round trip: a position opened and closed.
public struct ClosedTrade: Sendable, Equatable {
    public var symbol: String
    public var symbolIndex: Int
    /// Timeline steps and the symbol's bar indices of the entry and exit fills.
    public var entryStep: Int, exitStep: Int
    public var entryBar: Int, exitBar: Int
    public var entryTime: Int64, exitTime: Int64
    /// Fill prices after slippage (the entry price is the share-weighted average for added lots).
    public var entryPrice: Double, exitPrice: Double
    public var shares: Double
    /// `shares × (exit − entry) − commissions and fees at entry and exit`.
    public var pnl: Double
    /// `pnl / (shares × entryPrice) × 100` (backtesting.py's `ReturnPct` × 100).
    public var pnlPercent: Double
    /// Commissions and fees paid at entry and exit.
    public var commission: Double
    /// `BUY` for a long trade, `SELL` for a short one (whose ``shares`` are negative).
    public var signalType: String
    public var exitReason: ExitReason
}

/// A position still held at the end: marked to market, not counted as a closed trade.
public struct OpenPosition: Sendable, Equatable {
    public var symbol: String
    public var symbolIndex: Int
    public var entryStep: Int
    public var entryBar: Int
    public var entryTime: Int64
    public var entryPrice: Double
    public var shares: Double
    /// The last close of the symbol.
    public var currentPrice: Double
    public var marketValue: Double
    /// Commissions and fees paid at entry.
    public var entryCommission: Double
    /// `shares × (current − entry) − entry commissions and fees` (no exit cost assumed).
    public var unrealizedPnL: Double
    public var stopPrice: Double?
    public var targetPrice: Double?
}

/// Everything a simulation produced.
public struct BacktestResult: Sendable {
    public var configuration: BacktestConfiguration
    public var strategyName: String
    public var symbols: [String]
    /// The timeline (one entry per step) and per-step account values at the step's close.
    public var timestamps: [Int64]
    public var equity: [Double]
    public var cash: [Double]
    /// External deposits made at each step's close (DCA), 0 elsewhere.
    public var contributions: [Double]
    /// Whether any position was held at some moment of the step.
    public var exposed: [Bool]
    public var trades: [ClosedTrade]
    public var openPositions: [OpenPosition]
    public var orders: [OrderRecord]
    /// Commissions and fixed fees paid over the run.
    public var commissionsPaid: Double
    /// Borrow fees paid on short positions (``BacktestConfiguration/borrowRate``), also taken from cash.
    public var borrowFeesPaid: Double = 0
    /// The short positions' market value `Σ |shares| × close` at each step's close, when short selling is allowed
    /// (empty otherwise). With it, per step: net exposure `equity − cash` (= Σ shares × close) and gross exposure
    /// `equity − cash + 2 × short value`.
    public var shortValue: [Double] = []

    public var finalEquity: Double { equity.last ?? configuration.initialCapital }
    public var finalCash: Double { cash.last ?? configuration.initialCapital }
    public var totalContributions: Double { contributions.reduce(0, +) }
    public var rejectedOrders: [OrderRecord] { orders.filter { $0.rejection != nil } }
}
