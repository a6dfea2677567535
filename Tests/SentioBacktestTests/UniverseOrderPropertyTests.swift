import SentioCore
import SentioTestSupport
import Testing

@testable import SentioBacktest

/// A universe is a set (issue 28): the same symbols listed in any order give the same bits, in the backtest and in
/// the live engine (`SteppedSimulation`), whatever the order in which a step's bars arrive.
@Suite("Universe order: results do not depend on the order symbols are listed")
struct UniverseOrderPropertyTests {
    /// Everything a result says, with symbol numbers replaced by names and every double by its bits.
    static func canonical(_ r: BacktestResult) -> [String] {
        var lines = ["final \(r.finalEquity.bitPattern) cash \(r.finalCash.bitPattern) commissions \(r.commissionsPaid.bitPattern)"]
        lines += r.equity.indices.map { "step \($0): \(r.equity[$0].bitPattern) \(r.cash[$0].bitPattern) \(r.contributions[$0].bitPattern) \(r.exposed[$0])" }
        lines += r.orders.map {
            "order \($0.id) \(r.symbols[$0.symbol]) \($0.side) \($0.reason) \($0.decidedStep)-\($0.resolvedStep) \(String(describing: $0.rejection)) \($0.fillPrice.bitPattern) \($0.shares.bitPattern) \($0.commission.bitPattern)"
        }
        lines += r.trades.map {
            "trade \($0.symbol) \($0.entryStep)-\($0.exitStep) \($0.entryPrice.bitPattern) \($0.exitPrice.bitPattern) \($0.shares.bitPattern) \($0.pnl.bitPattern) \($0.exitReason)"
        }
        lines += r.openPositions.map { "open \($0.symbol) \($0.shares.bitPattern) \($0.entryPrice.bitPattern)" }
        return lines
    }

    static let configurations: [BacktestConfiguration] = [
        // Equal weight with fewer slots than symbols: which entries fill depends on the order they are handled in.
        BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001, feePerOrder: 1), sizing: .equalWeight(maxPositions: 3)),
        BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .allIn, fractionalShares: true, stopLossPercent: 3, takeProfitPercent: 4),
        BacktestConfiguration(fill: .close, sizing: .fractionOfEquity(0.3)),
    ]

    @Test("backtest: 8 symbols in 40 random orders, three sizing rules, the RSI strategy: identical bits")
    func backtestPermutations() throws {
        var rng = SplitMix64(seed: 0x28_0001)
        for (c, configuration) in Self.configurations.enumerated() {
            let market = try randomMarket(symbols: 8, bars: 300, seed: 900 + UInt64(c), dropProbability: 0.15)
            let strategy = RSIStrategy(period: 5, lower: 40, upper: 60)
            let reference = Self.canonical(try Backtest(configuration).run(strategy, on: market))
            #expect(reference.count > 300)
            var ordersSeen = 0
            for _ in 0..<40 {
                let permuted = try Market(market.series.shuffled(using: &rng))
                let result = try Backtest(configuration).run(strategy, on: permuted)
                ordersSeen += result.orders.count
                #expect(Self.canonical(result) == reference, "configuration \(c), order \(permuted.symbols)")
            }
            #expect(ordersSeen > 0)
        }
    }

    @Test("live engine: permuted universes and random arrival orders equal the backtest")
    func steppedPermutations() throws {
        var rng = SplitMix64(seed: 0x28_0002)
        for (c, configuration) in Self.configurations.enumerated() {
            let market = try randomMarket(symbols: 6, bars: 200, seed: 700 + UInt64(c), dropProbability: 0.1)
            let reference = Self.canonical(try Backtest(configuration).run(RSIStrategy(period: 5, lower: 40, upper: 60), on: market))
            for _ in 0..<10 {
                let universe = market.symbols.shuffled(using: &rng)
                let simulation = try SteppedSimulation(
                    configuration: configuration, strategy: .rsi(period: 5, lower: 40, upper: 60), symbols: universe)
                var cursors = [Int](repeating: 0, count: market.series.count)
                for time in market.timeline {
                    var arriving: [(Int, Bar)] = []
                    for (k, series) in market.series.enumerated() where cursors[k] < series.count && series.timestamps[cursors[k]] == time {
                        arriving.append((universe.firstIndex(of: series.symbol)!, series[bar: cursors[k]]))
                        cursors[k] += 1
                    }
                    for (s, bar) in arriving.shuffled(using: &rng) { try simulation.add(symbol: s, bar: bar) }
                    simulation.completeStep(time: time)
                }
                #expect(Self.canonical(simulation.result()) == reference, "configuration \(c), universe \(universe)")
            }
        }
    }
}
