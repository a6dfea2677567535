import Foundation
import SentioBacktest
import SentioCore
import SentioData
import SentioSignals

/// One bar as a live feed delivers it: SentioData's `FeedBar` (the symbol and its bar), the type the NDJSON feed
/// reader and the followed CSV directories produce.
public typealias LiveBar = FeedBar


extension FeedBar {
    public init(symbol: String, timestamp: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double) {
        self.init(symbol: symbol, bar: Bar(timestamp: timestamp, open: open, high: high, low: low, close: close, volume: volume))
    }

    /// The first rule of the OHLCV reader (SentioData's `OHLCVReader`) that the bar breaks, as
    /// `(field, message)`, or `nil`: every price finite and > 0, volume finite and ≥ 0, `high ≥ low`,
    /// `high ≥ max(open, close)`, `low ≤ min(open, close)`.
    public var validationProblem: (field: String, message: String)? {
        let (open, high, low, close, volume) = (bar.open, bar.high, bar.low, bar.close, bar.volume)
        // The common case without building anything.
        if open.isFinite && open > 0 && high.isFinite && high > 0 && low.isFinite && low > 0 && close.isFinite
            && close > 0 && volume.isFinite && volume >= 0 && high >= low && high >= Swift.max(open, close)
            && low <= Swift.min(open, close) {
            return nil
        }
        for (field, x) in [("open", open), ("high", high), ("low", low), ("close", close)] where !(x.isFinite && x > 0) {
            return (field, "\(field) must be a finite price > 0, got \(x)")
        }
        if !(volume.isFinite && volume >= 0) { return ("volume", "volume must be a finite number >= 0, got \(volume)") }
        if high < low { return ("high", "high \(high) is below low \(low)") }
        if high < Swift.max(open, close) { return ("high", "high \(high) is below max(open, close) \(Swift.max(open, close))") }
        if low > Swift.min(open, close) { return ("low", "low \(low) is above min(open, close) \(Swift.min(open, close))") }
        return nil
    }
}

/// Why the session refused a bar. A refused bar changes nothing in the session.
public enum LiveBarRejection: Sendable, Equatable, CustomStringConvertible {
    /// The symbol is not in the session's universe.
    case unknownSymbol
    /// A bar with the same symbol and timestamp was already accepted, with other values (`existing`).
    case conflicting(existing: LiveBar)
    /// The timestamp is older than the step being collected (or, with no step pending, not after the last
    /// completed step), and the bar is not the symbol's last accepted bar.
    case late(currentStep: Int64)
    /// The bar breaks the OHLCV reader's rules (`LiveBar.validationProblem`): `field` is `open`, `high`,
    /// `low`, `close` or `volume`.
    case invalid(field: String, message: String)
    /// With the split check on (``LiveConfiguration/splitCheck``): the move from the symbol's previous accepted bar
    /// `previous` looks like a split of `ratio` (new shares per old share; the OHLCV reader's rule,
    /// `PriceAdjustment.suspectedSplitRatio`) and no split of ``LiveConfiguration/corporateActions`` falls after
    /// `previous` and at or before this bar. Every later bar of the symbol at the new price level is refused the same
    /// way until the session is restarted with the split in `--actions` (or with `--adjust none`).
    case suspectedSplit(previous: Bar, ratio: Double)

    /// The `reason` code of a bar's `rejected` line.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case unknownSymbol = "unknown-symbol"
        case conflicting = "conflicting-bar"
        case late = "late-bar"
        case invalid = "invalid-bar"
        case suspectedSplit = "suspected-split"
    }

    /// The rejection's reason code.
    public var kind: Code {
        switch self {
        case .unknownSymbol: .unknownSymbol
        case .conflicting: .conflicting
        case .late: .late
        case .invalid: .invalid
        case .suspectedSplit: .suspectedSplit
        }
    }

    /// The `reason` code of the `rejected` event (``LiveRejection``).
    public var code: String { kind.rawValue }

    public var description: String {
        switch self {
        case .unknownSymbol: "the symbol is not in the session's universe"
        case .conflicting(let e):
            "a different bar of this symbol and time was already accepted (open \(e.bar.open), high \(e.bar.high), low \(e.bar.low), close \(e.bar.close), volume \(e.bar.volume))"
        case .late(let t): "older than the session's current step \(iso8601(epochSeconds: t))"
        case .invalid(_, let message): message
        case let .suspectedSplit(previous, ratio):
            "from \(PriceAdjustment.shortDate(previous.timestamp)) (close \(previous.close)) to this bar the move looks like a "
                + "\(PriceAdjustment.name(ofRatio: ratio)) split on unadjusted prices, and no action of the session explains it. "
                + "If it is a split: add it to the corporate actions file (symbol,date,split_ratio,cash_dividend) and restart "
                + "with --actions FILE --reset (the journaled bars are kept and replayed), then send this bar again; if the "
                + "move is real: restart with --adjust none --reset"
        }
    }
}

/// What ``LiveSession/process(_:)`` did with a bar.
public enum LiveIngestOutcome: Sendable, Equatable {
    /// The bar was accepted; `completedSteps` steps were completed by it (0, 1 — its step, when it was the last
    /// missing bar, or the pending step, when the bar is later — or 2: both).
    case accepted(completedSteps: Int)
    /// The bar equals an accepted one (same symbol, timestamp and values): nothing happened.
    case duplicate
    /// The bar was refused; nothing changed (besides the `rejected` event).
    case rejected(LiveBarRejection)
}

/// A live paper-trading session: the backtest's simulator fed one bar at a time. In memory, no I/O.
///
/// The session holds a ``LiveConfiguration`` and a universe of symbols. Bars arrive one at a time, any symbol,
/// any order within a timestamp; the bars of one timestamp form a *step*, processed by the very step function
/// `Backtest.run` replays (SentioBacktest's `SteppedSimulation`), so trades, orders, rejections and the equity
/// curve are bit-identical to `Backtest.run` on the same bars. See <doc:LiveSessions> for when a step completes
/// and when an order fills.
///
/// A reference type with exclusive mutable state: use it from one task at a time.
public final class LiveSession {
    /// The configuration the session was started with.
    public let configuration: LiveConfiguration
    /// The symbols, in the order the backtest lists them (`Market.series` order: order matters, as in the backtest).
    public let universe: [String]
    let simulation: SteppedSimulation
    let index: [String: Int]
    /// When the session was restored from a snapshot without history: that snapshot's bytes (a replay that
    /// rebuilds the history must reproduce them).
    var historyBaseSnapshot: [UInt8]?
    /// Rebuilds the history a session restored from a snapshot without history lacks (see ``loadHistory()``):
    /// returns a session with its whole history, fed exactly the bars the snapshot was taken after.
    /// `JournaledLiveSession` sets it to a replay of its journal.
    public var historyProvider: (() throws -> LiveSession)?
    /// The per-bar mutable state, behind a pointer the session owns rather than in stored `var`s: every access to
    /// a class's stored `var` pays Swift's dynamic exclusivity bookkeeping (`swift_beginAccess`/`swift_endAccess`:
    /// about 330 instructions per bar here, callgrind), `pointee` accesses do not. One task at a time, as before.
    let stepState: UnsafeMutablePointer<StepState>

    struct StepState {
        /// The time of the step being collected.
        var pendingTime: Int64?
        var delivered = 0
        /// The bars of the step being collected (valid where `simulation.hasBar(s)`).
        var pendingBars: [Bar]
        /// Each symbol's last bar in a completed step.
        var lastBars: [Bar?]
        /// Events not yet taken.
        var raw: [RawEvent] = []
        /// Entries of the simulation's order log already turned into events.
        var ordersSeen = 0
        /// The universe index of the latest symbol looked up (``symbolIndex(_:)``'s guess for the next one).
        var lastSymbolIndex = -1

        init(symbols: Int) {
            pendingBars = Array(repeating: Bar(timestamp: 0, open: .nan, high: .nan, low: .nan, close: .nan, volume: .nan), count: symbols)
            lastBars = Array(repeating: nil, count: symbols)
            raw.reserveCapacity(64)
        }
    }

    var pendingTime: Int64? {
        @inline(__always) _read { yield stepState.pointee.pendingTime }
        @inline(__always) _modify { yield &stepState.pointee.pendingTime }
    }
    var delivered: Int {
        @inline(__always) _read { yield stepState.pointee.delivered }
        @inline(__always) _modify { yield &stepState.pointee.delivered }
    }
    var pendingBars: [Bar] {
        @inline(__always) _read { yield stepState.pointee.pendingBars }
        @inline(__always) _modify { yield &stepState.pointee.pendingBars }
    }
    var lastBars: [Bar?] {
        @inline(__always) _read { yield stepState.pointee.lastBars }
        @inline(__always) _modify { yield &stepState.pointee.lastBars }
    }
    var raw: [RawEvent] {
        @inline(__always) _read { yield stepState.pointee.raw }
        @inline(__always) _modify { yield &stepState.pointee.raw }
    }
    var ordersSeen: Int {
        @inline(__always) _read { yield stepState.pointee.ordersSeen }
        @inline(__always) _modify { yield &stepState.pointee.ordersSeen }
    }
    private var lastSymbolIndex: Int {
        @inline(__always) _read { yield stepState.pointee.lastSymbolIndex }
        @inline(__always) _modify { yield &stepState.pointee.lastSymbolIndex }
    }

    /// An event taken by ``takeEvents(_:)``: a contract value, or a signal update still as the engine's signal.
    enum PendingEvent {
        case event(LiveEvent)
        case signal(Signal)
    }

    enum RawEvent {
        case signal(Signal)
        case placed(OrderPlacement)
        case resolved(orderIndex: Int, cash: Double)
        /// The order event of order-log entry `orderIndex` that no placement announced (a level exit).
        case levelOrder(orderIndex: Int)
        case equity(step: Int, openPositions: Int)
        case barRejected(LiveBar, LiveBarRejection)
    }

    /// A new session, flat, with the configuration's initial capital.
    ///
    /// - Throws: `BacktestError` for an invalid configuration, an empty universe, a symbol listed twice, or a DCA
    ///   symbol outside the universe; `SignalConfigError` for an invalid signal model.
    public convenience init(configuration: LiveConfiguration, universe: [String]) throws {
        try configuration.validate()
        try self.init(
            configuration: configuration, universe: universe,
            simulation: SteppedSimulation(
                configuration: configuration.backtest, strategy: configuration.strategy, symbols: universe,
                signalModel: configuration.signalModel))
    }

    /// A session over `simulation` (made for the validated `configuration` and `universe`, new or restored): the
    /// configuration's corporate actions scheduled (a restored state keeps how far each symbol's actions were
    /// applied), no bar pending.
    private init(configuration: LiveConfiguration, universe: [String], simulation: SteppedSimulation) {
        self.configuration = configuration
        self.universe = universe
        self.simulation = simulation
        simulation.scheduleCorporateActions(configuration.corporateActions)
        var index: [String: Int] = [:]
        for (i, s) in universe.enumerated() { index[s] = i }
        self.index = index
        stepState = .allocate(capacity: 1)
        stepState.initialize(to: StepState(symbols: universe.count))
    }

    deinit {
        stepState.deinitialize(count: 1)
        stepState.deallocate()
    }

    /// Restores a session from ``snapshot()``: it continues exactly as the session it was taken from (events
    /// not yet taken when the snapshot was made are not in it).
    ///
    /// - Throws: `BacktestError` when the snapshot is inconsistent (another format version, arrays of the
    ///   wrong length), or as ``init(configuration:universe:)``.
    public convenience init(snapshot: LiveSnapshot) throws {
        guard snapshot.version == LiveSnapshot.currentVersion else {
            throw BacktestError("live snapshot format \(snapshot.version) is not supported (expected \(LiveSnapshot.currentVersion))")
        }
        let configuration = snapshot.configuration, universe = snapshot.universe
        try configuration.validate()
        try self.init(
            configuration: configuration, universe: universe,
            simulation: SteppedSimulation(
                configuration: configuration.backtest, strategy: configuration.strategy, symbols: universe,
                signalModel: configuration.signalModel, state: snapshot.simulation))
        guard snapshot.pendingBars.count == universe.count, snapshot.lastBars.count == universe.count else {
            throw BacktestError("the live snapshot's bar lists do not fit \(universe.count) symbols")
        }
        pendingTime = snapshot.pendingTime
        pendingBars = snapshot.pendingBars.map(\.bar)
        lastBars = snapshot.lastBars.map { $0?.bar }
        delivered = (0..<universe.count).filter { simulation.hasBar($0) }.count
        guard (delivered > 0) == (pendingTime != nil) else {
            throw BacktestError("the live snapshot's pending step is inconsistent")
        }
        ordersSeen = simulation.orderCount
        if !snapshot.simulation.hasFullHistory { historyBaseSnapshot = try snapshot.encoded() }
    }

    /// Whether the session holds its whole history (equity curve, order and trade logs): `false` after
    /// ``init(snapshot:)`` from a ``compactSnapshot()`` until ``loadHistory()``. Only ``result()`` (and what is
    /// built from it) and ``snapshot()`` need it; ingesting does not.
    public var hasFullHistory: Bool { simulation.hasFullHistory }

    /// Makes the whole history available: nothing to do when the session holds it; otherwise asks
    /// ``historyProvider`` for a session fed the bars before the snapshot this one was restored from, checks
    /// that its state equals that snapshot's, and takes its history.
    ///
    /// - Throws: ``LiveHistoryError`` when there is no provider or its session does not reproduce the snapshot;
    ///   the provider's own errors.
    public func loadHistory() throws {
        if simulation.hasFullHistory { return }
        guard let provider = historyProvider else {
            throw LiveHistoryError(message: "the session was restored from a snapshot without history (\(simulation.historyBase.steps) steps) and has no history provider")
        }
        try restoreHistory(from: try provider())
    }

    /// Takes the history before this session's snapshot from `prefix` (see ``loadHistory()``).
    ///
    /// - Throws: ``LiveHistoryError`` when `prefix` lacks history or its state differs from the snapshot's.
    public func restoreHistory(from prefix: LiveSession) throws {
        guard let base = historyBaseSnapshot else { return }
        guard prefix.hasFullHistory, try prefix.compactSnapshot().encoded() == base else {
            throw LiveHistoryError(message: "the rebuilt session (\(prefix.completedSteps) steps) does not reproduce the snapshot the session was restored from (\(simulation.historyBase.steps) steps)")
        }
        do {
            try simulation.prependHistory(prefix.simulation)
        } catch {
            throw LiveHistoryError(message: "\(error)")
        }
        historyBaseSnapshot = nil
    }

    /// Feeds one bar; returns the events it caused, in order (see `LiveEvent`): when its timestamp is later
    /// than the step being collected, that step's events first; then its `signal_update` (once the signal
    /// model is past its warm-up); then, if it was the step's last missing bar, the step's events: orders,
    /// fills and order rejections in execution order, and the `equity` mark. A refused bar gives one
    /// `rejected` event; a duplicate gives none.
    public func ingest(_ bar: LiveBar) -> [LiveEvent] {
        _ = process(bar)
        return takeEvents()
    }

    /// Feeds one bar without building events (the allocation-free path): the events are kept until
    /// ``takeEvents()`` or ``discardEvents()``.
    public func process(_ bar: LiveBar) -> LiveIngestOutcome {
        guard let s = symbolIndex(bar.symbol) else { return reject(bar, .unknownSymbol) }
        if let (field, message) = bar.validationProblem { return reject(bar, .invalid(field: field, message: message)) }
        let t = bar.bar.timestamp
        var completed = 0
        var completesPending = false
        if let p = pendingTime {
            if t == p {
                if simulation.hasBar(s) { return same(bar, pendingBars[s]) }
            } else if t < p {
                if let last = lastBars[s], last.timestamp == t { return same(bar, last) }
                return reject(bar, .late(currentStep: p))
            } else {
                completesPending = true
            }
        } else if let last = simulation.lastStepTime, t <= last {
            if let mine = lastBars[s], mine.timestamp == t { return same(bar, mine) }
            return reject(bar, .late(currentStep: last))
        }
        if configuration.splitCheck {
            // The symbol's previous accepted bar: in the pending step when this bar completes it, else the last completed.
            let previous = completesPending && simulation.hasBar(s) ? pendingBars[s] : lastBars[s]
            if let previous, let rejection = splitRejection(s, bar, previous: previous) { return reject(bar, rejection) }
        }
        if completesPending {
            completePendingStep()
            completed += 1
        }
        // Accepted into the step at `t`.
        pendingTime = t
        let b = bar.bar
        pendingBars[s] = b
        delivered += 1
        do {
            try simulation.add(symbol: s, bar: b)
            if let signal = simulation.latestSignal(s), !signal.isWarmUp { raw.append(.signal(signal)) }
        } catch {
            // The signal model cannot represent a quantity of this bar: no signal for it (see LiveSessions.md).
        }
        if delivered == universe.count {
            completePendingStep()
            completed += 1
        }
        return .accepted(completedSteps: completed)
    }

    /// The universe index of `symbol`. A feed usually delivers the symbols in the same order at every step, so the
    /// symbol after the previous one's is tried first (a string comparison) before the dictionary (a hash).
    @inline(__always)
    private func symbolIndex(_ symbol: String) -> Int? {
        var guess = lastSymbolIndex + 1
        if guess == universe.count { guess = 0 }
        if universe[guess] == symbol {
            lastSymbolIndex = guess
            return guess
        }
        guard let s = index[symbol] else { return nil }
        lastSymbolIndex = s
        return s
    }

    /// The split check (``LiveConfiguration/splitCheck``) of `bar` of symbol `s` after `previous`: a
    /// `suspectedSplit` rejection, or `nil` when the move does not look like a split or a scheduled split explains it.
    @inline(__always)
    private func splitRejection(_ s: Int, _ bar: LiveBar, previous: Bar) -> LiveBarRejection? {
        guard let ratio = PriceAdjustment.suspectedSplitRatio(previousClose: previous.close, open: bar.bar.open, close: bar.bar.close)
        else { return nil }
        let explained = configuration.corporateActions[universe[s]]?.contains {
            $0.shareMultiplier != 1 && $0.time > previous.timestamp && $0.time <= bar.bar.timestamp
        } ?? false
        return explained ? nil : .suspectedSplit(previous: previous, ratio: ratio)
    }

    private func same(_ bar: LiveBar, _ existing: Bar) -> LiveIngestOutcome {
        if bar.bar == existing { return .duplicate }
        return reject(bar, .conflicting(existing: LiveBar(symbol: bar.symbol, bar: existing)))
    }

    private func reject(_ bar: LiveBar, _ reason: LiveBarRejection) -> LiveIngestOutcome {
        raw.append(.barRejected(bar, reason))
        return .rejected(reason)
    }

    /// Runs the step being collected through the simulator and records its events.
    private func completePendingStep() {
        guard let t = pendingTime else { return }
        for s in 0..<universe.count where simulation.hasBar(s) { lastBars[s] = pendingBars[s] }
        simulation.completeStep(time: t)
        pendingTime = nil
        delivered = 0
        // Orders in execution order: each placement before the resolutions logged after it.
        let placements = simulation.placementCount
        let orderCount = simulation.orderCount
        let cash = simulation.cash
        var k = 0
        for i in ordersSeen..<orderCount {
            while k < placements && simulation.placement(k).ordersResolvedBefore <= i {
                raw.append(.placed(simulation.placement(k)))
                k += 1
            }
            // An order-model order cancelled or expired has no fill or rejection event (yet): it is in the order log.
            if simulation.order(i).cancellation != nil { continue }
            if simulation.order(i).reason != .signal { raw.append(.levelOrder(orderIndex: i)) }
            raw.append(.resolved(orderIndex: i, cash: cash))
        }
        while k < placements {
            raw.append(.placed(simulation.placement(k)))
            k += 1
        }
        simulation.discardPlacements()
        ordersSeen = orderCount
        raw.append(.equity(step: simulation.stepCount - 1, openPositions: simulation.openPositionCount))
    }

    /// Completes the pending step with the symbols that delivered a bar (the others have no bar at that step,
    /// as in the backtest): the grace timeout of a driver. Returns the events; none when no step is pending.
    public func closeStep() -> [LiveEvent] {
        completePendingStep()
        return takeEvents()
    }

    /// ``closeStep()`` without building events (they are kept until ``takeEvents()`` or ``discardEvents()``).
    public func closePendingStep() { completePendingStep() }

    /// The events recorded since the last call. A signal update whose signal the contract cannot carry (a
    /// non-finite field, e.g. the volume ratio over an all-zero-volume window) is left out.
    public func takeEvents() -> [LiveEvent] {
        defer { raw.removeAll(keepingCapacity: true) }
        var out: [LiveEvent] = []
        out.reserveCapacity(raw.count)
        for event in raw {
            if case .signal(let signal) = event {
                if LiveJournalCodec.isPublishable(signal) { out.append(.signalUpdate(signal, config: configuration.signalModel)) }
            } else {
                out.append(typedEvent(event))
            }
        }
        return out
    }

    /// The events recorded since the last call, in order, with each signal update left as the engine's signal
    /// (its line written straight from it: ``LiveJournalCodec/appendSignalUpdate(_:config:to:)``).
    func takeEvents(_ body: (PendingEvent) throws -> Void) rethrows {
        defer { raw.removeAll(keepingCapacity: true) }
        for event in raw {
            if case .signal(let signal) = event {
                try body(.signal(signal))
            } else {
                try body(.event(typedEvent(event)))
            }
        }
    }

    /// The event of a recorded event other than a signal update.
    private func typedEvent(_ event: RawEvent) -> LiveEvent {
        switch event {
        case .signal:
            preconditionFailure("signal updates are built by the caller")
        case .placed(let p):
            return .order(LiveOrder(
                id: p.id, symbol: universe[p.symbol], side: p.side, reason: p.isContribution ? .contribution : .signal,
                decidedAt: simulation.timestamp(atStep: p.step), amount: p.isContribution ? p.amount : nil))
        case let .resolved(i, cash):
            // One order-log entry: its order event (for level exits, decided in the step) was placed before it.
            let o = simulation.order(i)
            let time = simulation.timestamp(atStep: o.resolvedStep)
            let symbol = universe[o.symbol]
            if let rejection = o.rejection {
                return .rejected(LiveRejection(
                    reason: .order(rejection), message: "order \(o.id) (\(o.side.rawValue) \(symbol)) rejected: \(rejection.rawValue)",
                    symbol: symbol, timestamp: time, orderId: o.id))
            }
            return .fill(LiveFill(
                orderId: o.id, symbol: symbol, side: o.side, reason: o.reason, timestamp: time,
                price: o.fillPrice, shares: o.shares, commission: o.commission, cash: cash))
        case let .levelOrder(i):
            let o = simulation.order(i)
            return .order(LiveOrder(
                id: o.id, symbol: universe[o.symbol], side: o.side, reason: LiveOrderReason(o.reason),
                decidedAt: simulation.timestamp(atStep: o.resolvedStep), amount: nil))
        case let .equity(step, openPositions):
            return .equity(LiveEquityMark(
                timestamp: simulation.timestamp(atStep: step), equity: simulation.equity(atStep: step),
                cash: simulation.cash(atStep: step), contributions: simulation.contribution(atStep: step),
                openPositions: openPositions))
        case let .barRejected(bar, reason):
            var field: String?
            if case .invalid(let f, _) = reason { field = f }
            return .rejected(LiveRejection(
                reason: .bar(reason.kind), message: "\(bar.symbol) bar at \(iso8601(epochSeconds: bar.bar.timestamp)): \(reason)",
                symbol: bar.symbol, timestamp: bar.bar.timestamp, field: field))
        }
    }

    /// Forgets the recorded events (keeping the buffer's capacity).
    public func discardEvents() { raw.removeAll(keepingCapacity: true) }

    /// The timestamp of the step being collected (some symbols delivered, the step is not complete), or `nil`.
    public var pendingStepTime: Int64? { pendingTime }

    /// The timestamp of the last completed step, or `nil` before the first.
    public var lastCompletedStepTime: Int64? { simulation.lastStepTime }

    /// Number of completed steps.
    public var completedSteps: Int { simulation.stepCount }

    /// What `Backtest.run` returns on the completed steps' bars: equal, bit for bit, to the backtest on that
    /// data. Orders still pending are listed as the backtest lists them when its data ends (rejected,
    /// `no-bar-for-symbol`); in the session they stay pending.
    ///
    /// - Throws: ``LiveHistoryError`` when the history cannot be loaded (``loadHistory()``).
    public func result() throws -> BacktestResult {
        try loadHistory()
        return simulation.result()
    }

    /// Reserves room for `steps` more completed steps, `orders` more order-log entries and `trades` more closed
    /// trades: until then the history grows without allocating (otherwise its growth is geometric: a few
    /// allocations over a session's life, amortized O(1) per step).
    public func reserveCapacity(steps: Int, orders: Int, trades: Int) {
        simulation.reserveCapacity(steps: steps, orders: orders, trades: trades)
    }

    /// Each symbol's latest signal, in universe order (symbols without a signal yet are left out).
    public func latestSignals() -> [Signal] {
        (0..<universe.count).compactMap { simulation.latestSignal($0) }
    }

    /// Whether the session's strategy saves its state (`Strategy.savedState()`), so that snapshots can be taken:
    /// a journal of a session without snapshots is rebuilt by replaying its inputs from the first.
    public var canSnapshot: Bool { simulation.canSaveState }

    /// The whole state with the whole history, exactly: `LiveSession(snapshot:)` continues identically, and its
    /// ``result()`` is this session's (events not yet taken are not part of it). Its size grows with the number of
    /// completed steps; ``compactSnapshot()`` does not.
    ///
    /// - Throws: `BacktestError` when the strategy does not save its state (``canSnapshot``); as ``loadHistory()``
    ///   (a session restored from a compact snapshot loads its history first).
    public func snapshot() throws -> LiveSnapshot {
        guard canSnapshot else { throw BacktestError("strategy \(configuration.strategy.name) does not save its state: the session has no snapshot") }
        try loadHistory()
        return snapshot(includingHistory: true)
    }

    /// The state without the history (equity curve, order and trade logs: only their lengths): a size that
    /// depends on the universe and the configuration, not on the session's length. `LiveSession(snapshot:)`
    /// continues identically; ``result()`` then needs ``loadHistory()``. What `JournaledLiveSession` journals.
    ///
    /// - Precondition: ``canSnapshot``.
    public func compactSnapshot() -> LiveSnapshot {
        snapshot(includingHistory: false)
    }

    private func snapshot(includingHistory: Bool) -> LiveSnapshot {
        LiveSnapshot(
            version: LiveSnapshot.currentVersion, configuration: configuration, universe: universe,
            simulation: simulation.state(includingHistory: includingHistory), pendingTime: pendingTime,
            pendingBars: pendingBars.map { LiveSnapshot.BarBits($0) },
            lastBars: lastBars.map { $0.map { LiveSnapshot.BarBits($0) } })
    }
}

/// The history of a session restored from a compact snapshot could not be loaded.
public struct LiveHistoryError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    public var message: String
    /// An error saying `message`.
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// The exact state of a ``LiveSession``, Codable. Encode it with ``encoded()`` (JSON; every double of the
/// simulator and of the bars is written as its IEEE-754 bit pattern, the signal model's and indicators' states
/// through their Codable forms, whose non-finite values are written as the strings `nan`, `inf`, `-inf`).
///
/// Two forms: ``LiveSession/snapshot()`` with the whole history (its size grows with the session), and
/// ``LiveSession/compactSnapshot()`` without it (a size independent of the session's length: what a journal
/// stores).
public struct LiveSnapshot: Sendable, Codable {
    /// The format version this build writes and reads (2: the history may be left out, `historyBase`; 3: the
    /// confidence calibrator's state has its overall and direction levels; 4: the rolling regression's state keeps
    /// the residual variance and no longer the coefficients' standard errors). A journal whose newest snapshot has
    /// another version is replayed from its inputs instead.
    public static let currentVersion = 4

    /// The format version of encoded snapshot bytes (`nil` when they are not a snapshot's JSON): lets a reader
    /// tell an older format from a damaged snapshot.
    public static func version(ofEncoded bytes: [UInt8]) -> Int? {
        struct Version: Decodable { var version: Int }
        return try? JSONDecoder().decode(Version.self, from: Data(bytes)).version
    }

    /// A bar with its doubles as bit patterns.
    struct BarBits: Sendable, Codable, Equatable {
        var timestamp: Int64
        var open: UInt64, high: UInt64, low: UInt64, close: UInt64, volume: UInt64
        init(_ b: Bar) {
            timestamp = b.timestamp
            open = b.open.bitPattern
            high = b.high.bitPattern
            low = b.low.bitPattern
            close = b.close.bitPattern
            volume = b.volume.bitPattern
        }
        var bar: Bar {
            Bar(timestamp: timestamp, open: Double(bitPattern: open), high: Double(bitPattern: high),
                low: Double(bitPattern: low), close: Double(bitPattern: close), volume: Double(bitPattern: volume))
        }
    }

    /// Format version (``currentVersion``).
    public var version: Int
    public var configuration: LiveConfiguration
    public var universe: [String]
    /// The simulator's state.
    public var simulation: SteppedSimulationState
    /// The time of the step being collected, if any.
    public var pendingTime: Int64?
    var pendingBars: [BarBits]
    var lastBars: [BarBits?]

    /// Number of completed steps.
    public var completedSteps: Int { simulation.stepCount }

    /// Whether the snapshot holds the whole history (``LiveSession/snapshot()``), not only its lengths
    /// (``LiveSession/compactSnapshot()``).
    public var hasFullHistory: Bool { simulation.hasFullHistory }

    init(version: Int, configuration: LiveConfiguration, universe: [String], simulation: SteppedSimulationState,
         pendingTime: Int64?, pendingBars: [BarBits], lastBars: [BarBits?]) {
        self.version = version
        self.configuration = configuration
        self.universe = universe
        self.simulation = simulation
        self.pendingTime = pendingTime
        self.pendingBars = pendingBars
        self.lastBars = lastBars
    }

    private static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// The snapshot as JSON bytes (keys sorted: equal states give equal bytes).
    public func encoded() throws -> [UInt8] { [UInt8](try Self.encoder().encode(self)) }

    /// Decodes ``encoded()``'s bytes.
    /// - Throws: `DecodingError` for bytes that are not such a snapshot.
    public init(encoded bytes: [UInt8]) throws {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        self = try d.decode(LiveSnapshot.self, from: Data(bytes))
    }
}
