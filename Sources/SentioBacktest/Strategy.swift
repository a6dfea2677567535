import SentioCore

/// What a strategy wants for one symbol at the close of one of its bars.
public enum Decision: Sendable, Equatable {
    /// Do nothing.
    case hold
    /// Open a long position sized by the configuration's sizing rule. The stop-loss and take-profit are
    /// distances in percent below/above the reference price (`StopReference`); `nil` falls back to the
    /// configuration's defaults (which may be `nil`: no stop / no target).
    case buy(stopLossPercent: Double? = nil, takeProfitPercent: Double? = nil)
    /// Close the whole position.
    case sell
    /// Deposit `amount` of new money into the account and buy that symbol for it (dollar-cost averaging).
    /// The deposit is an external cash flow: it is excluded from returns (time-weighted) and enters the
    /// money-weighted return.
    case contribute(amount: Double)
}

/// What a strategy may know when it decides: the portfolio state at the close of the current bar.
public struct DecisionContext: Sendable {
    /// Index of the symbol in `Market.series`.
    public var symbol: Int
    /// Index of the bar in that symbol's series (the decision is taken at its close).
    public var bar: Int
    /// Index of the step in `Market.timeline`.
    public var step: Int
    public var timestamp: Int64
    /// Shares held in this symbol (0 when flat).
    public var shares: Double
    public var cash: Double
    /// Cash plus every position marked at its last close.
    public var equity: Double
    @inlinable public var isInvested: Bool { shares > 0 }
}

/// A trading strategy: decisions at a bar's close from data up to that bar.
///
/// `prepare(market:)` is called once with the whole market, so that indicators can be computed in
/// batch over contiguous arrays (as backtesting.py's `Strategy.init` does). Everything prepared must be
/// causal: the value used at bar *i* may depend on bars `0...i` only. The simulator's tests check this
/// for every built-in strategy by running on truncated histories and comparing with the prefix of the
/// full run's decisions.
///
/// `decide(_:)` is called for each symbol at each of its bars, in timeline order, and must not allocate.
public protocol Strategy {
    /// A short name for reports (`rsi`, `buy-and-hold`, ...).
    var name: String { get }
    /// Computes per-symbol state from the market before the run.
    mutating func prepare(market: Market) throws
    /// The decision for `context.symbol` at the close of bar `context.bar`.
    mutating func decide(_ context: DecisionContext) -> Decision
}
