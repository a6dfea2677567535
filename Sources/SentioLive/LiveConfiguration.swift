import SentioBacktest
import SentioCore
import SentioSignals

/// The strategy of a live session: the same four strategies, with the same parameters, as `sentio backtest`.
///
/// Each one is run in streaming form by the session and decides exactly as the backtest's batch strategy
/// (`SignalStrategy.sentio`, `RSIStrategy`, `BuyAndHoldStrategy`, `DollarCostAveragingStrategy`) on the same bars:
/// the indicator updates are the very functions the batch computations run (see the catalog's `Parity`).
public enum LiveStrategy: Sendable, Equatable {
    /// The Sentio signal model (the session's ``LiveConfiguration/signalModel``): BUY opens, SELL closes.
    case sentio
    /// RSI mean reversion: buy when RSI(`period`) < `lower`, sell when it is > `upper`.
    case rsi(period: Int, lower: Double, upper: Double)
    /// Buy every symbol at its first bar and hold.
    case buyAndHold
    /// Deposit `amount / n` and buy each of the `n` invested symbols at its first bar of every period;
    /// `symbols == nil`: every symbol of the universe.
    case dca(amount: Double, every: ContributionPeriod, symbols: [String]?)

    /// The backtest's strategy name (`sentio`, `rsi`, `buy-and-hold`, `dca`).
    public var name: String {
        switch self {
        case .sentio: "sentio"
        case .rsi: "rsi"
        case .buyAndHold: "buy-and-hold"
        case .dca: "dca"
        }
    }
}

/// Everything that defines a live session besides its universe and its bars: the backtest's configuration
/// (capital, costs, sizing, fills, stop/target defaults), the strategy and its parameters, and the signal model
/// that produces the `signal_update` events (and drives the `sentio` strategy).
///
/// Codable, so that a journal can store it with the session; ``differences(from:)`` lists what changed
/// between two of them, one line per setting, so that "continuing with a different configuration" can say
/// what differs.
public struct LiveConfiguration: Sendable, Equatable {
    public var strategy: LiveStrategy
    public var backtest: BacktestConfiguration
    public var signalModel: SignalModelConfig

    public init(strategy: LiveStrategy, backtest: BacktestConfiguration = BacktestConfiguration(),
                signalModel: SignalModelConfig = SignalModelConfig()) {
        self.strategy = strategy
        self.backtest = backtest
        self.signalModel = signalModel
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
        let strategy: LiveStrategy
        switch request.strategy {
        case .sentio: strategy = .sentio
        case .rsi:
            let rsi = request.resolvedRSI
            strategy = .rsi(period: rsi.period, lower: rsi.lower, upper: rsi.upper)
        case .buyAndHold: strategy = .buyAndHold
        case .dca:
            let dca = request.resolvedDCA
            strategy = .dca(amount: dca.amount, every: dca.period, symbols: nil)
        }
        self.init(strategy: strategy, backtest: request.configuration(symbolCount: symbolCount), signalModel: request.resolvedSignalModel)
    }

    /// Checks every part.
    ///
    /// - Throws: `BacktestError` for an invalid backtest configuration or strategy parameter,
    ///   `SignalConfigError` for an invalid signal model.
    public func validate() throws {
        if let problem = backtest.validationProblem() { throw BacktestError(problem) }
        try signalModel.validate()
        switch strategy {
        case .sentio, .buyAndHold:
            break
        case let .rsi(period, lower, upper):
            if period < 1 { throw BacktestError("RSI period must be >= 1, got \(period)") }
            if !(lower.isFinite && upper.isFinite && lower < upper) {
                throw BacktestError("RSI lower threshold must be below the upper one, got \(lower) and \(upper)")
            }
        case let .dca(amount, _, _):
            if !(amount > 0 && amount.isFinite) { throw BacktestError("DCA amount must be positive, got \(amount)") }
        }
    }

    /// The settings as `(key, value)` lines in a fixed order: the stable, human-readable fingerprint of the
    /// configuration (doubles in Swift's shortest round-trip form, so two lines are equal exactly when the
    /// values are).
    public var settings: [(key: String, value: String)] {
        var out: [(String, String)] = [("strategy", strategy.name)]
        switch strategy {
        case .sentio, .buyAndHold: break
        case let .rsi(period, lower, upper):
            out += [("rsi.period", String(period)), ("rsi.lower", lower.description), ("rsi.upper", upper.description)]
        case let .dca(amount, every, symbols):
            out += [("dca.amount", amount.description), ("dca.every", every.rawValue),
                    ("dca.symbols", symbols?.joined(separator: ",") ?? "(all)")]
        }
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
        for (k, v) in settings where !k.hasPrefix("signalModel.") { pairs[k] = v }
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
        let strategy: LiveStrategy
        switch try text("strategy") {
        case "sentio": strategy = .sentio
        case "buy-and-hold": strategy = .buyAndHold
        case "rsi": strategy = .rsi(period: try integer("rsi.period"), lower: try number("rsi.lower"), upper: try number("rsi.upper"))
        case "dca":
            guard let every = ContributionPeriod(rawValue: try text("dca.every")) else {
                throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "unknown DCA period")
            }
            let list = try text("dca.symbols")
            strategy = .dca(amount: try number("dca.amount"), every: every,
                            symbols: list == "(all)" ? nil : list.split(separator: ",").map(String.init))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .settings, in: c, debugDescription: "unknown strategy \(other)")
        }
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
        self.init(strategy: strategy, backtest: backtest, signalModel: model)
    }
}
