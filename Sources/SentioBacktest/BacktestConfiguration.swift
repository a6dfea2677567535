import SentioCore

/// When an order decided at a bar's close is filled.
public enum FillTiming: String, Sendable, Codable, CaseIterable {
    /// At the next bar's open of the same symbol (the default; no look-ahead).
    case nextOpen = "next-open"
    /// At the same bar's close. Look-ahead-prone: the decision and the fill use the same price, which a
    /// real trader could only approximate with a market-on-close order placed before the close.
    case close
}

/// How many shares an entry order buys.
public enum PositionSizing: Sendable, Equatable {
    /// Everything the cash allows: `shares = floor((cash − fee) / (price × (1 + commission)))`.
    case allIn
    /// Each new position gets `equity / maxPositions` (capped by cash); no more than `maxPositions` open.
    case equalWeight(maxPositions: Int)
    /// Each new position gets `fraction × equity` (capped by cash), `0 < fraction ≤ 1`.
    case fractionOfEquity(Double)

    /// The CLI spelling, for `config` in the JSON output.
    public var name: String {
        switch self {
        case .allIn: "all-in"
        case .equalWeight: "equal-weight"
        case .fractionOfEquity: "fraction"
        }
    }
}

/// Which price the percent stop-loss and take-profit levels are measured from.
public enum StopReference: String, Sendable, Codable {
    /// The close of the bar at which the entry was decided (the default). This is the price the signal
    /// model quotes its `profitTarget` against, and what backtesting.py does (its `sl`/`tp` are absolute
    /// prices fixed when the order is placed).
    case decisionClose = "decision-close"
    /// The entry fill price (after slippage).
    case entryPrice = "entry-price"
}

/// Trading costs. Every one of them works against the trader.
public struct TradingCosts: Sendable, Equatable {
    /// Commission as a fraction of notional, charged at entry and again at exit (0.001 = 0.1 %).
    public var commissionRate: Double
    /// A fixed fee in currency per filled order.
    public var feePerOrder: Double
    /// Slippage in basis points of the reference price: buys fill at `price × (1 + bps/10⁴)`, sells at
    /// `price × (1 − bps/10⁴)`. Applied to every fill, stop and target exits included.
    public var slippageBasisPoints: Double

    public init(commissionRate: Double = 0, feePerOrder: Double = 0, slippageBasisPoints: Double = 0) {
        self.commissionRate = commissionRate
        self.feePerOrder = feePerOrder
        self.slippageBasisPoints = slippageBasisPoints
    }
}

/// Everything that defines a simulation besides the data and the strategy. A value; no global state.
public struct BacktestConfiguration: Sendable, Equatable {
    /// Starting cash, in currency (default 100,000). May be 0 only for strategies that deposit cash (DCA).
    public var initialCapital: Double
    public var fill: FillTiming
    public var costs: TradingCosts
    public var sizing: PositionSizing
    /// Allow fractional shares (default: whole shares only).
    public var fractionalShares: Bool
    /// Default stop-loss distance in percent below the reference price (e.g. 5 = 5 %), used when an entry
    /// decision carries none. `nil`: no stop.
    public var stopLossPercent: Double?
    /// Default take-profit distance in percent above the reference price. `nil`: no target.
    public var takeProfitPercent: Double?
    public var stopReference: StopReference

    public init(
        initialCapital: Double = 100_000,
        fill: FillTiming = .nextOpen,
        costs: TradingCosts = TradingCosts(),
        sizing: PositionSizing = .allIn,
        fractionalShares: Bool = false,
        stopLossPercent: Double? = nil,
        takeProfitPercent: Double? = nil,
        stopReference: StopReference = .decisionClose
    ) {
        self.initialCapital = initialCapital
        self.fill = fill
        self.costs = costs
        self.sizing = sizing
        self.fractionalShares = fractionalShares
        self.stopLossPercent = stopLossPercent
        self.takeProfitPercent = takeProfitPercent
        self.stopReference = stopReference
    }

    /// Checks the configuration; returns a message describing the first problem, or `nil`.
    public func validationProblem() -> String? {
        if !(initialCapital.isFinite && initialCapital >= 0) { return "initial capital must be a finite number >= 0, got \(initialCapital)" }
        if !(costs.commissionRate.isFinite && costs.commissionRate >= 0 && costs.commissionRate < 1) {
            return "commission must be a rate in [0, 1), got \(costs.commissionRate)"
        }
        if !(costs.feePerOrder.isFinite && costs.feePerOrder >= 0) { return "fee must be >= 0, got \(costs.feePerOrder)" }
        if !(costs.slippageBasisPoints.isFinite && costs.slippageBasisPoints >= 0 && costs.slippageBasisPoints < 10_000) {
            return "slippage must be in [0, 10000) basis points, got \(costs.slippageBasisPoints)"
        }
        switch sizing {
        case .allIn: break
        case .equalWeight(let n): if n < 1 { return "max positions must be >= 1, got \(n)" }
        case .fractionOfEquity(let f): if !(f > 0 && f <= 1) { return "fraction must be in (0, 1], got \(f)" }
        }
        if let s = stopLossPercent, !(s > 0 && s < 100) { return "stop-loss must be a percent in (0, 100), got \(s)" }
        if let t = takeProfitPercent, !(t > 0 && t.isFinite) { return "take-profit must be a positive percent, got \(t)" }
        return nil
    }
}

/// A configuration or data problem found before a simulation starts.
public struct BacktestError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
