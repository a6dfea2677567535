import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

@Suite("BacktestRequest: the one place where defaults are resolved")
struct BacktestRequestTests {
    @Test("defaults: capital 100,000 (0 for dca), commission 0.001, next-open, all-in for one symbol, equal weight for several")
    func defaults() throws {
        let one = BacktestRequest().configuration(symbolCount: 1)
        #expect(one.initialCapital == 100_000 && one.costs.commissionRate == 0.001 && one.costs.feePerOrder == 0)
        #expect(one.fill == .nextOpen && one.sizing == .allIn && !one.fractionalShares && one.stopReference == .decisionClose)
        #expect(one.stopLossPercent == nil && one.takeProfitPercent == nil)
        #expect(BacktestRequest().configuration(symbolCount: 7).sizing == .equalWeight(maxPositions: 7))
        #expect(BacktestRequest(maxPositions: 2).configuration(symbolCount: 1).sizing == .equalWeight(maxPositions: 2))
        #expect(BacktestRequest(sizing: .allIn).configuration(symbolCount: 7).sizing == .allIn)
        #expect(BacktestRequest(sizing: .fraction, fraction: 0.3).configuration(symbolCount: 2).sizing == .fractionOfEquity(0.3))
        #expect(BacktestRequest(strategy: .dca, initialCapital: 5).configuration(symbolCount: 1).initialCapital == 0)
        #expect(BacktestRequest(initialCapital: 5).configuration(symbolCount: 1).initialCapital == 5)
        #expect(BacktestRequest(investorCurrency: "GBP").configuration(symbolCount: 1).fractionalShares)
        #expect(BacktestRequest().resolvedRSI == (14, 30, 70))
        #expect(BacktestRequest(rsiLower: 20).resolvedRSI == (14, 20, 70))
        #expect(BacktestRequest().resolvedDCA == (1_000, .month))
        for c in [one, BacktestRequest().configuration(symbolCount: 7)] { #expect(c.validationProblem() == nil) }
    }

    @Test("each strategy kind builds the strategy of its name with the resolved parameters")
    func strategies() throws {
        for kind in StrategyKind.allCases {
            // rebalance has no default weights: the request names them.
            #expect(try BacktestRequest(strategy: kind, rebalanceWeights: kind == .rebalance ? "A=1" : nil).makeStrategy().name == kind.rawValue)
        }
        let rsi = try #require(try BacktestRequest(strategy: .rsi, rsiPeriod: 9, rsiUpper: 80).makeStrategy() as? RSIStrategy)
        #expect(rsi.period == 9 && rsi.lower == 30 && rsi.upper == 80)
        let dca = try #require(try BacktestRequest(strategy: .dca, dcaAmount: 50, dcaPeriod: .week).makeStrategy() as? DollarCostAveragingStrategy)
        #expect(dca.amount == 50 && dca.period == .week)
    }

    /// A request drawn from pools of valid and edge values for every setting, each setting invalid 1 time in 25
    /// (and optional settings absent half the time).
    static func randomRequest(_ rng: inout SplitMix64) -> BacktestRequest {
        func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
        func pick<T>(_ valid: [T], invalid: [T]) -> T { rng.next() % 25 == 0 ? pick(invalid) : pick(valid) }
        func maybe<T>(_ valid: [T], invalid: [T]) -> T? { rng.next() % 2 == 0 ? nil : pick(valid, invalid: invalid) }
        let strategy = pick(StrategyKind.allCases)
        return BacktestRequest(
            strategy: strategy,
            initialCapital: strategy == .dca && rng.next() % 4 != 0 ? nil : maybe([1, 100_000, 1e12], invalid: [0, -5, .infinity, .nan]),
            commissionRate: pick([0, 0.001, 0.999], invalid: [1, -0.1, .nan]),
            feePerOrder: pick([0, 1.5], invalid: [-1, .infinity, .nan]),
            slippageBasisPoints: pick([0, 5, 9_999], invalid: [10_000, -1, .nan]),
            fill: pick(FillTiming.allCases),
            sizing: pick([nil] + SizingRule.allCases.map { Optional($0) }),
            maxPositions: maybe([1, 3], invalid: [0, -2]),
            fraction: maybe([0.5, 1], invalid: [0, 1.5, .nan]),
            fractionalShares: pick([false, true]),
            stopLossPercent: maybe([5, 99.9], invalid: [0, 100, -3, .nan]),
            takeProfitPercent: maybe([10, 1e6], invalid: [0, -1, .infinity, .nan]),
            rsiPeriod: maybe([1, 14, 1_000_000], invalid: [0, -3, 1_000_001]),
            rsiLower: maybe([0, 30, 69.5], invalid: [-1, 70, 100, .nan]),
            rsiUpper: maybe([70, 100], invalid: [0, 30, 101, .nan]),
            dcaAmount: maybe([1, 500], invalid: [0, -10, .infinity]),
            dcaPeriod: pick([nil] + ContributionPeriod.allCases.map { Optional($0) }),
            taCrossRule: strategy != .taCross && rng.next() % 25 != 0 ? nil : maybe(
                ["macd_macd>macd_macdsignal", "ADX > 25", "stoch_slowk>stoch_slowd", "cci>-100.5"],
                invalid: ["adx>macd_macd", "nope>1", "adx", "adx>adx", "adx>nan", ">"]),
            taSettings: rng.next() % (strategy == .taCross ? 3 : 50) == 0
                ? [pick(["macd.fastperiod=8", "adx.timeperiod=20", "stoch.fastk_period=7"], invalid: ["macd.fastperiod=1", "macd.x=3", "bad", "adx.timeperiod=x"])]
                : [])
    }

    @Test("the request rules, over 40,000 seeded requests: a request they accept makes a valid configuration and a strategy; the CLI's spelling differs only by --")
    func requestRulesImplyAValidRun() throws {
        var rng = SplitMix64(seed: 0x5E71_0029)
        var accepted = 0
        for _ in 0..<40_000 {
            let request = Self.randomRequest(&rng)
            let plain = request.settingsProblem()
            let spelled = request.settingsProblem(optionPrefix: "--")
            #expect((plain == nil) == (spelled == nil))
            // Removing every `--` from the CLI's message gives the plain one (no message has `--` of its own).
            #expect(spelled?.replacingOccurrences(of: "--", with: "") == plain)
            guard plain == nil else { continue }
            accepted += 1
            for symbols in [1, 4] {
                let problem = request.configuration(symbolCount: symbols).validationProblem()
                #expect(problem == nil, "\(request): \(problem ?? "")")
            }
            _ = try request.makeStrategy()
        }
        // The pools give both kinds in numbers (a test that accepted nothing would prove nothing).
        #expect(accepted > 400 && accepted < 39_000, "\(accepted) accepted")
    }

    @Test("model settings apply to sentio only, named as the caller spells them")
    func modelSettingsApplyToSentioOnly() {
        #expect(BacktestRequest(strategy: .sentio).settingsProblem(modelSettings: ["horizon"]) == nil)
        #expect(BacktestRequest(strategy: .rsi).settingsProblem(optionPrefix: "--", modelSettings: ["horizon", "window"])
            == "--horizon, --window apply to --strategy sentio only (signal model parameters)")
        #expect(BacktestRequest(strategy: .dca).settingsProblem(modelSettings: ["horizon"])
            == "horizon applies to strategy sentio only (signal model parameters)")
    }

    @Test("ta-cross: the rule and --ta-set build the strategy; its spec names every parameter and rebuilds it; bad rules and settings are named")
    func taCross() throws {
        let request = BacktestRequest(
            strategy: .taCross, taCrossRule: "STOCH_SLOWK > stoch_slowd", taSettings: ["stoch.fastk_period=7", "STOCH.FASTK_PERIOD=9"])
        #expect(request.settingsProblem() == nil)
        let spec = request.strategySpec
        #expect(spec.description
            == "ta-cross ta-cross.rule=stoch_slowk>stoch_slowd ta-cross.parameters=fastk_period=9,slowk_period=3,slowk_matype=0,slowd_period=3,slowd_matype=0")
        let strategy = try #require(try request.makeStrategy() as? TACrossStrategy)
        #expect(strategy.function.values == [9, 3, 0, 3, 0] && strategy.line == 0 && strategy.reference == .output(1))
        #expect(StrategySpec(strategy) == spec)
        // The registry rebuilds the same strategy from the spec (what a live journal stores).
        let rebuilt = try #require(try StrategyRegistry.shared.make(spec) as? TACrossStrategy)
        #expect(StrategySpec(rebuilt) == spec)

        let level = try #require(try BacktestRequest(strategy: .taCross, taCrossRule: "cci>-100.5").makeStrategy() as? TACrossStrategy)
        #expect(level.reference == .level(-100.5) && level.rule == "cci>-100.5" && level.function.values == [14])
        #expect(try #require(try BacktestRequest(strategy: .taCross).makeStrategy() as? TACrossStrategy).rule == TACrossStrategy.defaultRule)

        func problem(_ rule: String?, _ settings: [String] = [], strategy: StrategyKind = .taCross) -> String? {
            BacktestRequest(strategy: strategy, taCrossRule: rule, taSettings: settings).settingsProblem(optionPrefix: "--")
        }
        #expect(problem("adx>macd_macd") == "--ta-cross: rule 'adx>macd_macd': macd_macd is not a column of ADX (its columns: adx)")
        #expect(problem("adx>25", ["macd.fastperiod=8"]) == "--ta-cross: macd.fastperiod=8 sets MACD, not the rule's function ADX")
        #expect(problem("adx>25", ["adx.timeperiod=1"]) == "--ta-cross: ADX.timeperiod must be from 2 to 100000, got 1.0")
        #expect(problem("adx>25", ["adx.timeperiod"]) == "--ta-set 'adx.timeperiod': expected FUNCTION.PARAMETER=VALUE, e.g. macd.fastperiod=8")
        #expect(problem("adx>adx") == "--ta-cross: rule 'adx>adx': the line cannot cross itself")
        #expect(problem("adx>inf") == "--ta-cross: rule 'adx>inf': the level must be a finite number")
        #expect(problem("adx") == "--ta-cross: rule 'adx': expected LINE>REFERENCE, a column crossing another column of the same function or a level, e.g. macd_macd>macd_macdsignal or adx>25")
        #expect(problem("volume>1")?.hasPrefix("--ta-cross: rule 'volume>1': 'volume' is not a TA-Lib column or a number") == true)
        #expect(problem(nil, ["macd.fastperiod=8"], strategy: .rsi) == "--ta-cross and --ta-set apply to --strategy ta-cross only")
        #expect(problem("adx>25", strategy: .sentio) == "--ta-cross and --ta-set apply to --strategy ta-cross only")
        // A journal's spec with parameters out of range is refused by the registry, naming the strategy.
        #expect(throws: BacktestError("strategy ta-cross: ADX.timeperiod must be from 2 to 100000, got 1.0")) {
            try StrategyRegistry.shared.make(StrategySpec(name: "ta-cross", settings: [("ta-cross.rule", "adx>25"), ("ta-cross.parameters", "timeperiod=1")]))
        }
    }
}
