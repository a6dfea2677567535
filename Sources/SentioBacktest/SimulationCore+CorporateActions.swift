import SentioCore

// Corporate actions on holdings: the backtest and a live session run on prices as given (unadjusted for splits, or
// split-adjusted without dividends) and apply each action to the holding at its ex-date, in the one step function
// (`SimulationCore.step` calls `applyHoldingAdjustments` first, before the open's fills).

extension SimulationCore {
    /// Sets the actions of each symbol (by symbol name; other names are ignored), sorted by time.
    mutating func scheduleHoldingAdjustments(_ bySymbol: [String: [HoldingAdjustment]]) {
        let schedule = symbols.map { (bySymbol[$0] ?? []).sorted { $0.time < $1.time } }
        if schedule.allSatisfy(\.isEmpty) {
            holdingAdjustments = []
            holdingAdjustmentCursor = []
            return
        }
        holdingAdjustments = schedule
        // A cursor restored from a live session's state is kept.
        if holdingAdjustmentCursor.count != symbolCount {
            holdingAdjustmentCursor = Array(repeating: 0, count: symbolCount)
        }
    }

    /// Applies, for every symbol with a bar at this step, the actions whose time is at or before `time` and not yet
    /// applied (a symbol without a bar on the ex-date gets them at its next bar), in time order:
    ///
    /// - a share multiplier m ≠ 1 (a split): shares × m; the average entry price, the stop and target levels, the
    ///   last close (which marks the position until this bar's close) and a pending order's decision close ÷ m.
    ///   Cost basis and commissions are money and do not change, so P&L and equity are unchanged by the split.
    /// - cash per share d > 0 (a dividend): cash += shares × d (the shares after a split of the same action).
    ///
    /// On prices back-adjusted by the same splits this is the identity: the holding, the levels and the marks are
    /// those of the adjusted run (`CorporateActionPropertyTests` checks the equity and trades of both runs).
    /// Symbols are handled in `canonicalOrder` (dividends are added to cash in that order).
    mutating func applyHoldingAdjustments(time: Int64) {
        for k in 0..<symbolCount {
            let s = canonicalOrder[k]
            guard hasBar[s] else { continue }
            let actions = holdingAdjustments[s]
            var next = holdingAdjustmentCursor[s]
            while next < actions.count && actions[next].time <= time {
                let action = actions[next]
                let m = action.shareMultiplier
                if m != 1 {
                    if shares[s] != 0 {
                        shares[s] *= m
                        entryPrice[s] /= m
                        stopPrice[s] /= m
                        targetPrice[s] /= m
                    }
                    lastClose[s] /= m
                    pendingDecisionClose[s] /= m
                }
                if action.cashPerShare > 0 && shares[s] != 0 { cash += shares[s] * action.cashPerShare }  // a short pays it
                next += 1
            }
            holdingAdjustmentCursor[s] = next
        }
    }
}

extension SteppedSimulation {
    /// Applies corporate actions to holdings at their ex-dates (see `SimulationCore.applyHoldingAdjustments`), by
    /// symbol name; call it before the first step (or right after restoring a state, whose progress through the
    /// actions it keeps). The same actions give the same steps as `Backtest.corporateActions`.
    public func scheduleCorporateActions(_ bySymbol: [String: [HoldingAdjustment]]) {
        core.scheduleHoldingAdjustments(bySymbol)
    }
}
