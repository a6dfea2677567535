import SentioCore
import SentioSignals
import SentioIndicators

/// When an order decided at a bar's close is filled.
public enum FillTiming: String, Sendable, Codable, CaseIterable {
    /// At the next bar's open of the same symbol (the default; no look-ahead).
    case nextOpen = "next-open"
    /// At the same bar's close. Look-ahead-prone: the decision and the fill use the same price, which a
    /// real trader could only approximate with a market-on-close order placed before the close.
    case close
}

/// How many shares an entry order buys.
public enum PositionSizing: Sendable, Equatable {
    /// Everything the cash allows: `shares = floor((cash − fee) / (price × (1 + commission)))`.
    case allIn
    /// Each new position gets `equity / maxPositions` (capped by cash); no more than `maxPositions` open.
    case equalWeight(maxPositions: Int)
    /// Each new position gets `fraction × equity` (capped by cash), `0 < fraction ≤ 1`.
    case fractionOfEquity(Double)

    /// The CLI spelling, for `config` in the JSON output.
    public var name: String {
        switch self {
        case .allIn: "all-in"
        case .equalWeight: "equal-weight"
        case .fractionOfEquity: "fraction"
        }
    }
}

/// Which price the percent stop-loss and take-profit levels are measured from.
public enum StopReference: String, Sendable, Codable {
    /// The close of the bar at which the entry was decided (the default). This is the price the signal
    /// model quotes its `profitTarget` against, and what backtesting.py does (its `sl`/`tp` are absolute
    /// prices fixed when the order is placed).
    case decisionClose = "decision-close"
    /// The entry fill price (after slippage).
    case entryPrice = "entry-price"
}

/// Trading costs. Every one of them works against the trader.
public struct TradingCosts: Sendable, Equatable {
    /// Commission as a fraction of notional, charged at entry and again at exit (0.001 = 0.1 %).
    public var commissionRate: Double
    /// A fixed fee in currency per filled order.
    public var feePerOrder: Double
    /// Slippage in basis points of the reference price: buys fill at `price × (1 + bps/10⁴)`, sells at
    /// `price × (1 − bps/10⁴)`. Applied to every fill, stop and target exits included.
    public var slippageBasisPoints: Double

    public init(commissionRate: Double = 0, feePerOrder: Double = 0, slippageBasisPoints: Double = 0) {
        self.commissionRate = commissionRate
        self.feePerOrder = feePerOrder
        self.slippageBasisPoints = slippageBasisPoints
    }
}

/// Everything that defines a simulation besides the data and the strategy. A value; no global state.
public struct BacktestConfiguration: Sendable, Equatable {
    /// Starting cash, in currency (default 100,000). May be 0 only for strategies that deposit cash (DCA).
    public var initialCapital: Double
    public var fill: FillTiming
    public var costs: TradingCosts
    public var sizing: PositionSizing
    /// Allow fractional shares (default: whole shares only).
    public var fractionalShares: Bool
    /// Default stop-loss distance in percent below the reference price (e.g. 5 = 5 %), used when an entry
    /// decision carries none. `nil`: no stop.
    public var stopLossPercent: Double?
    /// Default take-profit distance in percent above the reference price. `nil`: no target.
    public var takeProfitPercent: Double?
    public var stopReference: StopReference
    /// Allow short positions (default `false`: long only). Only the order model's sells open them
    /// (``OrderRequest``); the built-in `sell` decision still only closes a long position.
    public var allowShort: Bool
    /// The annual borrow fee on short positions as a fraction (0.03 = 3 % a year; default 0), charged at each step
    /// on the short market value at the previous close for the time since the previous step:
    /// `fee = Σ |shares| × close × borrowRate × Δt / 365 days`.
    public var borrowRate: Double
    /// The initial margin as a fraction of position value (default 1: no leverage; 0.5: 2× leverage), as
    /// backtesting.py's `margin`. A short sale fills only when `margin × (gross value after it) + commission ≤
    /// equity`, and an all-in short (`OrderQuantity.all`) sells `⌊(available / margin − fee) / (price × (1 +
    /// commission))⌋` with `available = equity − margin × gross value`. Longs are paid in cash (no leverage on longs).
    public var margin: Double
    /// The maintenance margin (default 0): at a step's close, when `equity ≤ maintenanceMargin × gross value` (with
    /// 0: when equity is no longer positive, backtesting.py's rule) and short selling is allowed, every position is
    /// closed at that close (`liquidation`), before the strategy decides.
    public var maintenanceMargin: Double

    public init(
        initialCapital: Double = 100_000,
        fill: FillTiming = .nextOpen,
        costs: TradingCosts = TradingCosts(),
        sizing: PositionSizing = .allIn,
        fractionalShares: Bool = false,
        stopLossPercent: Double? = nil,
        takeProfitPercent: Double? = nil,
        stopReference: StopReference = .decisionClose,
        allowShort: Bool = false,
        borrowRate: Double = 0,
        margin: Double = 1,
        maintenanceMargin: Double = 0
    ) {
        self.initialCapital = initialCapital
        self.fill = fill
        self.costs = costs
        self.sizing = sizing
        self.fractionalShares = fractionalShares
        self.stopLossPercent = stopLossPercent
        self.takeProfitPercent = takeProfitPercent
        self.stopReference = stopReference
        self.allowShort = allowShort
        self.borrowRate = borrowRate
        self.margin = margin
        self.maintenanceMargin = maintenanceMargin
    }

    /// Checks the configuration; returns a message describing the first problem, or `nil`.
    public func validationProblem() -> String? {
        if !(initialCapital.isFinite && initialCapital >= 0) { return "initial capital must be a finite number >= 0, got \(initialCapital)" }
        if !(costs.commissionRate.isFinite && costs.commissionRate >= 0 && costs.commissionRate < 1) {
            return "commission must be a rate in [0, 1), got \(costs.commissionRate)"
        }
        if !(costs.feePerOrder.isFinite && costs.feePerOrder >= 0) { return "fee must be >= 0, got \(costs.feePerOrder)" }
        if !(costs.slippageBasisPoints.isFinite && costs.slippageBasisPoints >= 0 && costs.slippageBasisPoints < 10_000) {
            return "slippage must be in [0, 10000) basis points, got \(costs.slippageBasisPoints)"
        }
        switch sizing {
        case .allIn: break
        case .equalWeight(let n): if n < 1 { return "max positions must be >= 1, got \(n)" }
        case .fractionOfEquity(let f): if !(f > 0 && f <= 1) { return "fraction must be in (0, 1], got \(f)" }
        }
        if let s = stopLossPercent, !(s > 0 && s < 100) { return "stop-loss must be a percent in (0, 100), got \(s)" }
        if let t = takeProfitPercent, !(t > 0 && t.isFinite) { return "take-profit must be a positive percent, got \(t)" }
        if !(borrowRate.isFinite && borrowRate >= 0) { return "borrow rate must be a finite fraction >= 0, got \(borrowRate)" }
        if !(margin > 0 && margin <= 1) { return "margin must be a fraction in (0, 1], got \(margin)" }
        if !(maintenanceMargin >= 0 && maintenanceMargin <= margin) {
            return "maintenance margin must be in [0, margin = \(margin)], got \(maintenanceMargin)"
        }
        if !allowShort && (borrowRate != 0 || margin != 1 || maintenanceMargin != 0) {
            return "borrow rate, margin and maintenance margin apply to short positions: allow short selling"
        }
        return nil
    }
}

/// A configuration or data problem found before a simulation starts.
public struct BacktestError: UserInputError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The built-in strategies, by the name a front end (the CLI's `--strategy`) spells them: the names of the
/// ``StrategyRegistry``'s built-in entries, with ``BacktestRequest``'s typed parameters.
public enum StrategyKind: String, Sendable, Codable, CaseIterable {
    /// The signal model (``SignalStrategy/sentio(config:)``): buys on BUY, sells on SELL, with the signal's levels.
    case sentio
    /// ``RSIStrategy``: buy below the lower level, sell above the upper one.
    case rsi
    /// ``BuyAndHoldStrategy``.
    case buyAndHold = "buy-and-hold"
    /// ``DollarCostAveragingStrategy``: starts with no cash and deposits every period.
    case dca
    /// ``TACrossStrategy``: a TA-Lib function's line crossing another of its outputs or a level.
    case taCross = "ta-cross"
    /// ``RebalanceStrategy``: fixed weights, rebalanced every period or on drift.
    case rebalance
}

/// How entries are sized, by the name a front end spells it (``PositionSizing`` without its parameter).
public enum SizingRule: String, Sendable, Codable, CaseIterable {
    case allIn = "all-in"
    case equalWeight = "equal-weight"
    case fraction
}

/// A backtest as a user asks for it, each setting optional, and the one place where the defaults are resolved.
///
/// Defaults (the ``Defaults`` values): initial capital 100,000 (0 for DCA, which deposits instead); commission
/// 0.001 (a fraction of notional, 0.1 %); no fee, no slippage; next-open fills; sizing all-in for one symbol and
/// equal-weight over every symbol for several (or when `maxPositions` is given); whole shares (fractional with an
/// investor currency); RSI 14 bars, 30/70; DCA 1,000 a month. Stop-loss and take-profit are percents (5 = 5 %).
public struct BacktestRequest: Sendable, Equatable {
    /// The documented defaults.
    public enum Defaults {
        public static let initialCapital = 100_000.0
        public static let commissionRate = 0.001
        public static let rsiPeriod = 14
        public static let rsiLower = 30.0
        public static let rsiUpper = 70.0
        public static let dcaAmount = 1_000.0
        public static let dcaPeriod = ContributionPeriod.month
    }

    public var strategy: StrategyKind
    /// Starting cash in currency; `nil`: 100,000 (0 for DCA).
    public var initialCapital: Double?
    /// Commission as a fraction of notional (0.001 = 0.1 %).
    public var commissionRate: Double
    public var feePerOrder: Double
    public var slippageBasisPoints: Double
    public var fill: FillTiming
    /// `nil`: all-in for one symbol, equal-weight for several.
    public var sizing: SizingRule?
    /// Equal weight: most positions at once; `nil`: the number of symbols.
    public var maxPositions: Int?
    /// Fraction sizing: share of equity per position, in (0, 1].
    public var fraction: Double?
    public var fractionalShares: Bool
    /// Percent below the decision close (5 = 5 %); `nil`: none.
    public var stopLossPercent: Double?
    /// Percent above the decision close; `nil`: none.
    public var takeProfitPercent: Double?
    public var rsiPeriod: Int?
    public var rsiLower: Double?
    public var rsiUpper: Double?
    /// DCA: amount deposited each period (in the investor's currency when one is given).
    public var dcaAmount: Double?
    public var dcaPeriod: ContributionPeriod?
    /// DCA in another currency than the prices' (e.g. GBP): forces fractional shares.
    public var investorCurrency: String?
    /// The Sentio signal model's parameters (`sentio` only); `nil`: the defaults, `SignalModelConfig()`.
    public var signalModel: SignalModelConfig?
    /// `ta-cross`: the rule `LINE>REFERENCE` (``TACrossStrategy/rule``); `nil`: ``TACrossStrategy/defaultRule``.
    public var taCrossRule: String?
    /// `ta-cross`: parameters of the rule's function as `FUNCTION.PARAMETER=VALUE` (`macd.fastperiod=8`); later
    /// ones win.
    public var taSettings: [String]
    /// Rebalance: the target weights as text, `SYMBOL=WEIGHT,...` (`TQQQ=0.6,SQQQ=0.4`).
    public var rebalanceWeights: String? = nil
    /// Rebalance: the calendar period (default: month unless ``rebalanceDrift`` is given).
    public var rebalanceEvery: RebalancePeriod? = nil
    /// Rebalance: rebalance when a weight drifts more than this band (weight units, 0.05 = 5 points) instead.
    public var rebalanceDrift: Double? = nil

    public init(
        strategy: StrategyKind = .sentio, initialCapital: Double? = nil, commissionRate: Double = Defaults.commissionRate,
        feePerOrder: Double = 0, slippageBasisPoints: Double = 0, fill: FillTiming = .nextOpen, sizing: SizingRule? = nil,
        maxPositions: Int? = nil, fraction: Double? = nil, fractionalShares: Bool = false, stopLossPercent: Double? = nil,
        takeProfitPercent: Double? = nil, rsiPeriod: Int? = nil, rsiLower: Double? = nil, rsiUpper: Double? = nil,
        dcaAmount: Double? = nil, dcaPeriod: ContributionPeriod? = nil, investorCurrency: String? = nil,
        signalModel: SignalModelConfig? = nil, taCrossRule: String? = nil, taSettings: [String] = [],
        rebalanceWeights: String? = nil, rebalanceEvery: RebalancePeriod? = nil, rebalanceDrift: Double? = nil
    ) {
        self.strategy = strategy
        self.initialCapital = initialCapital
        self.commissionRate = commissionRate
        self.feePerOrder = feePerOrder
        self.slippageBasisPoints = slippageBasisPoints
        self.fill = fill
        self.sizing = sizing
        self.maxPositions = maxPositions
        self.fraction = fraction
        self.fractionalShares = fractionalShares
        self.stopLossPercent = stopLossPercent
        self.takeProfitPercent = takeProfitPercent
        self.rsiPeriod = rsiPeriod
        self.rsiLower = rsiLower
        self.rsiUpper = rsiUpper
        self.dcaAmount = dcaAmount
        self.dcaPeriod = dcaPeriod
        self.investorCurrency = investorCurrency
        self.signalModel = signalModel
        self.taCrossRule = taCrossRule
        self.taSettings = taSettings
        self.rebalanceWeights = rebalanceWeights
        self.rebalanceEvery = rebalanceEvery
        self.rebalanceDrift = rebalanceDrift
    }

    /// The signal model with its default: `signalModel`, else `SignalModelConfig()`.
    public var resolvedSignalModel: SignalModelConfig { signalModel ?? SignalModelConfig() }

    /// The RSI period, lower and upper levels with their defaults.
    public var resolvedRSI: (period: Int, lower: Double, upper: Double) {
        (rsiPeriod ?? Defaults.rsiPeriod, rsiLower ?? Defaults.rsiLower, rsiUpper ?? Defaults.rsiUpper)
    }

    /// The DCA amount and period with their defaults.
    public var resolvedDCA: (amount: Double, period: ContributionPeriod) {
        (dcaAmount ?? Defaults.dcaAmount, dcaPeriod ?? Defaults.dcaPeriod)
    }

    /// The sizing rule for `symbolCount` symbols: the given rule, else equal weight over all symbols when there
    /// are several (or `maxPositions` is given), else all-in.
    public func resolvedSizing(symbolCount: Int) -> PositionSizing {
        switch sizing ?? (symbolCount > 1 || maxPositions != nil ? .equalWeight : .allIn) {
        case .allIn: return .allIn
        case .equalWeight: return .equalWeight(maxPositions: maxPositions ?? symbolCount)
        case .fraction: return .fractionOfEquity(fraction ?? 1)
        }
    }

    /// The simulator's configuration for `symbolCount` symbols, every default resolved.
    public func configuration(symbolCount: Int) -> BacktestConfiguration {
        BacktestConfiguration(
            initialCapital: strategy == .dca ? 0 : (initialCapital ?? Defaults.initialCapital),
            fill: fill,
            costs: TradingCosts(commissionRate: commissionRate, feePerOrder: feePerOrder, slippageBasisPoints: slippageBasisPoints),
            sizing: resolvedSizing(symbolCount: symbolCount),
            fractionalShares: fractionalShares || investorCurrency != nil,
            stopLossPercent: stopLossPercent,
            takeProfitPercent: takeProfitPercent,
            stopReference: .decisionClose)
    }

    /// The strategy and its resolved parameters (``resolvedRSI``, ``resolvedDCA``; DCA invests in every symbol).
    public var strategySpec: StrategySpec {
        switch strategy {
        case .sentio: return .sentio
        case .rsi:
            let rsi = resolvedRSI
            return .rsi(period: rsi.period, lower: rsi.lower, upper: rsi.upper)
        case .buyAndHold: return .buyAndHold
        case .dca:
            let dca = resolvedDCA
            return .dca(amount: dca.amount, every: dca.period)
        case .taCross:
            // The spec of the strategy the rule builds (canonical text, every parameter); a rule
            // ``settingsProblem(optionPrefix:modelSettings:)`` refuses stays as given, for the registry to refuse.
            let rule = taCrossRule ?? TACrossStrategy.defaultRule
            return (try? Self.taCrossStrategy(rule: rule, settings: taSettings)).map(StrategySpec.init)
                ?? StrategySpec(name: "ta-cross", settings: [("ta-cross.rule", rule), ("ta-cross.parameters", "")])
        case .rebalance:
            let text = rebalanceWeights ?? ""
            let weights = (try? RebalanceStrategy.parseWeights(text)).map(RebalanceStrategy.format) ?? text
            let every = rebalanceDrift.map { "drift:\($0)" } ?? (rebalanceEvery ?? .month).rawValue
            return StrategySpec(name: "rebalance", settings: [("rebalance.weights", weights), ("rebalance.every", every)])
        }
    }

    /// The `ta-cross` strategy of `rule` and setting texts.
    static func taCrossStrategy(rule: String, settings: [String]) throws(TAFunctionError) -> TACrossStrategy {
        var parsed: [TAParameterSetting] = []
        for text in settings { parsed.append(try TAParameterSetting(parsing: text)) }
        return try TACrossStrategy(rule: rule, settings: parsed)
    }

    /// The strategy with its resolved parameters (``strategySpec``, built by `registry`; for `sentio`, the signal
    /// model ``resolvedSignalModel``).
    /// - Throws: `BacktestError` for an invalid parameter, `SignalConfigError` for an invalid signal model.
    public func makeStrategy(registry: StrategyRegistry = .shared) throws -> any Strategy {
        try registry.make(strategySpec, signalModel: resolvedSignalModel)
    }
}
