import SentioCore
import SentioIndicators
import SentioSignals

/// A strategy in streaming form, for ``SteppedSimulation``: the same decisions as the backtest's batch
/// strategies on the same bars, from indicator states updated one bar at a time by the very update functions
/// the batch computations run.
public struct StreamingStrategy: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case sentio
        case rsi(period: Int, lower: Double, upper: Double)
        case buyAndHold
        case dca(amount: Double, period: ContributionPeriod, symbols: [String]?)
    }

    let kind: Kind

    /// `SignalStrategy.sentio(config:)`, with the simulation's signal model configuration.
    public static let sentio = StreamingStrategy(kind: .sentio)
    /// `RSIStrategy(period:lower:upper:)` with SentioIndicators' RSI.
    public static func rsi(period: Int, lower: Double, upper: Double) -> StreamingStrategy {
        StreamingStrategy(kind: .rsi(period: period, lower: lower, upper: upper))
    }
    /// `BuyAndHoldStrategy()`.
    public static let buyAndHold = StreamingStrategy(kind: .buyAndHold)
    /// `DollarCostAveragingStrategy(amount:every:symbols:)`.
    public static func dca(amount: Double, every period: ContributionPeriod, symbols: [String]? = nil) -> StreamingStrategy {
        StreamingStrategy(kind: .dca(amount: amount, period: period, symbols: symbols))
    }

    /// The batch strategy `Backtest.run` runs for the same decisions.
    public func batchStrategy(signalModel: SignalModelConfig) throws -> any Strategy {
        switch kind {
        case .sentio: try SignalStrategy.sentio(config: signalModel)
        case let .rsi(period, lower, upper): RSIStrategy(period: period, lower: lower, upper: upper)
        case .buyAndHold: BuyAndHoldStrategy()
        case let .dca(amount, period, symbols): DollarCostAveragingStrategy(amount: amount, every: period, symbols: symbols)
        }
    }

    public var name: String {
        switch kind {
        case .sentio: "sentio"
        case .rsi: "rsi"
        case .buyAndHold: "buy-and-hold"
        case .dca: "dca"
        }
    }
}

/// The streaming decider: per-symbol indicator states fed at each bar's arrival; `decide` reads them.
struct StreamingDecider: Strategy {
    let kind: StreamingStrategy.Kind
    let name: String
    let signalModel: SignalModelConfig
    /// The Sentio signal model of every symbol (signal updates; the `sentio` strategy's decisions).
    var signalStates: [SignalModelState]
    /// Each symbol's latest signal, `nil` before its first bar or when the model could not compute it.
    var latestSignals: [Signal?]
    /// The `sentio` strategy: the decision of the symbol's latest bar.
    var signalDecisions: [SignalDecision]
    /// The `rsi` strategy: RSI states and the latest value (NaN during the warm-up).
    var rsiStates: [RelativeStrengthIndex]
    var rsiValues: [Double]
    /// The `dca` strategy.
    var dca: DollarCostAveragingStrategy?

    init(_ strategy: StreamingStrategy, symbols: [String], signalModel: SignalModelConfig) throws {
        kind = strategy.kind
        name = strategy.name
        self.signalModel = signalModel
        try signalModel.validate()
        signalStates = symbols.map { SignalModelState(symbol: $0, config: signalModel) }
        latestSignals = Array(repeating: nil, count: symbols.count)
        signalDecisions = Array(repeating: SignalDecision(action: .hold), count: symbols.count)
        var period = 0  // 0: not the rsi strategy
        if case let .rsi(p, lower, upper) = strategy.kind {
            guard p >= 1, lower < upper else { throw BacktestError("RSI needs period >= 1 and lower < upper") }
            period = p
        }
        rsiStates = period > 0 ? Array(repeating: RelativeStrengthIndex(period: period), count: symbols.count) : []
        rsiValues = Array(repeating: .nan, count: symbols.count)
        if case let .dca(amount, every, wanted) = strategy.kind {
            var d = DollarCostAveragingStrategy(amount: amount, every: every, symbols: wanted)
            try d.start(symbols: symbols)
            dca = d
        }
    }

    /// Feeds symbol `s`'s bar (its indicators only: the decision waits for the step's close).
    /// - Throws: the signal model's error for a bar it cannot represent (the bar is then consumed by it).
    mutating func observe(symbol s: Int, bar: Bar) throws(SignalInputError) {
        if !rsiStates.isEmpty { rsiValues[s] = rsiStates[s].update(bar.close) ?? .nan }
        do {
            // In place after the first bar: the signal value is not copied on the per-bar path.
            if latestSignals[s] != nil {
                try signalStates[s].update(bar, into: &latestSignals[s]!)
            } else {
                latestSignals[s] = try signalStates[s].update(bar)
            }
            signalDecisions[s] = SignalDecision(latestSignals[s]!)
        } catch {
            latestSignals[s] = nil
            signalDecisions[s] = SignalDecision(action: .hold)
            throw error
        }
    }

    mutating func prepare(market: Market) throws {}

    @inline(__always)
    mutating func decide(_ context: DecisionContext) -> Decision {
        switch kind {
        case .sentio:
            return SignalStrategy.decision(signalDecisions[context.symbol], isInvested: context.isInvested)
        case let .rsi(_, lower, upper):
            return RSIStrategy.decision(rsi: rsiValues[context.symbol], isInvested: context.isInvested, lower: lower, upper: upper)
        case .buyAndHold:
            return BuyAndHoldStrategy.decision(context)
        case .dca:
            return dca!.decide(context)
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
/// the steps of a market's timeline, ``result()`` is bit-identical to `Backtest.run` on that market with
/// ``StreamingStrategy/batchStrategy(signalModel:)``.
///
/// The caller guarantees the order: step times strictly increasing, at most one bar per symbol per step,
/// valid prices (finite, positive). A reference type with exclusive mutable state: one task at a time.
public final class SteppedSimulation {
    public let configuration: BacktestConfiguration
    public let strategy: StreamingStrategy
    public let symbols: [String]
    public let signalModel: SignalModelConfig
    /// The mutable per-bar state (account and strategy) lives behind a pointer the instance owns, not in stored
    /// `var`s: every access to a class's stored `var` pays Swift's dynamic exclusivity bookkeeping
    /// (`swift_beginAccess`/`swift_endAccess`, about 900 instructions per bar in the live step, callgrind), while
    /// `pointee` accesses are statically checked only. The class is still used by one task at a time.
    let coreStorage: UnsafeMutablePointer<SimulationCore>
    let deciderStorage: UnsafeMutablePointer<StreamingDecider>
    var core: SimulationCore {
        @inline(__always) _read { yield coreStorage.pointee }
        @inline(__always) _modify { yield &coreStorage.pointee }
    }
    var decider: StreamingDecider {
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

    /// A flat account with the configuration's initial capital.
    ///
    /// - Throws: `BacktestError` for an invalid configuration, no symbol, a symbol listed twice, a DCA symbol
    ///   not among `symbols`; `SignalConfigError` for an invalid signal model.
    public init(configuration: BacktestConfiguration, strategy: StreamingStrategy, symbols: [String],
                signalModel: SignalModelConfig = SignalModelConfig()) throws {
        if let problem = configuration.validationProblem() { throw BacktestError(problem) }
        guard !symbols.isEmpty else { throw BacktestError("no data: the backtest needs at least one symbol") }
        var seen = Set<String>()
        for s in symbols where !seen.insert(s).inserted { throw BacktestError("symbol \(s) appears twice") }
        self.configuration = configuration
        self.strategy = strategy
        self.symbols = symbols
        self.signalModel = signalModel
        let decider = try StreamingDecider(strategy, symbols: symbols, signalModel: signalModel)
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
    ///   bar: the bar is still part of the step (the backtest of a non-signal strategy trades it), the symbol has
    ///   no signal for it, and the `sentio` strategy holds.
    public func add(symbol s: Int, bar: Bar) throws(SignalInputError) {
        precondition(!core.hasBar[s], "symbol \(symbols[s]) already delivered a bar for this step")
        core.hasBar[s] = true
        bars.opens[s] = bar.open
        bars.highs[s] = bar.high
        bars.lows[s] = bar.low
        bars.closes[s] = bar.close
        try decider.observe(symbol: s, bar: bar)
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
        return core.result(strategyName: strategy.name, timestamps: timestamps, extraOrders: extra)
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
