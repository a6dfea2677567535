import SentioIndicators

extension BacktestRequest {
    /// The first rule the request's settings break, or `nil`: the one set of request rules, read by `sentio
    /// backtest`'s options and by every combination of a sweep's grid.
    ///
    /// The rules, in the order they are checked: values out of range (`capital` > 0, `commission` in [0, 1), `fee`
    /// ≥ 0, `slippage-bps` in [0, 10000), `max-positions` ≥ 1, `fraction` in (0, 1], `stop-loss` in (0, 100),
    /// `take-profit` > 0); settings that contradict each other (`max-positions` with a sizing other than
    /// equal-weight, `fraction` without `sizing fraction` and the reverse); settings that do not apply to the strategy
    /// (`rsi-lower`/`rsi-upper`: rsi only; `rsi-period`: rsi and sentio; signal model parameters: sentio only);
    /// `rsi-period` in [1, `maximumIndicatorPeriod`]; 0 ≤ `rsi-lower` < `rsi-upper` ≤ 100; `amount`/`every`: dca
    /// only, `amount` > 0; no `capital`, `stop-loss` or `take-profit` with dca (it starts with no cash and never
    /// sells); `ta-cross`/`ta-set`: ta-cross only, a rule and settings that build a ``TACrossStrategy``.
    ///
    /// - Parameters:
    ///   - optionPrefix: how the caller spells a setting's name in its messages: `"--"` for the CLI's options, `""`
    ///     for a sweep's grid parameters (`--rsi-period` or `rsi-period`).
    ///   - modelSettings: the names (without the prefix) of the signal model parameters the caller set, which apply to
    ///     the sentio strategy only.
    public func settingsProblem(optionPrefix: String = "", modelSettings: [String] = []) -> String? {
        func o(_ name: String) -> String { optionPrefix + name }
        if let c = initialCapital, !(c > 0 && c.isFinite) { return "\(o("capital")) must be a positive amount, got \(c)" }
        if !(commissionRate >= 0 && commissionRate < 1) { return "\(o("commission")) must be a rate in [0, 1), got \(commissionRate)" }
        if !(feePerOrder >= 0 && feePerOrder.isFinite) { return "\(o("fee")) must be >= 0, got \(feePerOrder)" }
        if !(slippageBasisPoints >= 0 && slippageBasisPoints < 10_000) {
            return "\(o("slippage-bps")) must be in [0, 10000), got \(slippageBasisPoints)"
        }
        if let n = maxPositions, n < 1 { return "\(o("max-positions")) must be at least 1, got \(n)" }
        if let f = fraction, !(f > 0 && f <= 1) { return "\(o("fraction")) must be in (0, 1], got \(f)" }
        if let s = stopLossPercent, !(s > 0 && s < 100) { return "\(o("stop-loss")) must be a percent in (0, 100), got \(s)" }
        if let t = takeProfitPercent, !(t > 0 && t.isFinite) { return "\(o("take-profit")) must be a positive percent, got \(t)" }
        if maxPositions != nil && sizing != nil && sizing != .equalWeight {
            return "\(o("max-positions")) applies to \(o("sizing")) equal-weight only"
        }
        if fraction != nil && sizing != .fraction { return "\(o("fraction")) needs \(o("sizing")) fraction" }
        if sizing == .fraction && fraction == nil { return "\(o("sizing")) fraction needs \(o("fraction")) F" }
        if strategy != .rsi && (rsiLower != nil || rsiUpper != nil) {
            return "\(o("rsi-lower")) and \(o("rsi-upper")) apply to \(o("strategy")) rsi only"
        }
        if strategy != .rsi && strategy != .sentio && rsiPeriod != nil {
            return "\(o("rsi-period")) applies to \(o("strategy")) rsi and sentio only"
        }
        if strategy != .sentio && !modelSettings.isEmpty {
            return "\(modelSettings.map(o).joined(separator: ", ")) \(modelSettings.count == 1 ? "applies" : "apply") to \(o("strategy")) sentio only (signal model parameters)"
        }
        if let p = rsiPeriod, p < 1 { return "\(o("rsi-period")) must be at least 1, got \(p)" }
        if let p = rsiPeriod, p > maximumIndicatorPeriod {
            return "\(o("rsi-period")) must be at most \(maximumIndicatorPeriod) bars, got \(p)"
        }
        let rsi = resolvedRSI
        if !(0 <= rsi.lower && rsi.lower < rsi.upper && rsi.upper <= 100) {
            return "\(o("rsi-lower")) must be below \(o("rsi-upper")), both in [0, 100]; got \(rsi.lower) and \(rsi.upper)"
        }
        if strategy != .dca && dcaAmount != nil { return "\(o("amount")) applies to \(o("strategy")) dca only" }
        if strategy != .dca && dcaPeriod != nil { return "\(o("every")) applies to \(o("strategy")) dca and rebalance only" }
        if strategy != .rebalance && (rebalanceWeights != nil || rebalanceEvery != nil || rebalanceDrift != nil) {
            return "\(o("weights")) and \(o("drift")) apply to \(o("strategy")) rebalance only"
        }
        if strategy == .rebalance {
            guard let text = rebalanceWeights else {
                return "\(o("strategy")) rebalance needs \(o("weights")) SYMBOL=WEIGHT,... (e.g. TQQQ=0.6,SQQQ=0.4)"
            }
            if rebalanceEvery != nil && rebalanceDrift != nil { return "\(o("every")) and \(o("drift")) exclude each other" }
            if stopLossPercent != nil || takeProfitPercent != nil {
                return "\(o("stop-loss")) and \(o("take-profit")) do not apply to \(o("strategy")) rebalance (it trades to weights)"
            }
            do {
                _ = try RebalanceStrategy(
                    weights: try RebalanceStrategy.parseWeights(text), schedule: rebalanceDrift.map { .drift(band: $0) } ?? .every(.month))
            } catch {
                return "\(o("weights")): \(error)"
            }
        }
        if let a = dcaAmount, !(a > 0 && a.isFinite) { return "\(o("amount")) must be a positive amount, got \(a)" }
        if strategy == .dca {
            if initialCapital != nil {
                return "\(o("capital")) conflicts with \(o("strategy")) dca: DCA starts with no cash and deposits \(o("amount")) each period"
            }
            if stopLossPercent != nil || takeProfitPercent != nil {
                return "\(o("stop-loss")) and \(o("take-profit")) do not apply to \(o("strategy")) dca (it never sells)"
            }
        }
        if strategy != .taCross && (taCrossRule != nil || !taSettings.isEmpty) {
            return "\(o("ta-cross")) and \(o("ta-set")) apply to \(o("strategy")) ta-cross only"
        }
        if strategy == .taCross {
            var parsed: [TAParameterSetting] = []
            do throws(TAFunctionError) {
                for text in taSettings { parsed.append(try TAParameterSetting(parsing: text, option: o("ta-set"))) }
            } catch {
                return error.description
            }
            do throws(TAFunctionError) {
                _ = try TACrossStrategy(rule: taCrossRule ?? TACrossStrategy.defaultRule, settings: parsed)
            } catch {
                return "\(o("ta-cross")): \(error.description)"
            }
        }
        return nil
    }
}
