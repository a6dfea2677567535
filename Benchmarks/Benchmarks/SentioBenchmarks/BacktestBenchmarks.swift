import Benchmark
import Sentio

// Portfolio simulation throughput in bar-cells per second (symbols x bars): the RSI strategy (RSI 14, 30/70)
// over 12 symbols of minute bars held in memory, with `sentio backtest --strategy rsi`'s defaults for 12 symbols
// (equal weight, commission 0.1 %, next-open fills, whole shares): indicators + decisions + simulation +
// statistics. The market is built in setup.

let backtestBarsPerSymbol = 250_000

let backtestMarket: Market = {
    let series = try! MarketGenerator(config: MarketConfig(bars: backtestBarsPerSymbol, frequency: .minute, seed: 42)).generate()
    return try! Market(series)
}()

func registerBacktestBenchmarks() {
    let configuration = BacktestConfiguration(
        costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 12))
    bench("Backtest rsi strategy, 12 x \(backtestBarsPerSymbol) minute bars (3M bar-cells)",
          prepare: { _ = backtestMarket.series.count }) { benchmark in
        for _ in benchmark.scaledIterations {
            let result = try Backtest(configuration).run(RSIStrategy(), on: backtestMarket)
            blackHole(BacktestStatistics(result, moneyWeightedReturn: nil).finalEquity)
        }
    }
}
