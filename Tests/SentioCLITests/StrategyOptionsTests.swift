import ArgumentParser
import Sentio
import SentioLive
import SentioTestSupport
import Testing

@testable import SentioCLI

/// `StrategyOptions` is the one definition of the strategy/capital/cost/sizing/fill options of `sentio backtest`
/// and `sentio live`: the same arguments must give both commands the same request, the same errors, and a live
/// session that runs the backtest's configuration.
@Suite("strategy options shared by backtest and live")
struct StrategyOptionsTests {
    /// A random option set: each option present or not, its value usually valid, sometimes out of range or in
    /// conflict with another option (so the validation paths are exercised too).
    static func randomArguments(_ rng: inout SplitMix64) -> [String] {
        func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
        func maybe(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
        var args: [String] = []
        let strategy = pick(["sentio", "rsi", "buy-and-hold", "dca", "ta-cross"])
        if strategy != "sentio" || maybe(50) { args += ["--strategy", strategy] }
        let wrong = 8 as UInt64  // percent of options given a value outside its range
        if maybe(20) { args += ["--capital", maybe(wrong) ? pick(["0", "-5", "inf"]) : pick(["1000", "25000.5", "1e6"])] }
        if maybe(40) { args += ["--commission", maybe(wrong) ? pick(["1", "-0.1"]) : pick(["0", "0.0005", "0.002"])] }
        if maybe(30) { args += ["--fee", maybe(wrong) ? "-1" : pick(["0", "1", "4.95"])] }
        if maybe(30) { args += ["--slippage-bps", maybe(wrong) ? pick(["10000", "-2"]) : pick(["0", "2.5", "10"])] }
        if maybe(40) { args += ["--fill", pick(["next-open", "close"])] }
        let sizing = maybe(50) ? pick(["all-in", "equal-weight", "fraction"]) : nil
        if let sizing { args += ["--sizing", sizing] }
        if maybe(sizing == "equal-weight" ? 60 : 10) { args += ["--max-positions", maybe(wrong) ? "0" : pick(["1", "2", "5"])] }
        if maybe(sizing == "fraction" ? 90 : 5) { args += ["--fraction", maybe(wrong) ? pick(["0", "1.5"]) : pick(["0.1", "0.25", "1"])] }
        if maybe(40) { args.append("--fractional") }
        if maybe(strategy == "dca" ? 5 : 30) { args += ["--stop-loss", maybe(wrong) ? pick(["0", "100"]) : pick(["2", "5", "12.5"])] }
        if maybe(strategy == "dca" ? 5 : 30) { args += ["--take-profit", maybe(wrong) ? "-3" : pick(["4", "10", "150"])] }
        let rsi = strategy == "rsi" ? 60 as UInt64 : 4
        if maybe(rsi) { args += ["--rsi-period", maybe(wrong) ? "0" : pick(["2", "14", "21"])] }
        if maybe(rsi) { args += ["--rsi-lower", pick(["10", "30", "45", "80"])] }
        if maybe(rsi) { args += ["--rsi-upper", pick(["20", "55", "70", "90", "101"])] }
        let dca = strategy == "dca" ? 60 as UInt64 : 4
        if maybe(dca) { args += ["--amount", maybe(wrong) ? "0" : pick(["50", "1000", "2500.75"])] }
        if maybe(dca) { args += ["--every", pick(["week", "month"])] }
        let ta = strategy == "ta-cross" ? 60 as UInt64 : 4
        if maybe(ta) { args += ["--ta-cross", maybe(wrong) ? pick(["adx>macd_macd", "adx"]) : pick(["adx>25", "stoch_slowk>stoch_slowd", "macd_macdhist>0"])] }
        if maybe(ta) { args += ["--ta-set", maybe(wrong) ? "macd.fastperiod=1" : pick(["macd.fastperiod=8", "macd.signalperiod=5"])] }
        // Signal model parameters: usually with sentio, rarely with another strategy (then an error).
        let model = strategy == "sentio" ? 40 as UInt64 : 3
        if maybe(model) { args += ["--horizon", maybe(wrong) ? "0" : pick(["1", "3", "10"])] }
        if maybe(model) { args += ["--window", maybe(wrong) ? "5" : pick(["12", "60", "250"])] }
        if maybe(model) { args += ["--buy-threshold", pick(["0", "0.5", "2"])] }
        if maybe(model) { args += ["--min-confidence", maybe(wrong) ? "1.5" : pick(["0", "0.4"])] }
        // Options in any order.
        var pairs: [[String]] = []
        var k = 0
        while k < args.count {
            if args[k] == "--fractional" { pairs.append([args[k]]); k += 1 } else { pairs.append([args[k], args[k + 1]]); k += 2 }
        }
        for i in stride(from: pairs.count - 1, to: 0, by: -1) { pairs.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        return pairs.flatMap { $0 }
    }

    enum Parsed<C> {
        case success(C)
        case failure(String)
    }

    /// The parse result or the message a user would see.
    static func parse<C: ParsableArguments>(_ type: C.Type, _ args: [String]) -> Parsed<C> {
        do { return .success(try C.parse(args)) } catch { return .failure(C.message(for: error)) }
    }

    /// The parity the live tests rely on, checked against the documented defaults as well.
    static func checkParity(_ o: StrategyOptions, symbolCount: Int, _ args: [String]) throws {
        let request = try o.request
        let configuration = LiveConfiguration(request: request, symbolCount: symbolCount)
        #expect(configuration.backtest == request.configuration(symbolCount: symbolCount), "\(args)")
        // The model: the defaults with the flags given (independently of SignalModelOptions.resolve).
        var expectedModel = SignalModelConfig()
        func value(_ flag: String) -> String? { args.firstIndex(of: flag).map { args[$0 + 1] } }
        if o.strategy == .sentio {
            if let v = value("--horizon") { expectedModel.horizon = Int(v)! }
            if let v = value("--window") { expectedModel.regressionWindow = Int(v)! }
            if let v = value("--buy-threshold") { expectedModel.buyScoreThreshold = Double(v)! }
            if let v = value("--min-confidence") { expectedModel.minimumConfidence = Double(v)! }
            if let v = value("--rsi-period") { expectedModel.rsiPeriod = Int(v)! }
        }
        #expect(configuration.signalModel == expectedModel, "\(args)")
        #expect(request.signalModel == (o.strategy == .sentio ? expectedModel : nil), "\(args)")
        // The documented defaults, independently of the resolver.
        #expect(configuration.backtest.initialCapital == (o.strategy == .dca ? 0 : o.capital ?? 100_000), "\(args)")
        #expect(configuration.backtest.costs == TradingCosts(commissionRate: o.commission, feePerOrder: o.fee, slippageBasisPoints: o.slippageBps))
        #expect(configuration.backtest.fill == o.fill && configuration.backtest.fractionalShares == o.fractional)
        #expect(configuration.backtest.stopLossPercent == o.stopLoss && configuration.backtest.takeProfitPercent == o.takeProfit)
        let expectedSizing: PositionSizing
        switch o.sizing {
        case .allIn?: expectedSizing = .allIn
        case .fraction?: expectedSizing = .fractionOfEquity(o.fraction!)
        case .equalWeight?: expectedSizing = .equalWeight(maxPositions: o.maxPositions ?? symbolCount)
        case nil: expectedSizing = symbolCount > 1 || o.maxPositions != nil ? .equalWeight(maxPositions: o.maxPositions ?? symbolCount) : .allIn
        }
        #expect(configuration.backtest.sizing == expectedSizing, "\(args)")
        let expectedStrategy: StrategySpec
        switch o.strategy {
        case .sentio: expectedStrategy = .sentio
        case .buyAndHold: expectedStrategy = .buyAndHold
        case .rsi: expectedStrategy = .rsi(period: o.rsiPeriod ?? 14, lower: o.rsiLower ?? 30, upper: o.rsiUpper ?? 70)
        case .dca:
            expectedStrategy = .dca(amount: o.amount ?? 1_000, every: o.every.map { ContributionPeriod(rawValue: $0.rawValue)! } ?? .month, symbols: nil)
        case .rebalance:
            expectedStrategy = StrategySpec(name: "rebalance", settings: [
                ("rebalance.weights", RebalanceStrategy.format(try RebalanceStrategy.parseWeights(o.weights!))),
                ("rebalance.every", o.drift.map { "drift:\($0)" } ?? (o.every ?? .month).rawValue),
            ])
        case .taCross:
            // The documented default rule; settings as given (the generator gives at most one).
            let settings = try value("--ta-set").map { [try TAParameterSetting(parsing: $0)] } ?? []
            expectedStrategy = try .taCross(rule: value("--ta-cross") ?? "macd_macd>macd_macdsignal", settings: settings)
        }
        #expect(configuration.strategy == expectedStrategy, "\(args)")
        try configuration.validate()
    }

    @Test("seeded option sets: live's session configuration is the backtest's resolved configuration (200 cases)")
    func liveConfigurationIsTheBacktestConfiguration() throws {
        var rng = SplitMix64(seed: 0x5EED_0012)
        var accepted = 0, rejected = 0
        for _ in 0..<200 {
            let args = Self.randomArguments(&rng)
            let symbolCount = 1 + Int(rng.next() % 6)
            // An out-of-range model parameter is found when the model is resolved (as the commands' run() does).
            guard case .success(let options) = Self.parse(StrategyOptions.self, args), (try? options.request) != nil else {
                rejected += 1
                continue
            }
            accepted += 1
            try Self.checkParity(options, symbolCount: symbolCount, args)
        }
        // Both kinds of case occur (the generator is not degenerate).
        #expect(accepted > 50 && rejected > 20, "accepted \(accepted), rejected \(rejected)")
    }

    @Test("seeded option sets: backtest and live parse them alike (same request or same message; 40 cases)")
    func bothCommandsAgree() throws {
        // Fewer cases: parsing a whole command is slow in debug builds (ArgumentParser checks the command tree).
        var rng = SplitMix64(seed: 0x5EED_0013)
        for _ in 0..<40 {
            let args = Self.randomArguments(&rng)
            let symbolCount = 1 + Int(rng.next() % 6)
            let backtest = Self.parse(BacktestCommand.self, args)
            let live = Self.parse(LiveRunCommand.self, ["--db", "unused.sqlite"] + args)
            switch (backtest, live) {
            case let (.failure(a), .failure(b)):
                #expect(a == b, "\(args)")
            case let (.success(b), .success(l)):
                guard let backtestRequest = try? b.request else {
                    #expect((try? l.options.request) == nil, "\(args)")
                    continue
                }
                #expect(backtestRequest == (try l.options.request), "\(args)")
                #expect(LiveConfiguration(request: try l.options.request, symbolCount: symbolCount).backtest
                    == backtestRequest.configuration(symbolCount: symbolCount), "\(args)")
                try Self.checkParity(l.options, symbolCount: symbolCount, args)
            default:
                Issue.record("backtest and live disagree on \(args): backtest \(backtest), live \(live)")
            }
        }
    }

    @Test("the same invalid options give both commands the same message")
    func sameErrors() {
        let cases: [([String], String)] = [
            (["--sizing", "fraction"], "--sizing fraction needs --fraction F"),
            (["--strategy", "dca", "--capital", "5"], "--capital conflicts with --strategy dca"),
            (["--rsi-lower", "5"], "--rsi-lower and --rsi-upper apply to --strategy rsi only"),
            (["--strategy", "buy-and-hold", "--rsi-period", "5"], "--rsi-period applies to --strategy rsi and sentio only"),
            (["--strategy", "rsi", "--horizon", "3", "--window", "60"], "--horizon, --window apply to --strategy sentio only"),
            (["--strategy", "dca", "--config", "m.json"], "--config applies to --strategy sentio only"),
            (["--strategy", "rsi", "--rsi-lower", "80"], "--rsi-lower must be below --rsi-upper, both in [0, 100]; got 80.0 and 70.0"),
        ]
        for (args, message) in cases {
            guard case .failure(let a) = Self.parse(BacktestCommand.self, args),
                  case .failure(let b) = Self.parse(LiveRunCommand.self, args) else {
                Issue.record("\(args) was accepted")
                continue
            }
            #expect(a == b)
            #expect(a.contains(message), "\(a)")
        }
    }
}
