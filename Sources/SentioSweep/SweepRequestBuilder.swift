import SentioBacktest
import SentioCore
import SentioIndicators
import SentioSignals

/// Each combination of a grid as the backtest it stands for: the base request with the combination's values.
///
/// A grid parameter names a setting of `BacktestRequest` by its option name (``settingNames``: `rsi-period`,
/// `stop-loss`, `commission`, `horizon`, …, the names of `sentio backtest`'s options without `--`); a value is
/// the text such an option takes (`7`, `0.5`, `next-open`, `true`). Every combination is checked as a whole
/// (``request(_:)``): a value that does not parse, a setting that does not apply to the strategy, a value out of
/// range, or settings that contradict each other (`rsi-lower` ≥ `rsi-upper`, `fraction` without `sizing
/// fraction`) is a ``SweepCombinationError`` naming the combination.
///
/// ```swift
/// let grid = try SweepGrid.parse("rsi-period=7,14;rsi-lower=20,30")
/// let builder = try SweepRequestBuilder(base: BacktestRequest(strategy: .rsi), grid: grid)
/// let jobs = try builder.jobs(shard: nil)  // 4 jobs; jobs[1]: rsi-period 7, rsi-lower 30
/// ```
public struct SweepRequestBuilder: Sendable {
    /// What every combination starts from (the fixed settings).
    public var base: BacktestRequest
    public var grid: SweepGrid

    /// The settings a grid can vary, by name.
    public static var settingNames: [String] { Setting.all.map(\.name) }

    /// - Throws: ``SweepGridError`` for a grid parameter that is not a setting (``settingNames``).
    public init(base: BacktestRequest, grid: SweepGrid) throws(SweepGridError) {
        for p in grid.parameters where Setting.named(p.name) == nil {
            throw SweepGridError(
                "\(p.name) is not a backtest option (names are `sentio backtest` options without '--', e.g. rsi-period, stop-loss, commission, ta-cross; or a TA-Lib parameter for ta-cross, e.g. macd.fastperiod)")
        }
        self.base = base
        self.grid = grid
    }

    /// Combination `index`'s request (the base with the combination's values), checked.
    ///
    /// - Throws: ``SweepCombinationError`` naming the combination and what is wrong with it.
    public func request(_ index: Int) throws(SweepCombinationError) -> BacktestRequest {
        let parameters = grid.combination(index)
        do {
            return try Self.request(base, parameters)
        } catch {
            throw SweepCombinationError(index: index, parameters: parameters, message: error.message, isInvalidRequest: true)
        }
    }

    /// The jobs of `shard` (every combination without one), ascending index. Every combination of the grid is
    /// checked, also in a shard, so that each shard of an invalid grid fails the same way.
    ///
    /// - Throws: ``SweepCombinationError`` for the first invalid combination.
    public func jobs(shard: SweepShard?) throws(SweepCombinationError) -> [SweepJob] {
        var jobs: [SweepJob] = []
        for index in 0..<grid.count {
            let request = try request(index)
            if shard?.contains(index) ?? true {
                jobs.append(SweepJob(index: index, parameters: grid.combination(index), request: request))
            }
        }
        return jobs
    }

    /// `base` with `parameters` applied, then checked.
    static func request(_ base: BacktestRequest, _ parameters: SweepParameters) throws(SettingProblem) -> BacktestRequest {
        var request = base
        var model = base.signalModel ?? SignalModelConfig()
        var modelSettings: [String] = []
        for (name, value) in parameters.values {
            let setting = Setting.named(name)!
            try setting.apply(value, &request, &model)
            if setting.modelOnly { modelSettings.append(name) }
        }
        // SentioBacktest's request rules, the ones `sentio backtest` applies to its options, spelled without `--`.
        if let problem = request.settingsProblem(modelSettings: modelSettings) { throw SettingProblem(problem) }
        if request.strategy == .sentio {
            request.signalModel = model
            do { try model.validate() } catch { throw SettingProblem(error.description) }
        } else {
            // A strategy in the grid, from a base whose strategy (the default, sentio) had a signal model.
            if let m = request.signalModel, m != SignalModelConfig() {
                throw SettingProblem("the signal model's parameters apply to strategy sentio only")
            }
            request.signalModel = nil
        }
        return request
    }

    /// What is wrong with a combination (``SweepCombinationError`` adds which one).
    struct SettingProblem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// A setting a grid can vary: its name and how a value's text sets it.
    struct Setting: Sendable {
        var name: String
        /// A signal model parameter other than `rsi-period` (which the rsi strategy shares).
        var modelOnly = false
        var apply: @Sendable (_ value: String, _ request: inout BacktestRequest, _ model: inout SignalModelConfig) throws(SettingProblem) -> Void

        /// The setting called `name`: one of ``all``, or a TA-Lib function's parameter (`macd.fastperiod`) for the
        /// `ta-cross` strategy, each value becoming a `ta-set` setting (`macd.fastperiod=8`).
        static func named(_ name: String) -> Setting? {
            if let setting = all.first(where: { $0.name == name }) { return setting }
            let parts = name.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let function = TAFunction.descriptor(named: String(parts[0])),
                  function.parameters.contains(where: { $0.name == parts[1].lowercased() })
            else { return nil }
            return Setting(name: name) { (text, request, _) throws(SettingProblem) in
                guard let value = double(text), value.isFinite else { throw SettingProblem("\(name): '\(text)' is not \(number)") }
                request.taSettings.append("\(name)=\(value)")
            }
        }

        /// A setting of the request.
        static func request<T>(
            _ name: String, _ parse: @escaping @Sendable (String) -> T?, _ expected: String,
            _ set: @escaping @Sendable (inout BacktestRequest, T) -> Void
        ) -> Setting {
            Setting(name: name) { (text, request, _) throws(SettingProblem) in
                guard let value = parse(text) else { throw SettingProblem("\(name): '\(text)' is not \(expected)") }
                set(&request, value)
            }
        }

        /// A parameter of the signal model.
        static func model<T>(
            _ name: String, _ parse: @escaping @Sendable (String) -> T?, _ expected: String,
            _ keyPath: WritableKeyPath<SignalModelConfig, T> & Sendable
        ) -> Setting {
            Setting(name: name, modelOnly: true) { (text, _, model) throws(SettingProblem) in
                guard let value = parse(text) else { throw SettingProblem("\(name): '\(text)' is not \(expected)") }
                model[keyPath: keyPath] = value
            }
        }

        static let number = "a number", integer = "an integer", boolean = "true or false"
        static func double(_ s: String) -> Double? { Double(s) }
        static func int(_ s: String) -> Int? { Int(s) }
        static func bool(_ s: String) -> Bool? { s == "true" ? true : s == "false" ? false : nil }
        static func one<E: RawRepresentable & CaseIterable>(of _: E.Type) -> String where E.RawValue == String {
            "one of " + E.allCases.map(\.rawValue).joined(separator: ", ")
        }

        /// Every setting, in the order of `sentio backtest --help`.
        static let all: [Setting] = [
            request("strategy", StrategyKind.init(rawValue:), one(of: StrategyKind.self)) { $0.strategy = $1 },
            request("capital", double, number) { $0.initialCapital = $1 },
            request("commission", double, number) { $0.commissionRate = $1 },
            request("fee", double, number) { $0.feePerOrder = $1 },
            request("slippage-bps", double, number) { $0.slippageBasisPoints = $1 },
            request("fill", FillTiming.init(rawValue:), one(of: FillTiming.self)) { $0.fill = $1 },
            request("sizing", SizingRule.init(rawValue:), one(of: SizingRule.self)) { $0.sizing = $1 },
            request("max-positions", int, integer) { $0.maxPositions = $1 },
            request("fraction", double, number) { $0.fraction = $1 },
            request("fractional", bool, boolean) { $0.fractionalShares = $1 },
            request("stop-loss", double, number) { $0.stopLossPercent = $1 },
            request("take-profit", double, number) { $0.takeProfitPercent = $1 },
            request("rsi-lower", double, number) { $0.rsiLower = $1 },
            request("rsi-upper", double, number) { $0.rsiUpper = $1 },
            request("amount", double, number) { $0.dcaAmount = $1 },
            request("every", ContributionPeriod.init(rawValue:), one(of: ContributionPeriod.self)) { $0.dcaPeriod = $1 },
            request("ta-cross", { Optional($0) }, "a rule") { $0.taCrossRule = $1 },
            // The rsi strategy's period and the signal model's RSI feature period: one option, one meaning.
            Setting(name: "rsi-period") { (text, request, model) throws(SettingProblem) in
                guard let value = int(text) else { throw SettingProblem("rsi-period: '\(text)' is not \(integer)") }
                request.rsiPeriod = value
                model.rsiPeriod = value
            },
            model("horizon", int, integer, \.horizon),
            model("window", int, integer, \.regressionWindow),
            model("reseed-interval", int, integer, \.regressionReseedInterval),
            model("short-momentum", int, integer, \.shortMomentumPeriod),
            model("medium-momentum", int, integer, \.mediumMomentumPeriod),
            model("volume-window", int, integer, \.volumeWindow),
            model("atr-period", int, integer, \.atrPeriod),
            model("buy-threshold", double, number, \.buyScoreThreshold),
            model("sell-threshold", double, number, \.sellScoreThreshold),
            model("min-confidence", double, number, \.minimumConfidence),
            model("rsi-overbought", double, number, \.rsiOverbought),
            model("rsi-oversold", double, number, \.rsiOversold),
            model("stop-atr-multiple", double, number, \.stopLossATRMultiple),
            model("overlap-correction", bool, boolean, \.overlapCorrection),
            model("strong-confidence", double, number, \.strongConfidence),
            model("moderate-confidence", double, number, \.moderateConfidence),
        ]
    }
}
