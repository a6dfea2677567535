import Foundation
import SentioCore
import SentioIndicators
import SentioSignals

/// Buys every symbol at its first bar and holds to the end.
///
/// With several symbols, pair it with `.equalWeight(maxPositions: symbolCount)` sizing: under all-in
/// sizing the first symbol takes all the cash and the others are rejected (and logged) for
/// insufficient cash.
public struct BuyAndHoldStrategy: Strategy {
    public init() {}
    public var name: String { "buy-and-hold" }
    public mutating func start(symbols: [String]) throws {}
    @inline(__always) public mutating func observe(symbol: Int, bar: Bar) {}
    public mutating func prepare(market: Market) throws -> StrategyPreparation { .batch }
    public mutating func decide(_ context: DecisionContext) -> Decision { Self.decision(context) }
    /// Nothing to save: the rule reads the bar number only.
    public func savedState() -> StrategyState? { StrategyState() }
    public mutating func restore(_ state: StrategyState) throws {}

    /// The rule: buy at the symbol's first bar.
    @inline(__always)
    static func decision(_ context: DecisionContext) -> Decision { context.bar == 0 ? .buy() : .hold }
}

/// Computes an indicator over a close series: the injection point through which strategies get their
/// indicators from SentioIndicators (one implementation of each formula in the package).
public typealias IndicatorProvider = @Sendable (_ close: [Double], _ period: Int) -> IndicatorSeries

/// RSI mean reversion: buy when RSI < `lower`, sell when RSI > `upper` (long-only, one position per symbol).
///
/// The RSI is Wilder's RSI(`period`) of the close as TA-Lib computes it: SentioIndicators'
/// `relativeStrengthIndex` unless another provider is injected (tests inject TA-Lib's own values). RSI at
/// bar *i* uses closes `0...i` only. No decision is taken before the RSI's first valid bar (backtesting.py
/// starts one bar later; see Documentation.docc/Backtests.md).
///
/// In streaming form each symbol has a `RelativeStrengthIndex` state fed one close at a time: the very update
/// step the batch function runs (an injected provider applies to the batch form only).
public struct RSIStrategy: Strategy {
    public var period: Int
    public var lower: Double
    public var upper: Double
    private let rsi: IndicatorProvider
    private var values: [IndicatorSeries] = []
    /// Streaming form: each symbol's RSI state and latest value (NaN during the warm-up).
    var states: [RelativeStrengthIndex] = []
    var latest: [Double] = []

    public init(
        period: Int = 14, lower: Double = 30, upper: Double = 70,
        rsi: @escaping IndicatorProvider = { close, period in relativeStrengthIndex(close, period: period) }
    ) {
        precondition(period > 0, "RSI period must be positive")
        precondition(lower < upper, "RSI lower threshold must be below the upper one")
        self.period = period
        self.lower = lower
        self.upper = upper
        self.rsi = rsi
    }

    public var name: String { "rsi" }

    public var settings: [(key: String, value: String)] { StrategySpec.rsi(period: period, lower: lower, upper: upper).settings }

    /// Computes the RSI of every symbol, in parallel over symbols.
    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        let rsi = self.rsi, period = self.period, series = market.series
        values = try concurrentMap(series.count) { rsi(series[$0].close, period) }
        states = []
        return .batch
    }

    public mutating func start(symbols: [String]) throws {
        values = []
        states = Array(repeating: RelativeStrengthIndex(period: period), count: symbols.count)
        latest = Array(repeating: .nan, count: symbols.count)
    }

    @inline(__always)
    public mutating func observe(symbol s: Int, bar: Bar) {
        latest[s] = states[s].update(bar.close) ?? .nan
    }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        let value: Double
        if states.isEmpty {
            guard let v = values[context.symbol].value(at: context.bar) else { return .hold }
            value = v
        } else {
            value = latest[context.symbol]
        }
        return Self.decision(rsi: value, isInvested: context.isInvested, lower: lower, upper: upper)
    }

    public func savedState() -> StrategyState? {
        StrategyState(rsiStates: states, rsiValues: latest.map(\.bitPattern))
    }

    public mutating func restore(_ state: StrategyState) throws {
        guard state.rsiStates.count == states.count, state.rsiValues.count == states.count else {
            throw BacktestError("the saved RSI state does not fit \(states.count) symbols")
        }
        states = state.rsiStates
        latest = state.rsiValues.map(Double.init(bitPattern:))
    }

    /// The rule: NaN (warm-up) holds; flat and
    /// `rsi < lower` buys; invested and `rsi > upper` sells.
    @inline(__always)
    static func decision(rsi value: Double, isInvested: Bool, lower: Double, upper: Double) -> Decision {
        if value.isNaN { return .hold }
        if !isInvested && value < lower { return .buy() }
        if isInvested && value > upper { return .sell }
        return .hold
    }
}

/// How often dollar-cost averaging invests.
public enum ContributionPeriod: String, Sendable, CaseIterable {
    /// ISO weeks (Monday to Sunday, UTC).
    case week
    /// Calendar months (UTC).
    case month

    /// A number that changes exactly when a new period starts.
    @inlinable
    public func periodKey(epochSeconds: Int64) -> Int {
        let days = Int(floorDivide(epochSeconds, 86_400))
        switch self {
        case .week:
            // 1970-01-01 was a Thursday; shifting by 3 days makes weeks start on Monday.
            return Int(floorDivide(Int64(days + 3), 7))
        case .month:
            let date = CivilDate(daysSinceEpoch: days)
            return date.year * 12 + date.month - 1
        }
    }
}

/// Dollar-cost averaging: at each symbol's first bar of every week or month, deposit
/// `amount / symbolCount` of new money and buy that symbol with it. Never sells.
///
/// The deposits are external cash flows: the time-weighted return excludes them, the money-weighted
/// return (XIRR of the deposits and the final value) includes them. Start it with
/// `initialCapital: 0` to measure the contributions alone.
public struct DollarCostAveragingStrategy: Strategy {
    public var amount: Double
    public var period: ContributionPeriod
    /// The symbols to invest in; `nil`: every symbol of the market.
    public var symbols: [String]?
    private var invests: [Bool] = []
    var lastPeriod: [Int] = []
    private var share = 0.0

    public init(amount: Double, every period: ContributionPeriod, symbols: [String]? = nil) {
        precondition(amount > 0 && amount.isFinite, "DCA amount must be positive")
        self.amount = amount
        self.period = period
        self.symbols = symbols
    }

    public var name: String { "dca" }

    public var settings: [(key: String, value: String)] { StrategySpec.dca(amount: amount, every: period, symbols: symbols).settings }

    /// Sets up the per-symbol state for `names` (the market's symbols, in order).
    ///
    /// - Throws: `BacktestError` for a symbol to invest in that is not among `names`.
    public mutating func start(symbols names: [String]) throws {
        if let wanted = symbols {
            for w in wanted where !names.contains(w) {
                throw BacktestError("unknown symbol \(w) for DCA; available: \(names.joined(separator: ", "))")
            }
            invests = names.map { wanted.contains($0) }
        } else {
            invests = Array(repeating: true, count: names.count)
        }
        let count = invests.filter { $0 }.count
        guard count > 0 else { throw BacktestError("DCA needs at least one symbol") }
        share = amount / Double(count)
        lastPeriod = Array(repeating: Int.min, count: names.count)
    }

    /// Deposits depend on the calendar only: nothing to compute in batch.
    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        try start(symbols: market.symbols)
        return .batch
    }

    /// Deposits depend on the calendar only.
    @inline(__always) public mutating func observe(symbol: Int, bar: Bar) {}

    public func savedState() -> StrategyState? { StrategyState(dcaLastPeriod: lastPeriod) }

    public mutating func restore(_ state: StrategyState) throws {
        guard state.dcaLastPeriod.count == lastPeriod.count else {
            throw BacktestError("the saved DCA state does not fit \(lastPeriod.count) symbols")
        }
        lastPeriod = state.dcaLastPeriod
    }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        guard invests[context.symbol] else { return .hold }
        let key = period.periodKey(epochSeconds: context.timestamp)
        guard key != lastPeriod[context.symbol] else { return .hold }
        lastPeriod[context.symbol] = key
        return .contribute(amount: share)
    }
}

/// One bar's output of a signal model, as the backtest needs it.
public struct SignalDecision: Sendable, Equatable, Codable {
    public enum Action: String, Sendable, Codable { case buy = "BUY", sell = "SELL", hold = "HOLD" }
    public var action: Action
    /// The signal's stop distance in percent (the signal model's `stopLoss`, e.g. −1.12; the sign is ignored).
    public var stopLossPercent: Double
    /// The signal's expected return in percent (`targetReturn`); a positive value sets the profit target.
    public var targetReturnPercent: Double

    public init(action: Action, stopLossPercent: Double = .nan, targetReturnPercent: Double = .nan) {
        self.action = action
        self.stopLossPercent = stopLossPercent
        self.targetReturnPercent = targetReturnPercent
    }
}

/// Per-symbol signal decisions for every bar of a series. The decision at bar *i* may use bars `0...i`.
public typealias SignalProvider = @Sendable (_ series: OHLCVSeries) throws -> [SignalDecision]

/// A strategy driven by a signal model: BUY opens a position (sized by the sizing rule) with the
/// signal's stop and target; SELL closes it; HOLD does nothing. A BUY while invested and a SELL while
/// flat are ignored (they are not orders).
///
/// The Sentio strategy is this adapter fed by SentioSignals (`SignalStrategy.sentio(config:)`); tests
/// feed it synthetic decisions. Only the Sentio strategy has a streaming form (a `SignalModelState` per symbol,
/// the model's own streaming update, which the batch provider also runs); a strategy built from another
/// provider runs in backtests only, and `start(symbols:)` says so.
public struct SignalStrategy: Strategy {
    public let name: String
    private let provider: SignalProvider
    private var decisions: [[SignalDecision]] = []
    /// The model of the streaming form (`nil`: batch only).
    public let model: SignalModelConfig?
    /// Streaming form: each symbol's model state and the decision of its latest bar.
    var states: [SignalModelState] = []
    var latest: [SignalDecision] = []
    var streams = false

    public init(name: String = "sentio", provider: @escaping SignalProvider) {
        self.init(name: name, model: nil, provider: provider)
    }

    init(name: String, model: SignalModelConfig?, provider: @escaping SignalProvider) {
        self.name = name
        self.model = model
        self.provider = provider
    }

    public mutating func start(symbols: [String]) throws {
        guard let model else {
            throw BacktestError("strategy \(name) has no streaming form (only SignalStrategy.sentio(config:) has one)")
        }
        decisions = []
        states = symbols.map { SignalModelState(symbol: $0, config: model) }
        latest = Array(repeating: SignalDecision(action: .hold), count: symbols.count)
        streams = true
    }

    /// Updates the symbol's model; a bar the model cannot represent leaves the symbol without a signal (it holds).
    public mutating func observe(symbol s: Int, bar: Bar) {
        do {
            latest[s] = SignalDecision(try states[s].update(bar))
        } catch {
            latest[s] = SignalDecision(action: .hold)
        }
    }

    /// The streaming state: each symbol's model state and latest decision.
    private struct Saved: Codable {
        var states: [SignalModelState]
        var latest: [SignalDecision]
    }

    public func savedState() -> StrategyState? { streams ? StrategyState.encode(Saved(states: states, latest: latest)) : nil }

    public mutating func restore(_ state: StrategyState) throws {
        guard let saved = try? state.decode(Saved.self), saved.states.count == states.count, saved.latest.count == states.count else {
            throw BacktestError("the saved signal model states do not fit \(states.count) symbols")
        }
        states = saved.states
        latest = saved.latest
    }

    /// Runs the provider on every symbol, in parallel over symbols.
    public mutating func prepare(market: Market) throws -> StrategyPreparation {
        streams = false
        let provider = self.provider, all = market.series
        decisions = try concurrentMap(all.count) { k in
            let series = all[k]
            let d = try provider(series)
            guard d.count == series.count else {
                throw BacktestError("signal provider returned \(d.count) decisions for \(series.count) bars of \(series.symbol)")
            }
            return d
        }
        return .batch
    }

    public mutating func decide(_ context: DecisionContext) -> Decision {
        let d = streams ? latest[context.symbol] : decisions[context.symbol][context.bar]
        return Self.decision(d, isInvested: context.isInvested)
    }

    /// The rule: BUY while flat opens with the signal's
    /// stop (`|stopLossPercent|` when in (0, 100)) and target (when positive and finite); SELL while invested
    /// closes; everything else holds.
    @inline(__always)
    static func decision(_ d: SignalDecision, isInvested: Bool) -> Decision {
        switch d.action {
        case .buy where !isInvested:
            let stop = d.stopLossPercent.magnitude
            let target = d.targetReturnPercent
            return .buy(
                stopLossPercent: stop > 0 && stop < 100 ? stop : nil,
                takeProfitPercent: target > 0 && target.isFinite ? target : nil)
        case .sell where isInvested:
            return .sell
        default:
            return .hold
        }
    }
}
