import SentioCore

/// The portfolio simulator: runs a strategy over a market with a configuration.
///
/// Each timeline step, for every symbol that has a bar at that time, in this order:
/// 1. **Open**: orders decided at the symbol's previous bar fill at this bar's open (`.nextOpen`):
///    all exits first, then entries, in canonical symbol order, so an exit's cash is available to an entry.
///    Then the working orders of the order model (``OrderRequest``): at the open, then inside the bar (stops
///    before limits); `cls` orders at step 3's close (`SimulationCore+Orders.swift`; none unless a strategy
///    places them).
/// 2. **Intrabar levels**: open positions are checked against the bar's low and high. The stop fires when
///    `low ≤ stop` and fills at `min(open, stop)` (a gap through the level fills at the open); the target
///    fires when `high ≥ target` and fills at `max(open, target)`. When one bar touches both, the stop
///    wins (conservative: the bar's path is unknown). Levels are live on the entry bar with `.nextOpen`
///    fills (the entry happened at the open, before the rest of the bar; backtesting.py does the same,
///    its issue #119), and from the next bar with `.close` fills (the bar's range lies before the entry).
/// 3. **Close**: positions are marked at the close; the strategy decides; with `.close` fills the orders
///    execute at this close (exits first), otherwise they wait for the symbol's next bar.
/// 4. Equity = cash + Σ shares × last close is recorded. A symbol without a bar keeps its last close.
///
/// **Canonical symbol order.** Within a step, symbols are handled in ascending order of their names (Swift `String`
/// comparison, by Unicode scalar values), whatever order the market or the live universe lists them in: entries are
/// sized in that order from the cash left by the ones before, order ids are numbered in it, exits add their proceeds
/// to cash in it, and the marked equity sums the positions in it. So a universe is a set: the same symbols listed
/// in any order, or files found in any order, give the same bits.
///
/// Every order is filled, rejected with a `RejectionReason`, or (an order of the order model) cancelled or
/// expired with a `CancelReason`, and logged in `orders`. Orders still pending when the data ends are rejected
/// with `.noBarForSymbol` (an order-model order that was live on a bar expires, `end-of-data`). Long-only; one position per
/// symbol (contributions add to it).
///
/// One step is one call of the simulation core's step function; `run` replays the market's timeline through
/// it, and a live session (SentioLive, through ``SteppedSimulation``) calls the same function as bars arrive.
public struct Backtest: Sendable {
    public var configuration: BacktestConfiguration
    /// Called once with (0, total steps) when the simulation starts (after the strategy's `prepare`), then every
    /// 4,096 timeline steps and at the end with (completed steps, total steps), for progress display. It must be cheap; it is never called from more than one thread.
    public var progress: (@Sendable (_ completedSteps: Int, _ totalSteps: Int) -> Void)?
    /// Corporate actions applied to holdings on the prices as given, by symbol (see
    /// `SimulationCore+CorporateActions.swift`); empty: none.
    public var corporateActions: [String: [HoldingAdjustment]] = [:]

    public init(_ configuration: BacktestConfiguration = BacktestConfiguration(),
                progress: (@Sendable (_ completedSteps: Int, _ totalSteps: Int) -> Void)? = nil) {
        self.configuration = configuration
        self.progress = progress
    }

    /// Runs `strategy` over `market`.
    ///
    /// - Throws: `BacktestError` for an invalid configuration, or whatever `strategy.prepare` throws.
    public func run<S: Strategy>(_ strategy: S, on market: Market) throws -> BacktestResult {
        var strategy = strategy
        return try simulate(&strategy, on: market)
    }

    /// Runs `strategy` over `market`, leaving the strategy's final state in `strategy`.
    public func run<S: Strategy>(_ strategy: inout S, on market: Market) throws -> BacktestResult {
        try simulate(&strategy, on: market)
    }

    /// The body of both `run`s.
    func simulate<S: Strategy>(_ strategy: inout S, on market: Market) throws -> BacktestResult {
        if let problem = configuration.validationProblem() { throw BacktestError(problem) }
        let preparation = try strategy.prepare(market: market)
        var replay = MarketReplay(configuration: configuration, market: market)
        replay.progress = progress
        replay.core.scheduleHoldingAdjustments(corporateActions)
        progress?(0, market.timeline.count)
        replay.run(&strategy, streaming: preparation == .streaming)
        return replay.core.result(strategyName: strategy.name, timestamps: market.timeline)
    }
}

/// The prices of the bars of one step, read by the step function: symbol `s`'s bar number `bar`
/// (its index in the symbol's own history).
protocol StepBars {
    func open(_ s: Int, _ bar: Int) -> Double
    func high(_ s: Int, _ bar: Int) -> Double
    func low(_ s: Int, _ bar: Int) -> Double
    func close(_ s: Int, _ bar: Int) -> Double
}

/// A backtest: the market's columns, read at each symbol's cursor.
private struct MarketColumns: StepBars {
    let opens: [[Double]], highs: [[Double]], lows: [[Double]], closes: [[Double]]
    @inline(__always) func open(_ s: Int, _ bar: Int) -> Double { opens[s][bar] }
    @inline(__always) func high(_ s: Int, _ bar: Int) -> Double { highs[s][bar] }
    @inline(__always) func low(_ s: Int, _ bar: Int) -> Double { lows[s][bar] }
    @inline(__always) func close(_ s: Int, _ bar: Int) -> Double { closes[s][bar] }
}

/// `Backtest.run`'s driver: replays the market's timeline through ``SimulationCore/step(_:time:bars:strategy:)``.
private struct MarketReplay: ~Copyable {
    var core: SimulationCore
    let market: Market
    let columns: MarketColumns
    let times: [[Int64]]
    let counts: [Int]
    /// Every series has a bar at every timeline step.
    let aligned: Bool
    var progress: (@Sendable (Int, Int) -> Void)?

    init(configuration: BacktestConfiguration, market: Market) {
        self.market = market
        counts = market.series.map(\.count)
        let aligned = counts.allSatisfy { $0 == market.timeline.count }
        self.aligned = aligned
        core = SimulationCore(configuration: configuration, symbols: market.symbols, stepCapacity: market.timeline.count)
        for s in 0..<market.series.count { core.hasBar[s] = aligned }
        columns = MarketColumns(
            opens: market.series.map(\.open), highs: market.series.map(\.high), lows: market.series.map(\.low),
            closes: market.series.map(\.close))
        times = market.series.map(\.timestamps)
    }

    /// Replays the timeline; `streaming`: each bar goes through the strategy's `observe` first.
    ///
    /// Specialized for the built-in strategies, so that their `observe` and `decide` are direct, inlined calls
    /// (a generic called from another module dispatches each through the witness table); any other strategy
    /// runs the unspecialized code.
    @_specialize(where S == RSIStrategy)
    @_specialize(where S == SignalStrategy)
    @_specialize(where S == BuyAndHoldStrategy)
    @_specialize(where S == DollarCostAveragingStrategy)
    mutating func run<S: Strategy>(_ strategy: inout S, streaming: Bool) {
        if streaming { simulate(&strategy, observing: true) } else { simulate(&strategy, observing: false) }
    }

    @inline(__always)  // into `run`'s specializations, so `decide` is a direct call
    mutating func simulate<S: Strategy>(_ strategy: inout S, observing: Bool) {
        let stepCount = market.timeline.count
        let symbolCount = core.symbolCount
        // Locals: passing the stored columns to each step would retain and release their arrays every step.
        let columns = self.columns, timeline = market.timeline, times = self.times, counts = self.counts
        for step in 0..<stepCount {
            let time = timeline[step]
            // With aligned data (every symbol has every timeline step) each symbol has a bar at each step
            // and the timestamp comparison, a memory stream per symbol, is skipped.
            if !aligned {
                for s in 0..<symbolCount {
                    let c = core.cursor[s]
                    core.hasBar[s] = c < counts[s] && times[s][c] == time
                }
            }
            if observing {
                for s in 0..<symbolCount where core.hasBar[s] {
                    strategy.observe(symbol: s, bar: market.series[s][bar: core.cursor[s]])
                }
            }
            core.step(step, time: time, bars: columns, strategy: &strategy)
            if let progress, step & 4095 == 4095 { progress(step + 1, stepCount) }
        }
        progress?(stepCount, stepCount)
        // Orders that never found a bar to fill at.
        core.orders.append(contentsOf: core.pendingRejections(lastStep: stepCount - 1))
        core.clearPending()
    }
}

/// A pending order: at most one per symbol.
enum PendingKind: UInt8 { case none, buy, sell, contribute }

/// A fixed-size buffer owned by the simulation core and freed by its `deinit`: writes need no uniqueness check.
struct Slots<Element> {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    init(repeating value: Element, count: Int) {
        base = .allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: value, count: count)
        self.count = count
    }

    @inline(__always)
    subscript(i: Int) -> Element {
        get {
            assert(i >= 0 && i < count, "slot index out of range")
            return base[i]
        }
        nonmutating set {
            assert(i >= 0 && i < count, "slot index out of range")
            base[i] = newValue
        }
    }

    var array: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Overwrites every slot with `values` (same count).
    func assign(_ values: [Element]) {
        precondition(values.count == count, "slot count mismatch")
        for i in 0..<count { base[i] = values[i] }
    }

    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// A growable buffer owned by the simulation core and freed by its `deinit`: appends need no uniqueness
/// check (trivial elements only).
struct Curve<Element> {
    var base: UnsafeMutablePointer<Element>
    var count = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    @inline(__always)
    mutating func append(_ x: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: x)
        count += 1
    }

    @inline(never)
    mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    @inline(__always)
    subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "curve index out of range")
        return base[i]
    }

    var array: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Replaces the contents with `values`.
    mutating func replace(with values: [Element]) {
        base.deinitialize(count: count)
        count = 0
        for x in values { append(x) }
    }

    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// The simulation state and the one implementation of the fill rules: one slot per symbol in contiguous
/// arrays, preallocated; ``step(_:time:bars:strategy:)`` processes one timestamp for all symbols and does not
/// allocate except to append to the order and trade logs and the per-step curves.
///
/// The caller sets `hasBar[s]` for the step (and keeps `cursor[s]`, the symbol's number of processed bars,
/// which `step` advances for the symbols with a bar).
struct SimulationCore: ~Copyable {
    let configuration: BacktestConfiguration
    let symbols: [String]
    let symbolCount: Int
    let commissionRate: Double
    let fee: Double
    let slippage: Double
    let fillAtClose: Bool
    let allowShort: Bool

    var cash: Double
    /// Borrow fees paid on shorts (``BacktestConfiguration/borrowRate``).
    var borrowFeesPaid = 0.0
    /// The time of the previous step (`Int64.min` before the first): the borrow fee's interval.
    var previousTime = Int64.min
    var commissionsPaid = 0.0
    var nextOrderID = 0
    /// The time of the step being processed (entry and exit times of trades).
    var currentTime: Int64 = 0
    /// The number of the step being processed.
    var currentStep = 0

    /// The symbol numbers in canonical order: ascending symbol name (Swift `String` order, i.e. by Unicode scalar
    /// values). Every rule whose outcome depends on the order in which symbols are handled within one step
    /// (which entry is sized first from the remaining cash, the order of order ids, the order in which proceeds
    /// are added to cash, the summation order of the marked equity) follows this order, so results do not depend
    /// on the order in which symbols were listed or files were found.
    let canonicalOrder: Slots<Int>
    /// Each symbol's position in ``canonicalOrder``.
    let canonicalRank: Slots<Int>

    // Per-symbol cursors and marks.
    let cursor: Slots<Int>
    let hasBar: Slots<Bool>
    let lastClose: Slots<Double>

    // Per-symbol position.
    let shares: Slots<Double>
    let costBasis: Slots<Double>  // Σ shares × fill price of the open lots
    let entryPrice: Slots<Double>  // the fill price of a single lot, the share-weighted average of several
    let entryCommission: Slots<Double>
    let entryStep: Slots<Int>
    let entryBar: Slots<Int>
    let entryTime: Slots<Int64>
    let stopPrice: Slots<Double>  // .nan: none
    let targetPrice: Slots<Double>
    let levelsLiveFromStep: Slots<Int>
    var openCount = 0

    // Per-symbol pending order.
    let pendingKind: Slots<PendingKind>
    let pendingID: Slots<Int>
    let pendingStep: Slots<Int>
    let pendingDecisionClose: Slots<Double>
    let pendingStopPercent: Slots<Double>
    let pendingTargetPercent: Slots<Double>
    let pendingAmount: Slots<Double>

    // Outputs: one entry per completed step, and the logs.
    var equityCurve: Curve<Double>
    var cashCurve: Curve<Double>
    var contributions: Curve<Double>
    var exposed: Curve<Bool>
    /// Σ |shares| × close of the short positions at each step's close (only when short selling is allowed).
    var shortValueCurve: Curve<Double>
    var stepContribution = 0.0
    var trades: [ClosedTrade] = []
    var orders: [OrderRecord] = []
    /// Strategy orders as they are placed, when `logsPlacements` (live sessions report them as events).
    var logsPlacements = false
    var placements: [OrderPlacement] = []
    /// Corporate actions applied to holdings (`SimulationCore+CorporateActions.swift`): per symbol, by time, and
    /// the next one of each symbol; empty when there are none.
    var holdingAdjustments: [[HoldingAdjustment]] = []
    var holdingAdjustmentCursor: [Int] = []
    /// The working orders of the order model (`SimulationCore+Orders.swift`), sorted by (canonical rank of the
    /// symbol, id); empty unless a strategy placed such orders (the step then skips their phases).
    var book: [WorkingOrder] = []
    /// Bracket orders placed during a phase, moved into the book after it.
    var spawned: [WorkingOrder] = []

    init(configuration: BacktestConfiguration, symbols: [String], stepCapacity: Int) {
        self.configuration = configuration
        self.symbols = symbols
        let symbolCount = symbols.count
        self.symbolCount = symbolCount
        commissionRate = configuration.costs.commissionRate
        fee = configuration.costs.feePerOrder
        slippage = configuration.costs.slippageBasisPoints / 10_000
        fillAtClose = configuration.fill == .close
        allowShort = configuration.allowShort
        cash = configuration.initialCapital
        canonicalOrder = Slots(repeating: 0, count: symbolCount)
        canonicalOrder.assign(symbols.indices.sorted { symbols[$0] < symbols[$1] })
        canonicalRank = Slots(repeating: 0, count: symbolCount)
        for k in 0..<symbolCount { canonicalRank[canonicalOrder[k]] = k }
        cursor = Slots(repeating: 0, count: symbolCount)
        hasBar = Slots(repeating: false, count: symbolCount)
        lastClose = Slots(repeating: .nan, count: symbolCount)
        shares = Slots(repeating: 0, count: symbolCount)
        costBasis = Slots(repeating: 0, count: symbolCount)
        entryPrice = Slots(repeating: 0, count: symbolCount)
        entryCommission = Slots(repeating: 0, count: symbolCount)
        entryStep = Slots(repeating: 0, count: symbolCount)
        entryBar = Slots(repeating: 0, count: symbolCount)
        entryTime = Slots(repeating: 0, count: symbolCount)
        stopPrice = Slots(repeating: .nan, count: symbolCount)
        targetPrice = Slots(repeating: .nan, count: symbolCount)
        levelsLiveFromStep = Slots(repeating: 0, count: symbolCount)
        pendingKind = Slots(repeating: .none, count: symbolCount)
        pendingID = Slots(repeating: 0, count: symbolCount)
        pendingStep = Slots(repeating: 0, count: symbolCount)
        pendingDecisionClose = Slots(repeating: .nan, count: symbolCount)
        pendingStopPercent = Slots(repeating: .nan, count: symbolCount)
        pendingTargetPercent = Slots(repeating: .nan, count: symbolCount)
        pendingAmount = Slots(repeating: 0, count: symbolCount)
        equityCurve = Curve(capacity: stepCapacity)
        cashCurve = Curve(capacity: stepCapacity)
        contributions = Curve(capacity: stepCapacity)
        exposed = Curve(capacity: stepCapacity)
        shortValueCurve = Curve(capacity: configuration.allowShort ? stepCapacity : 0)
    }

    deinit {
        canonicalOrder.free()
        canonicalRank.free()
        cursor.free()
        hasBar.free()
        lastClose.free()
        shares.free()
        costBasis.free()
        entryPrice.free()
        entryCommission.free()
        entryStep.free()
        entryBar.free()
        entryTime.free()
        stopPrice.free()
        targetPrice.free()
        levelsLiveFromStep.free()
        pendingKind.free()
        pendingID.free()
        pendingStep.free()
        pendingDecisionClose.free()
        pendingStopPercent.free()
        pendingTargetPercent.free()
        pendingAmount.free()
        equityCurve.free()
        cashCurve.free()
        contributions.free()
        exposed.free()
        shortValueCurve.free()
    }

    /// Cash plus every position at its last close.
    func markedEquity() -> Double {
        var e = cash
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            if shares[s] != 0 { e += shares[s] * lastClose[s] }
        }
        return e
    }

    /// Processes timeline step `step` (time `time`) for every symbol `s` with `hasBar[s]`, whose bar is
    /// `bars`' bar number `cursor[s]`: fills at the open, levels, marks and decisions at the close, fills at
    /// the close, then records the step's equity, cash, deposits and exposure (the rules are listed on
    /// ``Backtest``), and advances the cursors.
    @inline(__always)  // into the per-strategy specialization, so `decide` is a direct call
    mutating func step<S: Strategy, B: StepBars>(_ step: Int, time: Int64, bars: B, strategy: inout S) {
        currentTime = time
        currentStep = step
        stepContribution = 0
        if !holdingAdjustments.isEmpty { applyHoldingAdjustments(time: time) }
        if allowShort { chargeBorrowFees(time: time) }
        let openAtStart = openCount
        var filledThisStep = false

        // Symbols are handled in ``canonicalOrder`` wherever the order changes an outcome.
        // 1. Pending orders fill at the open: exits, then entries.
        if !fillAtClose {
            for k in 0..<symbolCount {
                let s = canonicalOrder[k]
                guard hasBar[s] && pendingKind[s] == .sell else { continue }
                let o = bars.open(s, cursor[s])
                filledThisStep = executePending(symbol: s, step: step, price: o) || filledThisStep
            }
            for k in 0..<symbolCount {
                let s = canonicalOrder[k]
                guard hasBar[s] && pendingKind[s] != .none else { continue }
                let o = bars.open(s, cursor[s])
                filledThisStep = executePending(symbol: s, step: step, price: o) || filledThisStep
            }
        }

        // The order model's working orders (none unless a strategy placed some): at the open, then inside the bar.
        if !book.isEmpty {
            filledThisStep = bookAtOpen(step: step, bars: bars) || filledThisStep
            if !book.isEmpty { filledThisStep = bookIntrabar(step: step, bars: bars) || filledThisStep }
        }

        // 2. Stop-loss and take-profit against the bar's range.
        // Bar columns are read only when a level exists (fewer memory streams in the common case).
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            guard hasBar[s] && shares[s] > 0 && step >= levelsLiveFromStep[s] else { continue }
            let stop = stopPrice[s], target = targetPrice[s]
            if stop.isNaN && target.isNaN { continue }
            let b = cursor[s]
            if !stop.isNaN && bars.low(s, b) <= stop {
                let price = Swift.min(bars.open(s, b), stop)
                closePosition(symbol: s, step: step, referencePrice: price, reason: .stopLoss, decidedStep: step, orderID: newOrderID())
                filledThisStep = true
            } else if !target.isNaN && bars.high(s, b) >= target {
                let price = Swift.max(bars.open(s, b), target)
                closePosition(symbol: s, step: step, referencePrice: price, reason: .takeProfit, decidedStep: step, orderID: newOrderID())
                filledThisStep = true
            }
        }

        // 3. Mark, then decide at the close.
        for s in 0..<symbolCount where hasBar[s] { lastClose[s] = bars.close(s, cursor[s]) }
        if allowShort && openCount > 0 && liquidateIfBelowMaintenance(step: step) { filledThisStep = true }
        var equity = markedEquity()
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            guard hasBar[s] else { continue }
            let context = DecisionContext(
                symbol: s, bar: cursor[s], step: step, timestamp: time, shares: shares[s], cash: cash, equity: equity)
            let decision = strategy.decide(context)
            if record(decision, symbol: s, step: step) { equity = markedEquity() }
        }
        if fillAtClose {
            for k in 0..<symbolCount {
                let s = canonicalOrder[k]
                guard hasBar[s] && pendingKind[s] == .sell else { continue }
                filledThisStep = executePending(symbol: s, step: step, price: lastClose[s]) || filledThisStep
            }
            for k in 0..<symbolCount {
                let s = canonicalOrder[k]
                guard hasBar[s] && pendingKind[s] != .none else { continue }
                filledThisStep = executePending(symbol: s, step: step, price: lastClose[s]) || filledThisStep
            }
        }
        if !book.isEmpty { filledThisStep = bookAtClose(step: step) || filledThisStep }

        // 4. Record.
        equityCurve.append(markedEquity())
        cashCurve.append(cash)
        contributions.append(stepContribution)
        exposed.append(openAtStart > 0 || openCount > 0 || filledThisStep)
        if allowShort { shortValueCurve.append(shortMarketValue()) }
        previousTime = time
        for s in 0..<symbolCount where hasBar[s] { cursor[s] += 1 }
    }

    /// The records of the orders still pending, rejected with `.noBarForSymbol` at `lastStep` as when the data
    /// ends (in canonical symbol order). Does not change the state.
    func pendingRejections(lastStep: Int) -> [OrderRecord] {
        var out: [OrderRecord] = []
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            guard pendingKind[s] != .none else { continue }
            let side: OrderSide = pendingKind[s] == .sell ? .sell : .buy
            out.append(rejection(symbol: s, side: side, step: lastStep, reason: .noBarForSymbol))
        }
        if !book.isEmpty { out += bookEndRecords(lastStep: lastStep) }
        return out
    }

    /// Forgets every pending order (and the order model's working orders).
    mutating func clearPending() {
        for s in 0..<symbolCount { pendingKind[s] = .none }
        book.removeAll()
    }

    mutating func newOrderID() -> Int {
        nextOrderID += 1
        return nextOrderID
    }

    /// Turns a decision into a pending order; returns whether cash changed (a deposit).
    @inline(__always)
    mutating func record(_ decision: Decision, symbol s: Int, step: Int) -> Bool {
        if case .hold = decision { return false }
        return recordOrder(decision, symbol: s, step: step)
    }

    /// ``record(_:symbol:step:)`` for anything but `.hold` (rare: kept out of the step loop).
    @inline(never)
    mutating func recordOrder(_ decision: Decision, symbol s: Int, step: Int) -> Bool {
        switch decision {
        case .hold:
            return false
        case .sell:
            // By construction a symbol's pending order resolves at its next bar, before its next decision.
            assert(pendingKind[s] == .none, "a pending order would be overwritten")
            pendingKind[s] = .sell
        case .buy(let stop, let target):
            pendingKind[s] = .buy
            pendingStopPercent[s] = stop ?? configuration.stopLossPercent ?? .nan
            pendingTargetPercent[s] = target ?? configuration.takeProfitPercent ?? .nan
        case .contribute(let amount):
            pendingKind[s] = .contribute
            pendingAmount[s] = amount
        case .order(let request):
            placeOrder(request, symbol: s, step: step, ocoGroup: nil)
            return false
        case .oco(let first, let second):
            let group = nextOrderID + 1
            placeOrder(first, symbol: s, step: step, ocoGroup: group)
            placeOrder(second, symbol: s, step: step, ocoGroup: group)
            return false
        case .targetWeight(let weight, let tolerance):
            let equity = markedEquity()
            let current = equity > 0 ? shares[s] * lastClose[s] / equity : 0
            guard !(Swift.abs(current - weight) <= tolerance) else { return false }
            let side: OrderSide = weight > current ? .buy : .sell
            placeOrder(OrderRequest(side: side, quantity: .targetPercent(weight * 100)), symbol: s, step: step, ocoGroup: nil)
            return false
        case .orders(let requests):
            for request in requests { placeOrder(request, symbol: s, step: step, ocoGroup: nil) }
            return false
        case .cancelOrders:
            cancelWorkingOrders(symbol: s, step: step, reason: .strategy)
            return false
        }
        let id = newOrderID()
        if logsPlacements { logPlacement(decision, id: id, symbol: s, step: step) }
        pendingID[s] = id
        pendingStep[s] = step
        pendingDecisionClose[s] = lastClose[s]
        if case .contribute(let amount) = decision, amount.isFinite, amount > 0 {
            cash += amount
            stepContribution += amount
            return true
        }
        return false
    }

    mutating func logPlacement(_ decision: Decision, id: Int, symbol s: Int, step: Int) {
        var amount = 0.0
        if case .contribute(let a) = decision { amount = a }
        placements.append(OrderPlacement(
            id: id, symbol: s, side: decision == .sell ? .sell : .buy, isContribution: pendingKind[s] == .contribute,
            amount: amount, step: step, ordersResolvedBefore: orders.count))
    }

    func rejection(symbol s: Int, side: OrderSide, step: Int, reason: RejectionReason) -> OrderRecord {
        OrderRecord(
            id: pendingID[s], symbol: s, side: side, reason: .signal, decidedStep: pendingStep[s], resolvedStep: step,
            rejection: reason, fillPrice: .nan, shares: 0, commission: 0)
    }

    mutating func reject(symbol s: Int, side: OrderSide, step: Int, reason: RejectionReason) {
        orders.append(rejection(symbol: s, side: side, step: step, reason: reason))
        pendingKind[s] = .none
    }

    /// Fills or rejects the pending order of `s` at reference price `price`; returns whether it filled.
    mutating func executePending(symbol s: Int, step: Int, price: Double) -> Bool {
        switch pendingKind[s] {
        case .none:
            return false
        case .sell:
            guard shares[s] > 0 else {
                reject(symbol: s, side: .sell, step: step, reason: .noOpenPosition)
                return false
            }
            closePosition(symbol: s, step: step, referencePrice: price, reason: .signal, decidedStep: pendingStep[s], orderID: pendingID[s])
            pendingKind[s] = .none
            return true
        case .buy, .contribute:
            return executeBuy(symbol: s, step: step, price: price)
        }
    }

    mutating func executeBuy(symbol s: Int, step: Int, price: Double) -> Bool {
        let isContribution = pendingKind[s] == .contribute
        if isContribution {
            let amount = pendingAmount[s]
            guard amount.isFinite && amount > 0 else {
                reject(symbol: s, side: .buy, step: step, reason: .invalidAmount)
                return false
            }
        } else if shares[s] != 0 {
            reject(symbol: s, side: .buy, step: step, reason: .positionAlreadyOpen)
            return false
        }
        let budget: Double
        if isContribution {
            budget = pendingAmount[s]
        } else {
            switch configuration.sizing {
            case .allIn:
                budget = cash
            case .equalWeight(let maxPositions):
                guard openCount < maxPositions else {
                    reject(symbol: s, side: .buy, step: step, reason: .maxPositionsReached)
                    return false
                }
                budget = markedEquity() / Double(maxPositions)
            case .fractionOfEquity(let fraction):
                budget = markedEquity() * fraction
            }
        }
        let fill: BuyFill
        switch BuyFill.size(budget: budget, cash: cash, price: price, costs: configuration.costs,
                            fractionalShares: configuration.fractionalShares) {
        case .filled(let f): fill = f
        case .rejected(let reason):
            reject(symbol: s, side: .buy, step: step, reason: reason)
            return false
        }
        let fillPrice = fill.fillPrice, quantity = fill.quantity, commission = fill.commission
        let opened = addLot(symbol: s, step: step, fillPrice: fillPrice, quantity: quantity, notional: fill.notional,
                            commission: commission)
        if opened && !isContribution {
            let reference = configuration.stopReference == .decisionClose ? pendingDecisionClose[s] : fillPrice
            let stopPercent = pendingStopPercent[s], targetPercent = pendingTargetPercent[s]
            if !stopPercent.isNaN { stopPrice[s] = reference * (1 - stopPercent / 100) }
            if !targetPercent.isNaN { targetPrice[s] = reference * (1 + targetPercent / 100) }
            levelsLiveFromStep[s] = fillAtClose ? step + 1 : step
        }
        orders.append(OrderRecord(
            id: pendingID[s], symbol: s, side: .buy, reason: .signal, decidedStep: pendingStep[s], resolvedStep: step,
            rejection: nil, fillPrice: fillPrice, shares: quantity, commission: commission))
        pendingKind[s] = .none
        return true
    }

    /// Opens the position of `s` at `step`, long or short: entry step, bar and time; no cost, commission or levels yet.
    mutating func openPosition(symbol s: Int, step: Int) {
        entryStep[s] = step
        entryBar[s] = cursor[s]
        entryTime[s] = currentTime
        entryCommission[s] = 0
        costBasis[s] = 0
        openCount += 1
        stopPrice[s] = .nan
        targetPrice[s] = .nan
    }

    /// Buys `quantity` shares of `s` at `fillPrice` (after slippage) for `notional + commission` of cash: opens the
    /// position (entry step, bar, time; no levels) or adds a lot to it (the entry price becomes the share-weighted
    /// average `costBasis / shares`). Returns whether it opened the position.
    mutating func addLot(symbol s: Int, step: Int, fillPrice: Double, quantity: Double, notional: Double, commission: Double) -> Bool {
        cash -= notional + commission
        commissionsPaid += commission
        let isFirstLot = shares[s] == 0
        if isFirstLot { openPosition(symbol: s, step: step) }
        shares[s] += quantity
        costBasis[s] += notional
        entryPrice[s] = isFirstLot ? fillPrice : costBasis[s] / shares[s]
        entryCommission[s] += commission
        return isFirstLot
    }

    /// Sells the whole position of `s` at `referencePrice` (before slippage) and logs the trade (`detail`: the
    /// order model's order that sold it); a bracket's protective orders still working for `s` are cancelled.
    mutating func closePosition(symbol s: Int, step: Int, referencePrice: Double, reason: ExitReason, decidedStep: Int,
                                orderID: Int, detail: OrderDetail? = nil) {
        let quantity = shares[s]
        let sale = SellFill.fill(quantity: quantity, price: referencePrice, slippage: slippage, commissionRate: commissionRate, fee: fee)
        let fillPrice = sale.fillPrice, proceeds = sale.proceeds, commission = sale.commission
        cash += sale.net
        commissionsPaid += commission
        let averageEntry = entryPrice[s]
        let totalCommission = entryCommission[s] + commission
        let pnl = proceeds - costBasis[s] - totalCommission
        trades.append(ClosedTrade(
            symbol: symbols[s], symbolIndex: s, entryStep: entryStep[s], exitStep: step,
            entryBar: entryBar[s], exitBar: cursor[s],
            entryTime: entryTime[s], exitTime: currentTime,
            entryPrice: averageEntry, exitPrice: fillPrice, shares: quantity, pnl: pnl,
            pnlPercent: pnl / costBasis[s] * 100, commission: totalCommission, signalType: "BUY", exitReason: reason))
        orders.append(OrderRecord(
            id: orderID, symbol: s, side: .sell, reason: reason, decidedStep: decidedStep, resolvedStep: step,
            rejection: nil, fillPrice: fillPrice, shares: quantity, commission: commission, detail: detail))
        shares[s] = 0
        costBasis[s] = 0
        entryCommission[s] = 0
        stopPrice[s] = .nan
        targetPrice[s] = .nan
        openCount -= 1
        if !book.isEmpty || !spawned.isEmpty {
            cancelWorkingOrders(symbol: s, step: step, reason: .positionClosed, onlyBrackets: true)
        }
    }

    /// The result over the completed steps (`timestamps`: their times); `extraOrders` (pending orders
    /// rejected as at the end of the data) are merged into the order log.
    borrowing func result(strategyName: String, timestamps: [Int64], extraOrders: [OrderRecord] = []) -> BacktestResult {
        var open = [OpenPosition]()
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            guard shares[s] != 0 else { continue }
            let value = shares[s] * lastClose[s]
            open.append(OpenPosition(
                symbol: symbols[s], symbolIndex: s, entryStep: entryStep[s], entryBar: entryBar[s],
                entryTime: entryTime[s], entryPrice: entryPrice[s], shares: shares[s],
                currentPrice: lastClose[s], marketValue: value, entryCommission: entryCommission[s],
                unrealizedPnL: value - costBasis[s] - entryCommission[s],
                stopPrice: stopPrice[s].isNaN ? nil : stopPrice[s], targetPrice: targetPrice[s].isNaN ? nil : targetPrice[s]))
        }
        return BacktestResult(
            configuration: configuration, strategyName: strategyName, symbols: symbols,
            timestamps: timestamps, equity: equityCurve.array, cash: cashCurve.array, contributions: contributions.array,
            exposed: exposed.array, trades: trades, openPositions: open, orders: (orders + extraOrders).sorted { $0.id < $1.id },
            commissionsPaid: commissionsPaid, borrowFeesPaid: borrowFeesPaid, shortValue: shortValueCurve.array)
    }
}
