import SentioCore
import SentioIndicators
import SentioSignals
import SentioTestSupport
import Testing

@testable import SentioBacktest

/// A user's strategy written against the protocol's streaming form only: a moving-average crossover on running
/// sums (buy when the fast average crosses above the slow one, sell when it crosses back). Codable, so live
/// snapshots save it without more code.
struct MovingAverageCross: Strategy, Codable {
    var fast: Int, slow: Int
    var closes: [[Double]] = []
    var fastSum: [Double] = [], slowSum: [Double] = []
    var previousAbove: [Bool?] = [], above: [Bool?] = []

    init(fast: Int, slow: Int) {
        self.fast = fast
        self.slow = slow
    }

    var name: String { "ma-cross" }
    var settings: [(key: String, value: String)] { [("ma-cross.fast", String(fast)), ("ma-cross.slow", String(slow))] }

    mutating func start(symbols: [String]) throws {
        let n = symbols.count
        closes = Array(repeating: [], count: n)
        fastSum = Array(repeating: 0, count: n)
        slowSum = Array(repeating: 0, count: n)
        previousAbove = Array(repeating: nil, count: n)
        above = Array(repeating: nil, count: n)
    }

    mutating func observe(symbol s: Int, bar: Bar) {
        closes[s].append(bar.close)
        let k = closes[s].count
        fastSum[s] += bar.close - (k > fast ? closes[s][k - 1 - fast] : 0)
        slowSum[s] += bar.close - (k > slow ? closes[s][k - 1 - slow] : 0)
        previousAbove[s] = above[s]
        above[s] = k >= slow ? fastSum[s] / Double(fast) > slowSum[s] / Double(slow) : nil
    }

    mutating func decide(_ context: DecisionContext) -> Decision {
        guard let now = above[context.symbol], let before = previousAbove[context.symbol] else { return .hold }
        if now && !before && !context.isInvested { return .buy() }
        if !now && before && context.isInvested { return .sell }
        return .hold
    }
}

/// The same rule without Codable: its live sessions take no snapshot.
struct UnsavedCross: Strategy {
    var inner = MovingAverageCross(fast: 3, slow: 8)
    var name: String { "unsaved-cross" }
    mutating func start(symbols: [String]) throws { try inner.start(symbols: symbols) }
    mutating func observe(symbol: Int, bar: Bar) { inner.observe(symbol: symbol, bar: bar) }
    mutating func decide(_ context: DecisionContext) -> Decision { inner.decide(context) }
}

/// Any strategy forced into its streaming form inside a backtest (the protocol's default `prepare`).
struct Streamed<Inner: Strategy>: Strategy {
    var inner: Inner
    var name: String { inner.name }
    mutating func start(symbols: [String]) throws { try inner.start(symbols: symbols) }
    mutating func observe(symbol: Int, bar: Bar) { inner.observe(symbol: symbol, bar: bar) }
    mutating func decide(_ context: DecisionContext) -> Decision { inner.decide(context) }
}

/// The live engine fed `market`'s bars step by step, each step's bars in a random order.
func stepped(_ simulation: SteppedSimulation, _ market: Market, through lastStep: Int? = nil, from firstStep: Int = 0,
             _ rng: inout SplitMix64) throws {
    let index = Dictionary(uniqueKeysWithValues: simulation.symbols.enumerated().map { ($1, $0) })
    for step in firstStep...(lastStep ?? market.timeline.count - 1) {
        let time = market.timeline[step]
        var arriving: [(Int, Bar)] = []
        for series in market.series {
            if let i = series.timestamps.firstIndex(of: time) { arriving.append((index[series.symbol]!, series[bar: i])) }
        }
        for (s, bar) in arriving.shuffled(using: &rng) { try? simulation.add(symbol: s, bar: bar) }
        simulation.completeStep(time: time)
    }
}

@Suite("One Strategy protocol: batch and streaming forms, the registry, a user's strategy in backtest and live")
struct StrategyProtocolTests {
    static let configurations: [BacktestConfiguration] = [
        BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001, feePerOrder: 1), sizing: .equalWeight(maxPositions: 3)),
        BacktestConfiguration(sizing: .allIn, fractionalShares: true, stopLossPercent: 3, takeProfitPercent: 4),
        BacktestConfiguration(fill: .close, sizing: .fractionOfEquity(0.3)),
    ]

    @Test("a user's streaming-only strategy: the backtest equals the live engine, bit for bit (24 random markets with gaps)")
    func userStrategyBacktestEqualsLive() throws {
        var rng = SplitMix64(seed: 0x29_5001)
        var trades = 0
        for k in 0..<24 {
            let configuration = Self.configurations[k % 3]
            let market = try randomMarket(symbols: 1 + k % 5, bars: 250, seed: 5_000 + UInt64(k), dropProbability: 0.1)
            let strategy = MovingAverageCross(fast: 2 + k % 4, slow: 8 + k % 7)
            let backtest = try Backtest(configuration).run(strategy, on: market)
            let live = try SteppedSimulation(configuration: configuration, running: strategy, symbols: market.symbols.shuffled(using: &rng))
            try stepped(live, market, &rng)
            #expect(UniverseOrderPropertyTests.canonical(live.result()) == UniverseOrderPropertyTests.canonical(backtest), "market \(k)")
            trades += backtest.trades.count
        }
        #expect(trades > 50)
    }

    @Test("the built-in strategies' batch forms equal their streaming forms inside a backtest (random markets)")
    func batchEqualsStreaming() throws {
        let macd = try TAFunction("MACD")
        let adx = try TAFunction("ADX")
        for k in 0..<12 {
            let configuration = Self.configurations[k % 3]
            let market = try randomMarket(symbols: 1 + k % 4, bars: 300, seed: 6_000 + UInt64(k), dropProbability: 0.1)
            func check(_ strategy: some Strategy) throws {
                let batch = try Backtest(configuration).run(strategy, on: market)
                let streamed = try Backtest(configuration).run(Streamed(inner: strategy), on: market)
                #expect(UniverseOrderPropertyTests.canonical(streamed) == UniverseOrderPropertyTests.canonical(batch),
                        "\(strategy.name), market \(k)")
            }
            try check(RSIStrategy(period: 3 + k % 9, lower: 35, upper: 65))
            try check(try SignalStrategy.sentio())
            try check(BuyAndHoldStrategy())
            try check(DollarCostAveragingStrategy(amount: 500, every: k % 2 == 0 ? .week : .month))
            try check(TACrossStrategy(function: macd, line: 0, reference: .output(1)))
            try check(TACrossStrategy(function: adx, reference: .level(20)))
        }
    }

    @Test("a Codable user strategy is saved in the simulation state and restored from the registry: identical continuation")
    func userStrategySnapshot() throws {
        let registry = StrategyRegistry()
        try registry.register(StrategyDescriptor(name: "ma-cross", summary: "MA cross", settingKeys: ["ma-cross.fast", "ma-cross.slow"]) {
            MovingAverageCross(fast: try $0.integer("ma-cross.fast"), slow: try $0.integer("ma-cross.slow"))
        })
        var rng = SplitMix64(seed: 0x29_5002)
        for k in 0..<10 {
            let configuration = Self.configurations[k % 3]
            let market = try randomMarket(symbols: 3, bars: 200, seed: 7_000 + UInt64(k), dropProbability: 0.1)
            let spec = StrategySpec(MovingAverageCross(fast: 3, slow: 9 + k))
            let whole = try SteppedSimulation(configuration: configuration, strategy: spec, symbols: market.symbols, registry: registry)
            #expect(whole.canSaveState)
            var arrival = rng
            try stepped(whole, market, &arrival)
            let cut = Int(rng.next() % UInt64(market.timeline.count - 2))
            let first = try SteppedSimulation(configuration: configuration, strategy: spec, symbols: market.symbols, registry: registry)
            arrival = rng
            try stepped(first, market, through: cut, &arrival)
            let restored = try SteppedSimulation(
                configuration: configuration, strategy: spec, symbols: market.symbols, registry: registry, state: first.state())
            try stepped(restored, market, from: cut + 1, &arrival)
            #expect(UniverseOrderPropertyTests.canonical(restored.result()) == UniverseOrderPropertyTests.canonical(whole.result()),
                    "market \(k), cut after step \(cut)")
            #expect(StrategySpec(try registry.make(spec)) == spec)
        }
        // Not registered in the shared registry: a named error, not a crash.
        #expect(throws: BacktestError.self) {
            try SteppedSimulation(configuration: BacktestConfiguration(), strategy: StrategySpec(name: "ma-cross"), symbols: ["A"])
        }
    }

    @Test("a strategy that saves no state: the simulation says it cannot be snapshotted")
    func unsavedStrategy() throws {
        let simulation = try SteppedSimulation(configuration: BacktestConfiguration(), running: UnsavedCross(), symbols: ["A", "B"])
        #expect(!simulation.canSaveState)
        for spec in [StrategySpec.sentio, .buyAndHold, .rsi(period: 5, lower: 30, upper: 70), .dca(amount: 10, every: .week)] {
            let builtIn = try SteppedSimulation(configuration: BacktestConfiguration(), strategy: spec, symbols: ["A", "B"])
            #expect(builtIn.canSaveState, "\(spec)")
        }
    }

    @Test("the registry: built-in names are the request's strategy kinds; specs round-trip; bad specs are named errors")
    func registry() throws {
        let registry = StrategyRegistry()
        #expect(Array(registry.names.prefix(StrategyKind.allCases.count)) == StrategyKind.allCases.map(\.rawValue))
        var rng = SplitMix64(seed: 0x29_5003)
        for _ in 0..<200 {
            let lower = Double(rng.next() % 5000) / 100, upper = lower + 0.5 + Double(rng.next() % 5000) / 100
            let symbols: [String]? = rng.next() % 2 == 0 ? nil : ["A", "B"].filter { _ in rng.next() % 2 == 0 }
            for spec in [StrategySpec.rsi(period: 1 + Int(rng.next() % 50), lower: lower, upper: upper),
                         .dca(amount: 0.01 + Double(rng.next() % 100_000) / 7, every: rng.next() % 2 == 0 ? .week : .month,
                              symbols: symbols?.isEmpty == true ? nil : symbols),
                         .buyAndHold, .sentio,
                         rng.next() % 2 == 0
                             ? try .taCross(rule: "adx>\(rng.next() % 100)", settings: [TAParameterSetting(function: "adx", parameter: "timeperiod", value: Double(2 + rng.next() % 40))])
                             : try .taCross(rule: "stoch_slowk>stoch_slowd", settings: [TAParameterSetting(function: "stoch", parameter: "fastk_period", value: Double(1 + rng.next() % 20))])] {
                #expect(StrategySpec(try registry.make(spec)) == spec, "\(spec)")
            }
        }
        // rebalance has no default weights: the request names them.
        for request in StrategyKind.allCases.map({ BacktestRequest(strategy: $0, rebalanceWeights: $0 == .rebalance ? "A=1" : nil) }) {
            #expect(try request.makeStrategy(registry: registry).name == request.strategy.rawValue)
        }
        #expect(throws: BacktestError("RSI period must be >= 1, got 0")) { try registry.make(.rsi(period: 0, lower: 30, upper: 70)) }
        #expect(throws: BacktestError("RSI lower threshold must be below the upper one, got 70.0 and 30.0")) {
            try registry.make(.rsi(period: 14, lower: 70, upper: 30))
        }
        #expect(throws: BacktestError("DCA amount must be positive, got -1.0")) { try registry.make(.dca(amount: -1, every: .month)) }
        #expect(throws: BacktestError("strategy rsi: missing setting rsi.upper")) {
            try registry.make(StrategySpec(name: "rsi", settings: [("rsi.period", "3"), ("rsi.lower", "2")]))
        }
        #expect(throws: BacktestError("unknown strategy macd; registered: sentio, rsi, buy-and-hold, dca, ta-cross, rebalance")) {
            try registry.make(StrategySpec(name: "macd"))
        }
        #expect(throws: BacktestError("a strategy named rsi is already registered")) {
            try registry.register(StrategyDescriptor(name: "rsi", summary: "again") { _ in BuyAndHoldStrategy() })
        }
    }
}
