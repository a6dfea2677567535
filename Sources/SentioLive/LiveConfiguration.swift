import SentioBacktest
import SentioCore
import SentioData
import SentioSignals

/// Everything that defines a live session besides its universe and its bars: the backtest's configuration
/// (capital, costs, sizing, fills, stop/target defaults), the strategy and its parameters, and the signal model
/// that produces the `signal_update` events (and drives the `sentio` strategy).
///
/// Codable, so that a journal can store it with the session; ``differences(from:)`` lists what changed
/// between two of them, one line per setting, so that "continuing with a different configuration" can say
/// what differs.
public struct LiveConfiguration: Sendable, Equatable {
    /// The strategy and its parameters, found in the `StrategyRegistry` (the built-in ones, with the same
    /// parameters as `sentio backtest`, or one the program registered). It runs in streaming form and decides
    /// exactly as the backtest does on the same bars (see the catalog's `Parity`).
    public var strategy: StrategySpec
    public var backtest: BacktestConfiguration
    public var signalModel: SignalModelConfig
    /// Corporate actions applied to holdings at their ex-dates, by symbol of the universe (`sentio live --actions`):
    /// the bars arrive unadjusted, so at the first bar of a symbol at or after an action's time its shares are
    /// multiplied by the split ratio and the dividend is credited in cash, by the backtest's own step function
    /// (`Backtest.corporateActions`, `SteppedSimulation.scheduleCorporateActions`). Empty: none.
    public var corporateActions: [String: [HoldingAdjustment]]
    /// The split check of the OHLCV reader applied bar by bar (`sentio live --adjust auto`, the default): a bar whose
    /// move from the symbol's previous bar looks like a split (`PriceAdjustment.suspectedSplitRatio(previousClose:open:close:)`)
    /// that no split of ``corporateActions`` explains is rejected (`suspected-split`). `false`: every move is taken
    /// as real (`--adjust none`).
    public var splitCheck: Bool

    public init(strategy: StrategySpec, backtest: BacktestConfiguration = BacktestConfiguration(),
                signalModel: SignalModelConfig = SignalModelConfig(),
                corporateActions: [String: [HoldingAdjustment]] = [:], splitCheck: Bool = true) {
        self.strategy = strategy
        self.backtest = backtest
        self.signalModel = signalModel
        self.corporateActions = corporateActions
        self.splitCheck = splitCheck
    }

    /// The session a backtest request describes for a universe of `symbolCount` symbols: the very configuration
    /// the backtest runs (`BacktestRequest/configuration(symbolCount:)`: every default resolved there, sizing
    /// all-in for one symbol and equal-weight over all symbols for several) and the request's strategy with its
    /// resolved parameters (`BacktestRequest/resolvedRSI`, `BacktestRequest/resolvedDCA`; DCA invests in
    /// every symbol of the universe).
    ///
    /// The signal model is the request's (`BacktestRequest/resolvedSignalModel`: the model `sentio backtest`
    /// runs with the same options).
    public init(request: BacktestRequest, symbolCount: Int) {
        self.init(strategy: request.strategySpec, backtest: request.configuration(symbolCount: symbolCount), signalModel: request.resolvedSignalModel)
    }

    /// Checks every part.
    ///
    /// - Throws: `BacktestError` for an invalid backtest configuration or strategy parameter,
    ///   `SignalConfigError` for an invalid signal model.
    public func validate() throws {
        if let problem = backtest.validationProblem() { throw BacktestError(problem) }
        try signalModel.validate()
        _ = try StrategyRegistry.shared.make(strategy, signalModel: signalModel)
    }

    /// The settings as `(key, value)` lines in a fixed order: the stable, human-readable fingerprint of the
    /// configuration (doubles in Swift's shortest round-trip form, so two lines are equal exactly when the
    /// values are).
    public var settings: [(key: String, value: String)] {
        var out: [(String, String)] = [("strategy", strategy.name)]
        out += strategy.settings.map { ($0.key, $0.value) as (String, String) }
        let b = backtest
        out += [
            ("initialCapital", b.initialCapital.description), ("fill", b.fill.rawValue),
            ("commissionRate", b.costs.commissionRate.description), ("feePerOrder", b.costs.feePerOrder.description),
            ("slippageBasisPoints", b.costs.slippageBasisPoints.description), ("sizing", b.sizing.name),
        ]
        switch b.sizing {
        case .allIn: break
        case .equalWeight(let n): out.append(("sizing.maxPositions", String(n)))
        case .fractionOfEquity(let f): out.append(("sizing.fraction", f.description))
        }
        out += [
            ("fractionalShares", String(b.fractionalShares)),
            ("stopLossPercent", b.stopLossPercent?.description ?? "none"),
            ("takeProfitPercent", b.takeProfitPercent?.description ?? "none"),
            ("stopReference", b.stopReference.rawValue),
        ]
        let m = signalModel
        out += [
            ("signalModel.horizon", String(m.horizon)), ("signalModel.regressionWindow", String(m.regressionWindow)),
            ("signalModel.regressionReseedInterval", String(m.regressionReseedInterval)),
            ("signalModel.shortMomentumPeriod", String(m.shortMomentumPeriod)),
            ("signalModel.mediumMomentumPeriod", String(m.mediumMomentumPeriod)),
            ("signalModel.rsiPeriod", String(m.rsiPeriod)), ("signalModel.volumeWindow", String(m.volumeWindow)),
            ("signalModel.atrPeriod", String(m.atrPeriod)),
            ("signalModel.buyScoreThreshold", m.buyScoreThreshold.description),
            ("signalModel.sellScoreThreshold", m.sellScoreThreshold.description),
            ("signalModel.minimumConfidence", m.minimumConfidence.description),
            ("signalModel.rsiOverbought", m.rsiOverbought.description),
            ("signalModel.rsiOversold", m.rsiOversold.description),
            ("signalModel.stopLossATRMultiple", m.stopLossATRMultiple.description),
            ("signalModel.overlapCorrection", String(m.overlapCorrection)),
            ("signalModel.strongConfidence", m.strongConfidence.description),
            ("signalModel.moderateConfidence", m.moderateConfidence.description),
        ]
        out += [("splitCheck", splitCheck ? "on" : "off"), ("corporateActions", Self.text(of: corporateActions))]
        return out
    }

    /// The settings stored with a session: ``settings`` without those at their default (`splitCheck` on, no
    /// `corporateActions`), so a session that does not use them stores exactly what it stored before they existed.
    static let optionalDefaults: [String: String] = ["splitCheck": "on", "corporateActions": "(none)"]

    /// The actions as one setting: `SYMBOL DATE split=RATIO dividend=CASH` per action, `; ` between them, by symbol
    /// then time (dates as ``PriceAdjustment/shortDate(_:)``; numbers in Swift's shortest round-trip form, so the
    /// text reads back to the same bits); `(none)` for none.
    static func text(of actions: [String: [HoldingAdjustment]]) -> String {
        var parts: [String] = []
        for symbol in actions.keys.sorted() {
            for a in actions[symbol]!.sorted(by: { $0.time < $1.time }) {
                parts.append("\(symbol) \(PriceAdjustment.shortDate(a.time)) split=\(a.shareMultiplier) dividend=\(a.cashPerShare)")
            }
        }
        return parts.isEmpty ? "(none)" : parts.joined(separator: "; ")
    }

    /// Reads ``text(of:)`` back; `nil` for text it did not write.
    static func actions(fromText text: String) -> [String: [HoldingAdjustment]]? {
        if text == "(none)" { return [:] }
        var out: [String: [HoldingAdjustment]] = [:]
        for part in text.split(separator: "; ", omittingEmptySubsequences: false) {
            let fields = part.split(separator: " ")
            guard fields.count >= 4, fields[fields.count - 2].hasPrefix("split="), fields[fields.count - 1].hasPrefix("dividend="),
                  case .success(let time) = TimestampParser.parse(fields[fields.count - 3]),
                  let ratio = Double(fields[fields.count - 2].dropFirst(6)),
                  let dividend = Double(fields[fields.count - 1].dropFirst(9)) else { return nil }
            let symbol = fields[0..<(fields.count - 3)].joined(separator: " ")
            out[symbol, default: []].append(HoldingAdjustment(time: time, shareMultiplier: ratio, cashPerShare: dividend))
        }
        return out
    }

    /// One line per setting (``settings``) that differs: `"fill: stored next-open, given close"`; a setting
    /// present in only one of them (a strategy parameter) says `(none)` on the other side. Empty when equal.
    public func differences(from stored: LiveConfiguration) -> [String] {
        let mine = settings, theirs = stored.settings
        var keys: [String] = []
        for (k, _) in theirs + mine where !keys.contains(k) { keys.append(k) }
        func value(_ list: [(key: String, value: String)], _ key: String) -> String {
            list.first { $0.key == key }?.value ?? "(none)"
        }
        return keys.compactMap { k in
            let a = value(theirs, k), b = value(mine, k)
            return a == b ? nil : "\(k): stored \(a), given \(b)"
        }
    }
}

extension LiveConfiguration: Codable {
    enum CodingKeys: String, CodingKey { case settings, signalModel }

    /// Encoded as `{"settings": {key: value, …}, "signalModel": SignalModelConfig}` (the ``settings`` lines).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var pairs: [String: String] = [:]
        for (k, v) in settings where !k.hasPrefix("signalModel.") && Self.optionalDefaults[k] != v { pairs[k] = v }
        try c.encode(pairs, forKey: .settings)
        try c.encode(signalModel, forKey: .signalModel)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let s = try c.decode([String: String].self, forKey: .settings)
        let model = try c.decode(SignalModelConfig.self, forKey: .signalModel)
        func text(_ key: String) throws -> String {
            guard let v = s[key] else {
                throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "missing setting \(key)")
            }
            return v
        }
        func number(_ key: String) throws -> Double {
            guard let x = Double(try text(key)) else {
                throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "setting \(key) is not a number")
            }
            return x
        }
        func integer(_ key: String) throws -> Int {
            guard let x = Int(try text(key)) else {
                throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "setting \(key) is not an integer")
            }
            return x
        }
        func optionalNumber(_ key: String) throws -> Double? { try text(key) == "none" ? nil : try number(key) }
        let name = try text("strategy")
        guard let descriptor = StrategyRegistry.shared.descriptor(named: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .settings, in: c, debugDescription: "unknown strategy \(name) (register it in StrategyRegistry.shared first)")
        }
        let strategy = StrategySpec(name: name, settings: try descriptor.settingKeys.map { ($0, try text($0)) })
        guard let fill = FillTiming(rawValue: try text("fill")),
              let reference = StopReference(rawValue: try text("stopReference")) else {
            throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "unknown fill or stop reference")
        }
        let sizing: PositionSizing
        switch try text("sizing") {
        case "all-in": sizing = .allIn
        case "equal-weight": sizing = .equalWeight(maxPositions: try integer("sizing.maxPositions"))
        case "fraction": sizing = .fractionOfEquity(try number("sizing.fraction"))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "unknown sizing \(other)")
        }
        let backtest = BacktestConfiguration(
            initialCapital: try number("initialCapital"), fill: fill,
            costs: TradingCosts(commissionRate: try number("commissionRate"), feePerOrder: try number("feePerOrder"),
                                slippageBasisPoints: try number("slippageBasisPoints")),
            sizing: sizing, fractionalShares: try text("fractionalShares") == "true",
            stopLossPercent: try optionalNumber("stopLossPercent"), takeProfitPercent: try optionalNumber("takeProfitPercent"),
            stopReference: reference)
        guard let actions = Self.actions(fromText: s["corporateActions"] ?? "(none)") else {
            throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "setting corporateActions cannot be read")
        }
        self.init(strategy: strategy, backtest: backtest, signalModel: model, corporateActions: actions,
                  splitCheck: (s["splitCheck"] ?? "on") != "off")
    }
}
