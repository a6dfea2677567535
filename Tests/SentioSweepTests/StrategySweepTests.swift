import SentioBacktest
import SentioCore
@testable import SentioSweep
import Testing

/// A program's own strategy for the sweep: buy after `up` rising closes in a row, sell after `down` falling ones.
private struct Streak: Strategy, Codable {
    var up: Int, down: Int
    var last: [Double] = [], rising: [Int] = [], falling: [Int] = []
    var name: String { "streak" }
    var settings: [(key: String, value: String)] { [("streak.up", String(up)), ("streak.down", String(down))] }
    mutating func start(symbols: [String]) throws {
        last = Array(repeating: .nan, count: symbols.count)
        rising = Array(repeating: 0, count: symbols.count)
        falling = rising
    }
    mutating func observe(symbol s: Int, bar: Bar) {
        rising[s] = bar.close > last[s] ? rising[s] + 1 : 0
        falling[s] = bar.close < last[s] ? falling[s] + 1 : 0
        last[s] = bar.close
    }
    mutating func decide(_ context: DecisionContext) -> Decision {
        if !context.isInvested && rising[context.symbol] >= up { return .buy() }
        if context.isInvested && falling[context.symbol] >= down { return .sell }
        return .hold
    }
}

@Suite("A sweep of any registered strategy over its own settings")
struct StrategySweepTests {
    static func registry() throws -> StrategyRegistry {
        let registry = StrategyRegistry()
        try registry.register(StrategyDescriptor(name: "streak", summary: "streaks", settingKeys: ["streak.up", "streak.down"]) {
            let up = try $0.integer("streak.up"), down = try $0.integer("streak.down")
            guard up >= 1, down >= 1 else { throw BacktestError("streak lengths must be >= 1, got \(up) and \(down)") }
            return Streak(up: up, down: down)
        })
        return registry
    }

    @Test("a user's strategy: each row is the plain backtest of its combination, in grid order")
    func userStrategyRowsArePlainBacktests() throws {
        let registry = try Self.registry()
        let market = try randomMarket(symbols: 3, bars: 260, seed: 77)
        let configuration = BacktestConfiguration(sizing: .equalWeight(maxPositions: 3))
        let grid = try SweepGrid.parse("streak.up=1:3:1;streak.down=1,2")
        let rows = try SweepRunner(threads: 2).run(
            strategy: StrategySpec(Streak(up: 1, down: 1)), grid: grid, configuration: configuration, on: market, registry: registry)
        #expect(rows.map(\.index) == Array(0..<6))
        var trades = 0
        for row in rows {
            let strategy = Streak(up: Int(row.parameters["streak.up"]!)!, down: Int(row.parameters["streak.down"]!)!)
            let result = try Backtest(configuration).run(strategy, on: market)
            trades += result.trades.count
            #expect(try SweepStatistics(result, benchmark: .none) == row.statistics, "combination \(row.index)")
        }
        #expect(trades > 0)
    }

    @Test("a built-in strategy by its spec gives the rows of the option-name sweep")
    func builtInSpecEqualsTheRequestSweep() throws {
        let market = try randomMarket(symbols: 2, bars: 240, seed: 78)
        let request = BacktestRequest(strategy: .rsi)
        let configuration = request.configuration(symbolCount: 2)
        let bySpec = try SweepRunner(threads: 2).run(
            strategy: request.strategySpec, grid: try SweepGrid.parse("rsi.period=5,9;rsi.lower=25.0,35.0"),
            configuration: configuration, on: market)
        let jobs = try SweepRequestBuilder(base: request, grid: try SweepGrid.parse("rsi-period=5,9;rsi-lower=25,35")).jobs(shard: nil)
        let byOptions = try SweepRunner(threads: 2).run(jobs, on: market)
        #expect(bySpec.map(\.statistics) == byOptions.map(\.statistics))
    }

    @Test("bad grids and refused combinations are named errors")
    func errors() throws {
        let registry = try Self.registry()
        let market = try randomMarket(symbols: 1, bars: 50, seed: 79)
        let base = StrategySpec(Streak(up: 1, down: 1))
        #expect(throws: BacktestError("streak.sideways is not a setting of strategy streak; its settings: streak.up, streak.down")) {
            try SweepRunner(threads: 1).run(strategy: base, grid: try SweepGrid.parse("streak.sideways=1,2"),
                                            configuration: BacktestConfiguration(), on: market, registry: registry)
        }
        let error = #expect(throws: SweepCombinationError.self) {
            try SweepRunner(threads: 1).run(strategy: base, grid: try SweepGrid.parse("streak.up=1,0"),
                                            configuration: BacktestConfiguration(), on: market, registry: registry)
        }
        #expect(error?.description == "combination 1 (streak.up=0): streak lengths must be >= 1, got 0 and 1")
    }
}
