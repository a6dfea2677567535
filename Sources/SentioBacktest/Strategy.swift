import Foundation
import SentioCore
import SentioIndicators

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
    /// Place an order of the order model (type, time in force, quantity, bracket): see ``OrderRequest``. It
    /// works beside the built-in decisions' orders; the configuration's default stop-loss and take-profit do not
    /// apply to it (a bracket's levels are its own).
    indirect case order(OrderRequest)
    /// Place two orders that cancel each other: when one fills, the other is cancelled (`oco`).
    indirect case oco(OrderRequest, OrderRequest)
    /// Place several orders at once, in this order (each independent: a reversal is a closing order, then an
    /// opening one, e.g. `[sell all, sell all]` from long to short with short selling allowed).
    indirect case orders([OrderRequest])
    /// Trade symbol `context.symbol` to `weight` of the marked equity (in [0, 1]; 0.6 = 60 %): when the current weight
    /// `shares × close / equity` differs from it by more than `tolerance` (a band in weight units, 0.05 = 5 points),
    /// a market order for the difference (``OrderQuantity/targetPercent(_:)``, sized at the fill with the sizing and cost
    /// rules) is placed; within the band nothing is.
    case targetWeight(Double, tolerance: Double = 0)
    /// Cancel every working order of the order model for this symbol (status `cancelled`, reason `strategy`).
    case cancelOrders
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

/// How a strategy took its data in ``Strategy/prepare(market:)``.
public enum StrategyPreparation: Sendable, Equatable {
    /// It computed what it needs from the whole market at once: the backtest does not call
    /// ``Strategy/observe(symbol:bar:)``.
    case batch
    /// It was started (``Strategy/start(symbols:)``) and takes each bar as it comes: the backtest calls
    /// ``Strategy/observe(symbol:bar:)`` with every bar, before the decisions of the bar's step.
    case streaming
}

/// A trading strategy: decisions at a bar's close from data up to that bar. The one protocol that
/// `Backtest.run`, a live session (``SteppedSimulation``) and a sweep accept.
///
/// **The streaming form is required.** A strategy is started with the symbols' names
/// (``start(symbols:)``), sees each symbol's bar as it arrives (``observe(symbol:bar:)``, every bar of a step
/// before any decision of that step) and decides at the close (``decide(_:)``, each symbol with a bar, in the
/// simulator's canonical order). That is all a live session ever calls.
///
/// **The batch form is optional.** A backtest first calls ``prepare(market:)`` with the whole market; the
/// default starts the strategy and answers ``StrategyPreparation/streaming``, so that the backtest streams
/// every bar through ``observe(symbol:bar:)``. A strategy may instead compute its indicators in batch over
/// contiguous arrays (as backtesting.py's `Strategy.init` does) and answer ``StrategyPreparation/batch``; it
/// must then decide exactly as its streaming form would, bar for bar (the built-in strategies' parity is
/// tested on random markets). Everything prepared must be causal: the value used at bar *i* may depend on bars
/// `0...i` only (the simulator's tests run every built-in strategy on truncated histories and compare).
///
/// `observe` and `decide` are called for each bar and must not allocate. A bar a strategy cannot use (an
/// indicator overflow, a quantity its model cannot represent) makes it hold for that symbol; in batch form
/// `prepare` throws instead, naming the bar.
///
/// **Snapshots.** A live session's snapshots store the strategy's state (``savedState()``); a strategy that
/// returns `nil` there is rebuilt by replaying the session's journal from its first bar instead. `Codable`
/// strategies get both methods for free.
///
/// **Names.** ``StrategyRegistry`` finds a strategy by ``name`` and rebuilds it from its ``settings``: what
/// `--strategy` selects and what a live journal stores.
public protocol Strategy {
    /// A short name for reports and the registry (`rsi`, `buy-and-hold`, ...).
    var name: String { get }
    /// The parameters as `(key, value)` text, keys prefixed by the name (`rsi.period`): what a live journal
    /// stores, and what ``StrategyDescriptor/make`` reads back. Default: none.
    var settings: [(key: String, value: String)] { get }
    /// Sets up per-symbol state for `symbols` (the market's or the session's universe, in order).
    ///
    /// - Throws: a `UserInputError` when the strategy cannot run on these symbols (a DCA symbol outside them).
    mutating func start(symbols: [String]) throws
    /// Symbol number `symbol` (index in the started symbols) delivers `bar`.
    mutating func observe(symbol: Int, bar: Bar)
    /// The decision for `context.symbol` at the close of bar `context.bar`.
    mutating func decide(_ context: DecisionContext) -> Decision
    /// Computes per-symbol state from the whole market before a backtest. Default: `start(symbols:)`, then
    /// ``StrategyPreparation/streaming``.
    mutating func prepare(market: Market) throws -> StrategyPreparation
    /// The streaming state, exactly (for a live session's snapshot), or `nil` when the strategy does not save it.
    func savedState() -> StrategyState?
    /// Continues from `state`, taken by ``savedState()`` of a strategy with the same settings and symbols
    /// (``start(symbols:)`` was called first).
    ///
    /// - Throws: `BacktestError` when the state does not fit.
    mutating func restore(_ state: StrategyState) throws
}

extension Strategy {
    public var settings: [(key: String, value: String)] { [] }

    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        try start(symbols: market.symbols)
        return .streaming
    }

    public func savedState() -> StrategyState? { nil }

    public mutating func restore(_ state: StrategyState) throws {
        throw BacktestError("strategy \(name) does not restore a saved state")
    }
}

extension Strategy where Self: Codable {
    /// The strategy itself, as JSON (``StrategyState/encode(_:)``).
    public func savedState() -> StrategyState? { StrategyState.encode(self) }

    /// Decodes the strategy saved by ``savedState()``.
    public mutating func restore(_ state: StrategyState) throws {
        self = try state.decode(Self.self)
    }
}

/// A strategy's streaming state in a live session's snapshot. The built-in strategies keep theirs in typed
/// fields (the snapshot's format, unchanged since the strategies had no protocol for it); any other strategy
/// keeps its state as JSON text in ``custom``.
public struct StrategyState: Sendable {
    /// RSI states (the `rsi` strategy).
    var rsiStates: [RelativeStrengthIndex] = []
    /// The latest RSI of each symbol, as bit patterns (the `rsi` strategy).
    var rsiValues: [UInt64] = []
    /// The period key of each symbol's latest deposit (the `dca` strategy).
    var dcaLastPeriod: [Int] = []
    /// Any other strategy's state, as JSON text.
    public var custom: String?

    /// A state of a strategy outside the built-in ones: `custom` is its JSON text.
    public init(custom: String?) { self.custom = custom }

    /// `value` as JSON text in ``custom``: keys sorted and doubles in their shortest round-trip form, so that equal
    /// states are equal bytes (a journal checks a rebuilt session against its snapshot byte for byte); non-finite
    /// doubles as the strings `nan`, `inf`, `-inf`. `nil` when `value` cannot be encoded.
    public static func encode(_ value: some Encodable) -> StrategyState? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? encoder.encode(value)).map { StrategyState(custom: String(decoding: $0, as: UTF8.self)) }
    }

    /// The value ``encode(_:)`` saved.
    /// - Throws: `BacktestError` when there is none; the decoder's error when it is not a `T`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let custom else { throw BacktestError("the saved strategy state is empty") }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(T.self, from: Data(custom.utf8))
    }

    init(rsiStates: [RelativeStrengthIndex] = [], rsiValues: [UInt64] = [], dcaLastPeriod: [Int] = [], custom: String? = nil) {
        self.rsiStates = rsiStates
        self.rsiValues = rsiValues
        self.dcaLastPeriod = dcaLastPeriod
        self.custom = custom
    }
}
