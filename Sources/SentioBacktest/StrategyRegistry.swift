import Foundation
import SentioCore
import SentioIndicators
import SentioSignals

/// A strategy by name and parameters, as text: what `--strategy` selects, what a live session's configuration
/// (and so its journal) stores, and what ``StrategyRegistry/make(_:signalModel:)`` builds a ``Strategy`` from.
///
/// The settings are the strategy's ``Strategy/settings``: keys prefixed by its name (`rsi.period`), doubles in
/// Swift's shortest round-trip form, so that two specs are equal exactly when the parameters are.
public struct StrategySpec: Sendable, Equatable, CustomStringConvertible {
    /// The registered name (`sentio`, `rsi`, `buy-and-hold`, `dca`, `ta-cross`, or a name a program registered).
    public var name: String
    /// The parameters, in the strategy's order.
    public var settings: [(key: String, value: String)]

    public init(name: String, settings: [(key: String, value: String)] = []) {
        self.name = name
        self.settings = settings
    }

    /// The spec of `strategy`: its name and settings.
    public init(_ strategy: some Strategy) {
        self.init(name: strategy.name, settings: strategy.settings)
    }

    /// The value of setting `key`, or `nil`.
    public subscript(key: String) -> String? { settings.first { $0.key == key }?.value }

    public static func == (a: StrategySpec, b: StrategySpec) -> Bool {
        a.name == b.name && a.settings.elementsEqual(b.settings) { $0.key == $1.key && $0.value == $1.value }
    }

    /// The Sentio signal model (the session's or the backtest's model): BUY opens, SELL closes.
    public static let sentio = StrategySpec(name: "sentio")
    /// Buy every symbol at its first bar and hold.
    public static let buyAndHold = StrategySpec(BuyAndHoldStrategy())
    /// RSI mean reversion: buy when RSI(`period`) < `lower`, sell when it is > `upper` (``RSIStrategy``).
    /// (Any values: the registry checks them when it builds the strategy.)
    public static func rsi(period: Int, lower: Double, upper: Double) -> StrategySpec {
        StrategySpec(name: "rsi", settings: [
            ("rsi.period", String(period)), ("rsi.lower", lower.description), ("rsi.upper", upper.description),
        ])
    }
    /// Deposit `amount / n` and buy each of the `n` invested symbols at its first bar of every period;
    /// `symbols == nil`: every symbol (``DollarCostAveragingStrategy``).
    public static func dca(amount: Double, every period: ContributionPeriod, symbols: [String]? = nil) -> StrategySpec {
        StrategySpec(name: "dca", settings: [
            ("dca.amount", amount.description), ("dca.every", period.rawValue),
            ("dca.symbols", symbols?.joined(separator: ",") ?? "(all)"),
        ])
    }

    /// A TA-Lib function's line crossing a reference (``TACrossStrategy``): `rule` in its text form
    /// (`macd_macd>macd_macdsignal`, `adx>25`), `settings` for the function's parameters.
    ///
    /// - Throws: `TAFunctionError` for an invalid rule or setting.
    public static func taCross(rule: String, settings: [TAParameterSetting] = []) throws(TAFunctionError) -> StrategySpec {
        StrategySpec(try TACrossStrategy(rule: rule, settings: settings))
    }

    /// `name` then `key=value` for each setting.
    public var description: String {
        ([name] + settings.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

/// How to build a registered strategy.
public struct StrategyDescriptor: Sendable {
    /// What a spec needs to build a strategy: its settings, and the signal model of the backtest or session
    /// (the `sentio` strategy's model).
    public struct Inputs: Sendable {
        public var spec: StrategySpec
        public var signalModel: SignalModelConfig

        /// The text of setting `key`.
        /// - Throws: `BacktestError` naming the strategy and the key when it is missing.
        public func text(_ key: String) throws -> String {
            guard let v = spec[key] else { throw BacktestError("strategy \(spec.name): missing setting \(key)") }
            return v
        }

        /// Setting `key` as a number.
        /// - Throws: `BacktestError` when it is missing or not a number.
        public func number(_ key: String) throws -> Double {
            guard let x = Double(try text(key)) else { throw BacktestError("strategy \(spec.name): setting \(key) is not a number") }
            return x
        }

        /// Setting `key` as an integer.
        /// - Throws: `BacktestError` when it is missing or not an integer.
        public func integer(_ key: String) throws -> Int {
            guard let x = Int(try text(key)) else { throw BacktestError("strategy \(spec.name): setting \(key) is not an integer") }
            return x
        }
    }

    /// The name the registry finds it by.
    public let name: String
    /// One line for `--help` and listings.
    public let summary: String
    /// The setting keys it reads, in order (`rsi.period`, ...).
    public let settingKeys: [String]
    /// Builds the strategy, checking every parameter.
    public let make: @Sendable (Inputs) throws -> any Strategy

    public init(name: String, summary: String, settingKeys: [String] = [],
                make: @escaping @Sendable (Inputs) throws -> any Strategy) {
        self.name = name
        self.summary = summary
        self.settingKeys = settingKeys
        self.make = make
    }
}

/// The strategies by name: the built-in ones (`sentio`, `rsi`, `buy-and-hold`, `dca`, `ta-cross`) and any a program adds
/// with ``register(_:)``, so that a backtest request, a live session (and its journal, which stores the
/// ``StrategySpec``) and a sweep all find them the same way.
///
/// Thread-safe (a lock guards the list; `Synchronization.Mutex` would need macOS 15). ``shared`` is the registry
/// the CLI, the server and live sessions use.
public final class StrategyRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [StrategyDescriptor]

    /// A registry holding the built-in strategies.
    public init() {
        all = Self.builtIn
    }

    private func withLock<T>(_ body: (inout [StrategyDescriptor]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&all)
    }

    /// The registry of the process.
    public static let shared = StrategyRegistry()

    /// Adds a strategy.
    /// - Throws: `BacktestError` when the name is empty or taken.
    public func register(_ descriptor: StrategyDescriptor) throws {
        try withLock { all in
            guard !descriptor.name.isEmpty else { throw BacktestError("a strategy needs a name") }
            guard !all.contains(where: { $0.name == descriptor.name }) else {
                throw BacktestError("a strategy named \(descriptor.name) is already registered")
            }
            all.append(descriptor)
        }
    }

    /// The registered names, built-in ones first, then in registration order.
    public var names: [String] { withLock { $0.map(\.name) } }

    /// The descriptor named `name`, or `nil`.
    public func descriptor(named name: String) -> StrategyDescriptor? {
        withLock { all in all.first { $0.name == name } }
    }

    /// The strategy `spec` names, with its parameters checked.
    ///
    /// - Throws: `BacktestError` for an unknown name (listing the known ones), a missing or invalid setting;
    ///   `SignalConfigError` for an invalid signal model (the `sentio` strategy).
    public func make(_ spec: StrategySpec, signalModel: SignalModelConfig = SignalModelConfig()) throws -> any Strategy {
        guard let descriptor = descriptor(named: spec.name) else {
            throw BacktestError("unknown strategy \(spec.name); registered: \(names.joined(separator: ", "))")
        }
        return try descriptor.make(StrategyDescriptor.Inputs(spec: spec, signalModel: signalModel))
    }

    /// The built-in strategies.
    static let builtIn: [StrategyDescriptor] = [
        StrategyDescriptor(name: "sentio", summary: "The Sentio signal model: buy on BUY with the signal's stop and target, sell on SELL.") {
            try SignalStrategy.sentio(config: $0.signalModel)
        },
        StrategyDescriptor(
            name: "rsi", summary: "RSI mean reversion: buy below the lower level, sell above the upper one.",
            settingKeys: ["rsi.period", "rsi.lower", "rsi.upper"]
        ) { inputs in
            let period = try inputs.integer("rsi.period"), lower = try inputs.number("rsi.lower"), upper = try inputs.number("rsi.upper")
            if period < 1 { throw BacktestError("RSI period must be >= 1, got \(period)") }
            if !(lower.isFinite && upper.isFinite && lower < upper) {
                throw BacktestError("RSI lower threshold must be below the upper one, got \(lower) and \(upper)")
            }
            return RSIStrategy(period: period, lower: lower, upper: upper)
        },
        StrategyDescriptor(name: "buy-and-hold", summary: "Buy every symbol at its first bar and hold.") { _ in
            BuyAndHoldStrategy()
        },
        StrategyDescriptor(
            name: "dca", summary: "Dollar-cost averaging: deposit and buy at each symbol's first bar of every week or month.",
            settingKeys: ["dca.amount", "dca.every", "dca.symbols"]
        ) { inputs in
            let amount = try inputs.number("dca.amount")
            if !(amount > 0 && amount.isFinite) { throw BacktestError("DCA amount must be positive, got \(amount)") }
            guard let every = ContributionPeriod(rawValue: try inputs.text("dca.every")) else {
                throw BacktestError("strategy dca: unknown period \(try inputs.text("dca.every")) (week or month)")
            }
            let list = try inputs.text("dca.symbols")
            return DollarCostAveragingStrategy(
                amount: amount, every: every, symbols: list == "(all)" ? nil : list.split(separator: ",").map(String.init))
        },
        StrategyDescriptor(
            name: "ta-cross",
            summary: "A TA-Lib function's line crossing another of its outputs or a level: buy on the cross above, sell on the cross back below.",
            settingKeys: ["ta-cross.rule", "ta-cross.parameters"]
        ) { inputs in
            let rule = try inputs.text("ta-cross.rule"), parameters = try inputs.text("ta-cross.parameters")
            do throws(TAFunctionError) {
                return try TACrossStrategy(rule: rule, parametersText: parameters)
            } catch {
                throw BacktestError("strategy ta-cross: \(error.description)")
            }
        },
        StrategyDescriptor(
            name: "rebalance", summary: "Hold fixed weights, rebalanced every week, month or quarter, or when they drift.",
            settingKeys: ["rebalance.weights", "rebalance.every"]
        ) { inputs in
            try RebalanceStrategy(
                weights: try RebalanceStrategy.parseWeights(try inputs.text("rebalance.weights")),
                schedule: try RebalanceStrategy.parseSchedule(try inputs.text("rebalance.every")))
        },
    ]
}
