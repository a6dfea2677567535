import SentioCore
import SentioIndicators
import SentioSignals

/// The exact state of a ``SteppedSimulation`` (what a snapshot of a live session stores): every double of the
/// simulator as its IEEE-754 bit pattern, the indicator and signal-model states in their Codable form.
/// `SteppedSimulation(configuration:strategy:symbols:signalModel:state:)` continues exactly where it was taken.
public struct SteppedSimulationState: Sendable, Codable {
    struct Trade: Sendable, Codable, Equatable {
        var symbolIndex: Int, entryStep: Int, exitStep: Int, entryBar: Int, exitBar: Int
        var entryTime: Int64, exitTime: Int64
        var entryPrice: UInt64, exitPrice: UInt64, shares: UInt64, pnl: UInt64, pnlPercent: UInt64, commission: UInt64
        var exitReason: ExitReason
    }

    struct Order: Sendable, Codable, Equatable {
        var id: Int, symbol: Int, side: OrderSide, reason: ExitReason, decidedStep: Int, resolvedStep: Int
        var rejection: RejectionReason?
        var fillPrice: UInt64, shares: UInt64, commission: UInt64
        /// An order of the order model (absent for the built-in decisions, so their snapshots keep their bytes).
        var detail: OrderDetailState?
        var cancellation: CancelReason?
    }

    var cash: UInt64, commissionsPaid: UInt64, nextOrderID: Int, openCount: Int
    var cursor: [Int], hasBar: [Bool], lastClose: [UInt64]
    var shares: [UInt64], costBasis: [UInt64], entryPrice: [UInt64], entryCommission: [UInt64]
    var entryStep: [Int], entryBar: [Int], entryTime: [Int64]
    var stopPrice: [UInt64], targetPrice: [UInt64], levelsLiveFromStep: [Int]
    var pendingKind: [UInt8], pendingID: [Int], pendingStep: [Int]
    var pendingDecisionClose: [UInt64], pendingStopPercent: [UInt64], pendingTargetPercent: [UInt64], pendingAmount: [UInt64]
    var barOpen: [UInt64], barHigh: [UInt64], barLow: [UInt64], barClose: [UInt64]
    var timestamps: [Int64], equity: [UInt64], cashCurve: [UInt64], contributions: [UInt64], exposed: [Bool]
    var trades: [Trade], orders: [Order]
    /// The history the arrays above leave out (all zero when they hold all of it).
    var historyBase: HistoryBase
    var signalStates: [SignalModelState], latestSignals: [Signal?]
    /// The strategy's saved state (`Strategy.savedState()`): the built-in strategies' typed fields, then any other
    /// strategy's JSON text (absent for the built-in ones, so their snapshots keep their bytes).
    var rsiStates: [RelativeStrengthIndex], rsiValues: [UInt64], dcaLastPeriod: [Int]
    var strategyState: String?
    /// The next corporate action of each symbol (`nil`: the simulation has none scheduled).
    var holdingAdjustmentCursor: [Int]?
    /// The order model's working orders (`nil`: none, so that snapshots without them keep their bytes).
    var book: [WorkingOrderState]?
    /// Borrow fees paid (`nil`: none) and the short value curve (`nil` unless short selling is allowed).
    var borrowFeesPaid: UInt64?
    var shortValue: [UInt64]?

    /// Number of completed steps.
    public var stepCount: Int { historyBase.steps + timestamps.count }

    /// Whether the state holds the whole history (the curves, the order and trade logs).
    public var hasFullHistory: Bool { historyBase.steps == 0 }

    var savedStrategyState: StrategyState {
        StrategyState(rsiStates: rsiStates, rsiValues: rsiValues, dcaLastPeriod: dcaLastPeriod, custom: strategyState)
    }
}

private func bits(_ s: Slots<Double>) -> [UInt64] { s.array.map(\.bitPattern) }
private func bits(_ a: [Double]) -> [UInt64] { a.map(\.bitPattern) }
private func doubles(_ a: [UInt64]) -> [Double] { a.map(Double.init(bitPattern:)) }

extension SteppedSimulation {
    /// The exact state (see ``SteppedSimulationState``). With `includingHistory` false the per-step curves and
    /// the order and trade logs are left out (only their lengths and the last step's time are kept): a state of
    /// a size independent of the number of steps, from which a simulation continues identically but needs
    /// ``prependHistory(_:)`` before ``result()``. With `includingHistory` true the simulation must hold its
    /// whole history (``hasFullHistory``).
    ///
    /// - Precondition: ``canSaveState``.
    public func state(includingHistory: Bool = true) -> SteppedSimulationState {
        precondition(!includingHistory || hasFullHistory, "the simulation's history is not loaded")
        precondition(canSaveState, "strategy \(strategy.name) does not save its state")
        var state = core.state(bars: bars, timestamps: includingHistory ? timestamps : [], decider: decider,
                               includingHistory: includingHistory)
        if !includingHistory && stepCount > 0 {
            state.historyBase.steps = stepCount
            state.historyBase.orders = orderCount
            state.historyBase.trades = tradeCount
            state.historyBase.lastStepTime = lastStepTime
        }
        return state
    }
}

extension SteppedSimulation {
    /// Whether the strategy saves its streaming state (`Strategy.savedState()` is not `nil`) and the signal model
    /// has no indicator features (`SignalModelConfig.indicatorFeatures`, whose TA-Lib states are not saved): only
    /// then can ``state(includingHistory:)`` be taken (a live session without it is rebuilt from its inputs).
    public var canSaveState: Bool {
        decider.savedState() != nil && (decider.signalStates.first?.config.indicatorFeatures ?? []).isEmpty
    }
}

extension SimulationCore {
    borrowing func state(bars: PendingStepBars, timestamps: [Int64], decider: SessionDecider,
                         includingHistory: Bool) -> SteppedSimulationState {
        let history = includingHistory
        let saved = decider.savedState() ?? StrategyState()
        return SteppedSimulationState(
            cash: self.cash.bitPattern, commissionsPaid: self.commissionsPaid.bitPattern, nextOrderID: self.nextOrderID,
            openCount: self.openCount, cursor: self.cursor.array, hasBar: self.hasBar.array, lastClose: bits(self.lastClose),
            shares: bits(self.shares), costBasis: bits(self.costBasis), entryPrice: bits(self.entryPrice),
            entryCommission: bits(self.entryCommission), entryStep: self.entryStep.array, entryBar: self.entryBar.array,
            entryTime: self.entryTime.array, stopPrice: bits(self.stopPrice), targetPrice: bits(self.targetPrice),
            levelsLiveFromStep: self.levelsLiveFromStep.array, pendingKind: self.pendingKind.array.map(\.rawValue),
            pendingID: self.pendingID.array, pendingStep: self.pendingStep.array,
            pendingDecisionClose: bits(self.pendingDecisionClose), pendingStopPercent: bits(self.pendingStopPercent),
            pendingTargetPercent: bits(self.pendingTargetPercent), pendingAmount: bits(self.pendingAmount),
            barOpen: bits(bars.opens), barHigh: bits(bars.highs), barLow: bits(bars.lows), barClose: bits(bars.closes),
            timestamps: timestamps, equity: history ? bits(self.equityCurve.array) : [],
            cashCurve: history ? bits(self.cashCurve.array) : [],
            contributions: history ? bits(self.contributions.array) : [], exposed: history ? self.exposed.array : [],
            trades: !history ? [] : self.trades.map {
                .init(symbolIndex: $0.symbolIndex, entryStep: $0.entryStep, exitStep: $0.exitStep, entryBar: $0.entryBar,
                      exitBar: $0.exitBar, entryTime: $0.entryTime, exitTime: $0.exitTime,
                      entryPrice: $0.entryPrice.bitPattern, exitPrice: $0.exitPrice.bitPattern, shares: $0.shares.bitPattern,
                      pnl: $0.pnl.bitPattern, pnlPercent: $0.pnlPercent.bitPattern, commission: $0.commission.bitPattern,
                      exitReason: $0.exitReason)
            },
            orders: !history ? [] : self.orders.map {
                .init(id: $0.id, symbol: $0.symbol, side: $0.side, reason: $0.reason, decidedStep: $0.decidedStep,
                      resolvedStep: $0.resolvedStep, rejection: $0.rejection, fillPrice: $0.fillPrice.bitPattern,
                      shares: $0.shares.bitPattern, commission: $0.commission.bitPattern,
                      detail: $0.detail.map(OrderDetailState.init), cancellation: $0.cancellation)
            },
            historyBase: HistoryBase(),
            signalStates: decider.signalStates, latestSignals: decider.latestSignals,
            rsiStates: saved.rsiStates,
            // The format's layout: one RSI value per symbol, NaN for strategies without one.
            rsiValues: saved.rsiValues.isEmpty ? Array(repeating: Double.nan.bitPattern, count: symbolCount) : saved.rsiValues,
            dcaLastPeriod: saved.dcaLastPeriod, strategyState: saved.custom,
            holdingAdjustmentCursor: self.holdingAdjustmentCursor.isEmpty ? nil : self.holdingAdjustmentCursor,
            book: self.book.isEmpty ? nil : self.book.map(WorkingOrderState.init),
            borrowFeesPaid: self.borrowFeesPaid == 0 ? nil : self.borrowFeesPaid.bitPattern,
            shortValue: !self.allowShort ? nil : history ? bits(self.shortValueCurve.array) : [])
    }
}

extension SteppedSimulation {

    /// A simulation continuing from `state`, taken from a simulation with the same configuration, strategy,
    /// symbols and signal model.
    ///
    /// - Throws: `BacktestError` for an invalid configuration (as `init`), or a state that does not fit
    ///   (per-symbol arrays of another length, an unknown pending-order kind, curves of different lengths).
    public convenience init(configuration: BacktestConfiguration, strategy: StrategySpec, symbols: [String],
                            signalModel: SignalModelConfig = SignalModelConfig(), registry: StrategyRegistry = .shared,
                            state: SteppedSimulationState) throws {
        try self.init(configuration: configuration, strategy: strategy, symbols: symbols, signalModel: signalModel,
                      registry: registry)
        let n = symbols.count
        let perSymbol: [Int] = [
            state.cursor.count, state.hasBar.count, state.lastClose.count, state.shares.count, state.costBasis.count,
            state.entryPrice.count, state.entryCommission.count, state.entryStep.count, state.entryBar.count,
            state.entryTime.count, state.stopPrice.count, state.targetPrice.count, state.levelsLiveFromStep.count,
            state.pendingKind.count, state.pendingID.count, state.pendingStep.count, state.pendingDecisionClose.count,
            state.pendingStopPercent.count, state.pendingTargetPercent.count, state.pendingAmount.count,
            state.barOpen.count, state.barHigh.count, state.barLow.count, state.barClose.count,
            state.signalStates.count, state.latestSignals.count,
        ]
        guard perSymbol.allSatisfy({ $0 == n }) else {
            throw BacktestError("the simulation state does not fit \(n) symbols and this strategy")
        }
        let steps = state.timestamps.count
        let base = state.historyBase
        let baseFits = base.steps == 0
            ? base == HistoryBase()
            : base.orders >= 0 && base.trades >= 0 && base.lastStepTime != nil
        guard base.steps >= 0, baseFits else {
            throw BacktestError("the simulation state's history counts are inconsistent")
        }
        guard state.equity.count == steps, state.cashCurve.count == steps, state.contributions.count == steps,
              state.exposed.count == steps else {
            throw BacktestError("the simulation state's curves have different lengths")
        }
        var kinds: [PendingKind] = []
        for raw in state.pendingKind {
            guard let k = PendingKind(rawValue: raw) else { throw BacktestError("unknown pending order kind \(raw)") }
            kinds.append(k)
        }
        guard zip(symbols, state.signalStates).allSatisfy({ $0 == $1.symbol && $1.config == signalModel }) else {
            throw BacktestError("the simulation state's signal models do not match the symbols and configuration")
        }
        core.cash = Double(bitPattern: state.cash)
        core.commissionsPaid = Double(bitPattern: state.commissionsPaid)
        core.nextOrderID = state.nextOrderID
        core.openCount = state.openCount
        core.cursor.assign(state.cursor)
        core.hasBar.assign(state.hasBar)
        core.lastClose.assign(doubles(state.lastClose))
        core.shares.assign(doubles(state.shares))
        core.costBasis.assign(doubles(state.costBasis))
        core.entryPrice.assign(doubles(state.entryPrice))
        core.entryCommission.assign(doubles(state.entryCommission))
        core.entryStep.assign(state.entryStep)
        core.entryBar.assign(state.entryBar)
        core.entryTime.assign(state.entryTime)
        core.stopPrice.assign(doubles(state.stopPrice))
        core.targetPrice.assign(doubles(state.targetPrice))
        core.levelsLiveFromStep.assign(state.levelsLiveFromStep)
        core.pendingKind.assign(kinds)
        core.pendingID.assign(state.pendingID)
        core.pendingStep.assign(state.pendingStep)
        core.pendingDecisionClose.assign(doubles(state.pendingDecisionClose))
        core.pendingStopPercent.assign(doubles(state.pendingStopPercent))
        core.pendingTargetPercent.assign(doubles(state.pendingTargetPercent))
        core.pendingAmount.assign(doubles(state.pendingAmount))
        bars.opens.assign(doubles(state.barOpen))
        bars.highs.assign(doubles(state.barHigh))
        bars.lows.assign(doubles(state.barLow))
        bars.closes.assign(doubles(state.barClose))
        timestamps = state.timestamps
        historyBase = state.historyBase
        core.equityCurve.replace(with: doubles(state.equity))
        core.cashCurve.replace(with: doubles(state.cashCurve))
        core.contributions.replace(with: doubles(state.contributions))
        core.exposed.replace(with: state.exposed)
        for t in state.trades where !(0..<n).contains(t.symbolIndex) {
            throw BacktestError("a trade of the simulation state names symbol number \(t.symbolIndex) of \(n)")
        }
        core.trades = state.trades.map {
            ClosedTrade(
                symbol: symbols[$0.symbolIndex], symbolIndex: $0.symbolIndex, entryStep: $0.entryStep, exitStep: $0.exitStep,
                entryBar: $0.entryBar, exitBar: $0.exitBar, entryTime: $0.entryTime, exitTime: $0.exitTime,
                entryPrice: Double(bitPattern: $0.entryPrice), exitPrice: Double(bitPattern: $0.exitPrice),
                shares: Double(bitPattern: $0.shares), pnl: Double(bitPattern: $0.pnl),
                pnlPercent: Double(bitPattern: $0.pnlPercent), commission: Double(bitPattern: $0.commission),
                signalType: "BUY", exitReason: $0.exitReason)
        }
        core.orders = try state.orders.map {
            OrderRecord(
                id: $0.id, symbol: $0.symbol, side: $0.side, reason: $0.reason, decidedStep: $0.decidedStep,
                resolvedStep: $0.resolvedStep, rejection: $0.rejection, fillPrice: Double(bitPattern: $0.fillPrice),
                shares: Double(bitPattern: $0.shares), commission: Double(bitPattern: $0.commission),
                detail: try $0.detail?.detail(), cancellation: $0.cancellation)
        }
        core.borrowFeesPaid = state.borrowFeesPaid.map(Double.init(bitPattern:)) ?? 0
        core.previousTime = state.timestamps.last ?? state.historyBase.lastStepTime ?? .min
        if configuration.allowShort {
            guard let values = state.shortValue, values.count == steps else {
                throw BacktestError("the simulation state's short value curve does not fit its steps")
            }
            core.shortValueCurve.replace(with: doubles(values))
        }
        core.book = []
        for o in state.book ?? [] {
            guard (0..<n).contains(o.symbol) else {
                throw BacktestError("a working order of the simulation state names symbol number \(o.symbol) of \(n)")
            }
            core.book.append(try o.working(rank: core.canonicalRank[o.symbol]))
        }
        decider.signalStates = state.signalStates
        decider.latestSignals = state.latestSignals
        do {
            try decider.restore(state.savedStrategyState)
        } catch {
            throw BacktestError("the simulation state does not fit \(n) symbols and this strategy (\(error))")
        }
        if let cursor = state.holdingAdjustmentCursor {
            guard cursor.count == n else { throw BacktestError("the simulation state's corporate action cursor does not fit \(n) symbols") }
            core.holdingAdjustmentCursor = cursor
        }
    }
}
