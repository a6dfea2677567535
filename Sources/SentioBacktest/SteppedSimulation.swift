import SentioCore
import SentioIndicators
import SentioSignals

/// What a ``SteppedSimulation`` runs at each bar: the Sentio signal model of every symbol (the signals a live
/// session publishes, whatever its strategy) and the strategy in streaming form.
///
/// The `sentio` strategy of the session's own model decides from those signals instead of running the model a
/// second time (the model is the costliest update of a live step): its decisions are `SignalStrategy`'s rule
/// (`SignalStrategy.decision(_:isInvested:)`) applied to the session's latest signals. Any other strategy is held
/// as `any Strategy` and fed each bar through its `observe(symbol:bar:)`.
struct SessionDecider: Strategy {
    let name: String
    /// The Sentio signal model of every symbol.
    var signalStates: [SignalModelState]
    /// Each symbol's latest signal, `nil` before its first bar or when the model could not compute it.
    var latestSignals: [Signal?]
    /// Whether the strategy is the `sentio` strategy of the session's model (it decides from `signalDecisions`).
    let decidesFromSignals: Bool
    /// The decision of each symbol's latest signal (hold without one).
    var signalDecisions: [SignalDecision]
    /// Any other strategy, or `nil`.
    var other: (any Strategy)?

    init(_ strategy: any Strategy, symbols: [String], signalModel: SignalModelConfig) throws {
        name = strategy.name
        try signalModel.validate()
        signalStates = symbols.map { SignalModelState(symbol: $0, config: signalModel) }
        latestSignals = Array(repeating: nil, count: symbols.count)
        signalDecisions = Array(repeating: SignalDecision(action: .hold), count: symbols.count)
        if let signals = strategy as? SignalStrategy, signals.model == signalModel {
            decidesFromSignals = true
        } else {
            decidesFromSignals = false
            var strategy = strategy
            try strategy.start(symbols: symbols)
            other = strategy
        }
    }

    mutating func start(symbols: [String]) throws {}

    /// Feeds symbol `s`'s bar to the signal model and the strategy (the decision waits for the step's close).
    /// - Throws: the signal model's error for a bar it cannot represent (the strategy still observed the bar).
    @inline(__always)
    mutating func observeBar(symbol s: Int, bar: Bar) throws(SignalInputError) {
        if other != nil { other!.observe(symbol: s, bar: bar) }
        do {
            // In place after the first bar: the signal value is not copied on the per-bar path.
            if latestSignals[s] != nil {
                try signalStates[s].update(bar, into: &latestSignals[s]!)
            } else {
                latestSignals[s] = try signalStates[s].update(bar)
            }
            if decidesFromSignals { signalDecisions[s] = SignalDecision(latestSignals[s]!) }
        } catch {
            latestSignals[s] = nil
            signalDecisions[s] = SignalDecision(action: .hold)
            throw error
        }
    }

    mutating func observe(symbol s: Int, bar: Bar) { try? observeBar(symbol: s, bar: bar) }

    @inline(__always)
    mutating func decide(_ context: DecisionContext) -> Decision {
        if decidesFromSignals { return SignalStrategy.decision(signalDecisions[context.symbol], isInvested: context.isInvested) }
        return other!.decide(context)
    }

    /// The strategy's state for a snapshot: the `sentio` strategy's is the signal model's (saved beside it).
    func savedState() -> StrategyState? { decidesFromSignals ? StrategyState() : other!.savedState() }

    mutating func restore(_ state: StrategyState) throws {
        if decidesFromSignals {
            signalDecisions = latestSignals.map { $0.map(SignalDecision.init) ?? SignalDecision(action: .hold) }
        } else {
            try other!.restore(state)
        }
    }
}

/// The prices of the step being collected, one slot per symbol.
struct PendingStepBars: StepBars {
    let opens: Slots<Double>, highs: Slots<Double>, lows: Slots<Double>, closes: Slots<Double>
    @inline(__always) func open(_ s: Int, _ bar: Int) -> Double { opens[s] }
    @inline(__always) func high(_ s: Int, _ bar: Int) -> Double { highs[s] }
    @inline(__always) func low(_ s: Int, _ bar: Int) -> Double { lows[s] }
    @inline(__always) func close(_ s: Int, _ bar: Int) -> Double { closes[s] }
}

/// An order the strategy placed (logged by a ``SteppedSimulation``).
public struct OrderPlacement: Sendable, Equatable {
    public var id: Int
    public var symbol: Int
    public var side: OrderSide
    /// A DCA deposit-and-buy.
    public var isContribution: Bool
    /// The deposit of a contribution, 0 otherwise.
    public var amount: Double
    /// The step at whose close it was placed.
    public var step: Int
    /// The length of the order log (``SteppedSimulation/orders``) when it was placed: it comes after the
    /// resolutions logged before that position, and before the others.
    public var ordersResolvedBefore: Int
}

/// The backtest's simulator driven one step at a time (the engine of a live session, SentioLive).
///
/// Symbols deliver their bars for the step being collected with ``add(symbol:bar:)`` (any order); then
/// ``completeStep(time:)`` processes the step through the very step function `Backtest.run` replays: a symbol
/// that delivered no bar has no bar at that step, as in a backtest whose series lacks that timestamp. After
/// the steps of a market's timeline, ``result()`` is bit-identical to `Backtest.run` on that market with the
/// same strategy (its batch form for the built-in ones).
///
/// The caller guarantees the order: step times strictly increasing, at most one bar per symbol per step,
/// valid prices (finite, positive). A reference type with exclusive mutable state: one task at a time.
public final class SteppedSimulation {
    public let configuration: BacktestConfiguration
    /// The strategy's name and settings.
    public let strategy: StrategySpec
    public let symbols: [String]
    public let signalModel: SignalModelConfig
    /// The mutable per-bar state (account and strategy) lives behind a pointer the instance owns, not in stored
    /// `var`s: every access to a class's stored `var` pays Swift's dynamic exclusivity bookkeeping
    /// (`swift_beginAccess`/`swift_endAccess`, about 900 instructions per bar in the live step, callgrind), while
    /// `pointee` accesses are statically checked only. The class is still used by one task at a time.
    let coreStorage: UnsafeMutablePointer<SimulationCore>
    let deciderStorage: UnsafeMutablePointer<SessionDecider>
    var core: SimulationCore {
        @inline(__always) _read { yield coreStorage.pointee }
        @inline(__always) _modify { yield &coreStorage.pointee }
    }
    var decider: SessionDecider {
        @inline(__always) _read { yield deciderStorage.pointee }
        @inline(__always) _modify { yield &deciderStorage.pointee }
    }
    let bars: PendingStepBars
    /// The times of the completed steps held in memory: steps ``historyBase``... (all of them unless the
    /// simulation was restored from a state without history).
    public internal(set) var timestamps: [Int64] = []
    /// Steps, order-log entries and closed trades before the history held in memory: 0 unless the simulation
    /// was restored from a state taken without history (`state(includingHistory: false)`); see
    /// ``hasFullHistory`` and ``prependHistory(_:)``.
    public internal(set) var historyBase = HistoryBase()

    /// A flat account with the configuration's initial capital, running the strategy `strategy` names in
    /// `registry` (the `sentio` strategy with `signalModel`).
    ///
    /// - Throws: `BacktestError` for an invalid configuration, no symbol, a symbol listed twice, an unknown
    ///   strategy or invalid parameter, a DCA symbol not among `symbols`; `SignalConfigError` for an invalid
    ///   signal model.
    public convenience init(configuration: BacktestConfiguration, strategy: StrategySpec, symbols: [String],
                            signalModel: SignalModelConfig = SignalModelConfig(), registry: StrategyRegistry = .shared) throws {
        try signalModel.validate()
        let made = try registry.make(strategy, signalModel: signalModel)
        try self.init(configuration: configuration, running: made, symbols: symbols, signalModel: signalModel)
    }

    /// A flat account with the configuration's initial capital, running `strategy` in streaming form (it is
    /// started with `symbols`).
    ///
    /// - Throws: `BacktestError` for an invalid configuration, no symbol, a symbol listed twice; what the
    ///   strategy's `start(symbols:)` throws; `SignalConfigError` for an invalid signal model.
    public init(configuration: BacktestConfiguration, running strategy: any Strategy, symbols: [String],
                signalModel: SignalModelConfig = SignalModelConfig()) throws {
        if let problem = configuration.validationProblem() { throw BacktestError(problem) }
        guard !symbols.isEmpty else { throw BacktestError("no data: the backtest needs at least one symbol") }
        var seen = Set<String>()
        for s in symbols where !seen.insert(s).inserted { throw BacktestError("symbol \(s) appears twice") }
        self.configuration = configuration
        self.strategy = StrategySpec(strategy)
        self.symbols = symbols
        self.signalModel = signalModel
        let decider = try SessionDecider(strategy, symbols: symbols, signalModel: signalModel)
        var core = SimulationCore(configuration: configuration, symbols: symbols, stepCapacity: 1024)
        core.placements.reserveCapacity(4 * symbols.count)
        core.logsPlacements = true
        coreStorage = .allocate(capacity: 1)
        coreStorage.initialize(to: core)
        deciderStorage = .allocate(capacity: 1)
        deciderStorage.initialize(to: decider)
        let n = symbols.count
        bars = PendingStepBars(
            opens: Slots(repeating: .nan, count: n), highs: Slots(repeating: .nan, count: n),
            lows: Slots(repeating: .nan, count: n), closes: Slots(repeating: .nan, count: n))
    }

    deinit {
        coreStorage.deinitialize(count: 1)
        coreStorage.deallocate()
        deciderStorage.deinitialize(count: 1)
        deciderStorage.deallocate()
        bars.opens.free()
        bars.highs.free()
        bars.lows.free()
        bars.closes.free()
    }

    /// Symbol number `s` (index in ``symbols``) delivers `bar` for the step being collected: stores its prices
    /// and feeds its indicators and signal model (its signal is then ``latestSignal(_:)``).
    ///
    /// - Throws: `SignalInputError.unrepresentable` when the signal model cannot represent a quantity of this
    ///   bar: the bar is still part of the step (the strategy observed it; the backtest of a non-signal strategy
    ///   trades it), the symbol has no signal for it, and the `sentio` strategy holds.
    public func add(symbol s: Int, bar: Bar) throws(SignalInputError) {
        precondition(!core.hasBar[s], "symbol \(symbols[s]) already delivered a bar for this step")
        core.hasBar[s] = true
        bars.opens[s] = bar.open
        bars.highs[s] = bar.high
        bars.lows[s] = bar.low
        bars.closes[s] = bar.close
        try decider.observeBar(symbol: s, bar: bar)
    }

    /// Whether symbol number `s` delivered a bar for the step being collected.
    public func hasBar(_ s: Int) -> Bool { core.hasBar[s] }

    /// Processes the step being collected at `time` (after every step already processed), then starts an
    /// empty one.
    public func completeStep(time: Int64) {
        let step = stepCount
        timestamps.append(time)
        core.step(step, time: time, bars: bars, strategy: &decider)
        for s in 0..<core.symbolCount { core.hasBar[s] = false }
    }

    /// Number of completed steps.
    public var stepCount: Int { historyBase.steps + timestamps.count }

    /// The time of the last completed step, `nil` before the first.
    public var lastStepTime: Int64? { timestamps.last ?? historyBase.lastStepTime }

    /// The time of completed step `step` (held in memory: `step >= historyBase.steps`).
    public func timestamp(atStep step: Int) -> Int64 { timestamps[step - historyBase.steps] }

    /// Whether the whole history (every step's time and curve points, the whole order and trade logs) is held:
    /// ``result()`` needs it.
    public var hasFullHistory: Bool { historyBase.steps == 0 }

    /// The symbol's latest signal (`nil` before its first bar, or when the model could not compute it).
    public func latestSignal(_ s: Int) -> Signal? { decider.latestSignals[s] }

    /// The order log held in memory (entries ``HistoryBase/orders``... of the session's), in resolution order
    /// (`Backtest`'s `orders` is sorted by id).
    public var orders: [OrderRecord] { core.orders }
    /// Entry `i` of the order log (held in memory: `i >= historyBase.orders`).
    public func order(_ i: Int) -> OrderRecord { core.orders[i - historyBase.orders] }
    /// The closed trades held in memory (trades ``HistoryBase/trades``...), in exit order.
    public var trades: [ClosedTrade] { core.trades }
    /// Number of closed trades.
    public var tradeCount: Int { historyBase.trades + core.trades.count }
    /// The equity (cash + positions at their last close) at the close of completed step `step` (held in memory).
    public func equity(atStep step: Int) -> Double { core.equityCurve[step - historyBase.steps] }
    /// The cash at the close of completed step `step` (held in memory).
    public func cash(atStep step: Int) -> Double { core.cashCurve[step - historyBase.steps] }
    /// The deposits made at completed step `step` (held in memory).
    public func contribution(atStep step: Int) -> Double { core.contributions[step - historyBase.steps] }
    public var cash: Double { core.cash }
    public var openPositionCount: Int { core.openCount }

    /// Number of entries of the order log.
    public var orderCount: Int { historyBase.orders + core.orders.count }

    /// Number of order placements since the last ``discardPlacements()``.
    public var placementCount: Int { core.placements.count }

    /// Placement number `i` since the last ``discardPlacements()`` (oldest first).
    public func placement(_ i: Int) -> OrderPlacement {
        var p = core.placements[i]
        p.ordersResolvedBefore += historyBase.orders
        return p
    }

    /// Forgets the placements (keeping the buffer's capacity).
    public func discardPlacements() { core.placements.removeAll(keepingCapacity: true) }

    /// What `Backtest.run` returns on the completed steps' bars. Orders still pending are listed as the
    /// backtest lists them when its data ends: rejected with `no-bar-for-symbol` at the last step.
    ///
    /// Needs the whole history (``hasFullHistory``; restore it with ``prependHistory(_:)``): a simulation without
    /// it stops with a precondition failure rather than return a partial result.
    public func result() -> BacktestResult {
        precondition(hasFullHistory, "the simulation's history before step \(historyBase.steps) is not loaded")
        let extra = timestamps.isEmpty ? [] : core.pendingRejections(lastStep: timestamps.count - 1)
        return core.result(strategyName: decider.name, timestamps: timestamps, extraOrders: extra)
    }

    /// Reserves room for `steps` more completed steps, `orders` more order-log entries and `trades` more closed
    /// trades, so that the per-step history grows without allocating until then (a session that knows its
    /// expected length steps allocation-free; the growth is otherwise geometric, amortized O(1)).
    public func reserveCapacity(steps: Int, orders: Int, trades: Int) {
        timestamps.reserveCapacity(timestamps.count + steps)
        core.equityCurve.reserve(core.equityCurve.count + steps)
        core.cashCurve.reserve(core.cashCurve.count + steps)
        core.contributions.reserve(core.contributions.count + steps)
        core.exposed.reserve(core.exposed.count + steps)
        if configuration.allowShort { core.shortValueCurve.reserve(core.shortValueCurve.count + steps) }
        core.orders.reserveCapacity(core.orders.count + orders)
        core.trades.reserveCapacity(core.trades.count + trades)
    }

    /// Puts back the history before ``historyBase``: `prefix` is a simulation with the same configuration,
    /// strategy, symbols and signal model, holding its whole history, fed exactly the steps this one's state was
    /// taken after (the caller checks the states match, e.g. by comparing `state(includingHistory: false)`).
    ///
    /// - Throws: `BacktestError` when `prefix` lacks history, or its step, order and trade counts are not this
    ///   simulation's ``historyBase``.
    public func prependHistory(_ prefix: SteppedSimulation) throws {
        if hasFullHistory { return }
        guard prefix.hasFullHistory, prefix.stepCount == historyBase.steps, prefix.orderCount == historyBase.orders,
              prefix.tradeCount == historyBase.trades, prefix.lastStepTime == historyBase.lastStepTime else {
            throw BacktestError(
                "the history given has \(prefix.stepCount) steps, \(prefix.orderCount) orders and \(prefix.tradeCount) trades; expected \(historyBase.steps), \(historyBase.orders) and \(historyBase.trades)")
        }
        timestamps = prefix.timestamps + timestamps
        core.equityCurve.replace(with: prefix.core.equityCurve.array + core.equityCurve.array)
        core.cashCurve.replace(with: prefix.core.cashCurve.array + core.cashCurve.array)
        core.contributions.replace(with: prefix.core.contributions.array + core.contributions.array)
        core.exposed.replace(with: prefix.core.exposed.array + core.exposed.array)
        if configuration.allowShort {
            core.shortValueCurve.replace(with: prefix.core.shortValueCurve.array + core.shortValueCurve.array)
        }
        core.orders = prefix.core.orders + core.orders
        core.trades = prefix.core.trades + core.trades
        historyBase = HistoryBase()
    }
}

/// What a ``SteppedSimulation`` restored without history does not hold: its first `steps` completed steps
/// (the last of them at `lastStepTime`), order-log entries and closed trades.
public struct HistoryBase: Sendable, Codable, Equatable {
    /// Completed steps not held (their times and curve points).
    public var steps = 0
    /// Order-log entries not held.
    public var orders = 0
    /// Closed trades not held.
    public var trades = 0
    /// The time of the last step not held (`nil` when `steps` is 0).
    public var lastStepTime: Int64?

    /// Nothing left out.
    public init() {}
}

extension Curve {
    /// Grows the capacity to at least `n` elements.
    mutating func reserve(_ n: Int) {
        while capacity < n { grow() }
    }
}
