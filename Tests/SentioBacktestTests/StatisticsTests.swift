import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

@Suite("Statistics")
struct StatisticsTests {
    @Test("GOOG RSI run: statistics equal backtesting.py where definitions match, numpy-empyrical elsewhere")
    func googAgainstReferences() throws {
        let (goog, rsi) = try loadGOOG()
        let result = try Backtest(ReferenceTests.configuration)
            .run(RSIStrategy(rsi: fixtureRSIProvider(rsi)), on: Market([goog]))
        let stats = BacktestStatistics(result, moneyWeightedReturn: referenceXIRR)
        let ref = try loadNumericCSV("backtest/goog_rsi_summary.csv").mapValues { $0[0] }
        #expect(stats.conventions.periodsPerYear == 252)
        // Same definitions as backtesting.py 0.6.6.
        expectClose(stats.totalReturnPercent, ref["returnPercent"]!, relative: 1e-9)
        expectClose(stats.maxDrawdownPercent, ref["maxDrawdownPercent"]!, relative: 1e-9)
        #expect(stats.maxDrawdownDurationDays == ref["maxDrawdownDurationDays"]!)
        expectClose(stats.exposurePercent, ref["exposurePercent"]!, relative: 1e-12)
        #expect(Double(stats.tradeCount) == ref["tradeCount"]!)
        expectClose(stats.winRatePercent ?? .nan, ref["winRatePercent"]!, relative: 1e-12)
        expectClose(stats.bestTradePercent ?? .nan, ref["bestTradePercent"]!, relative: 1e-9)
        expectClose(stats.worstTradePercent ?? .nan, ref["worstTradePercent"]!, relative: 1e-9)
        expectClose(stats.sqn ?? .nan, ref["sqn"]!, relative: 1e-9)
        expectClose(stats.commissionsPaid, ref["commissions"]!, relative: 1e-9)
        // empyrical's definitions, computed by numpy in the generator on backtesting.py's equity curve.
        expectClose(stats.cagrPercent ?? .nan, ref["cagrPercentEmpyrical"]!, relative: 1e-9)
        expectClose(stats.annualizedVolatilityPercent ?? .nan, ref["annualizedVolatilityPercentEmpyrical"]!, relative: 1e-9)
        expectClose(stats.sharpeRatio ?? .nan, ref["sharpeEmpyrical"]!, relative: 1e-9)
        expectClose(stats.sortinoRatio ?? .nan, ref["sortinoEmpyrical"]!, relative: 1e-9)
        expectClose(stats.calmarRatio ?? .nan, ref["calmarEmpyrical"]!, relative: 1e-9)
        // backtesting.py's Sharpe is a different quantity (geometric annual return / its own volatility).
        #expect(abs((stats.sharpeRatio ?? 0) - ref["sharpeBacktestingPy"]!) > 0.05)
    }

    /// Straightforward reimplementations over the equity curve, written independently of the module.
    struct Naive {
        var returns: [Double] = []
        init(equity: [Double], deposits: [Double]) {
            for t in 1..<equity.count where equity[t - 1] > 0 {
                returns.append((equity[t] - deposits[t]) / equity[t - 1] - 1)
            }
        }
        var mean: Double { returns.reduce(0, +) / Double(returns.count) }
        var std: Double {
            // one-pass textbook formula, different from the module's two-pass one
            let n = Double(returns.count)
            let s = returns.reduce(0, +), ss = returns.reduce(0) { $0 + $1 * $1 }
            return ((ss - s * s / n) / (n - 1)).squareRoot()
        }
        func wealth() -> [Double] { [1] + returns.reduce(into: [Double]()) { w, r in w.append((w.last ?? 1) * (1 + r)) } }
    }

    @Test("each formula against a naive loop on random runs", arguments: [UInt64(1), 2, 3])
    func formulasAgainstLoops(seed: UInt64) throws {
        let market = try randomMarket(symbols: 3, bars: 400, seed: seed, dropProbability: 0)
        var rng = SplitMix64(seed: seed &* 7919)
        var script = [Int: [Int: Decision]]()
        for s in 0..<3 {
            for b in 0..<400 where Double.random(in: 0..<1, using: &rng) < 0.05 {
                script[s, default: [:]][b] = Bool.random(using: &rng) ? .buy() : .sell
            }
        }
        let config = BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 3))
        let r = try Backtest(config).run(ScriptedStrategy(script: script), on: market)
        let st = BacktestStatistics(r, moneyWeightedReturn: referenceXIRR)
        #expect(r.trades.count > 5)
        let naive = Naive(equity: r.equity, deposits: r.contributions)
        let P = 252.0
        let years = Double(naive.returns.count) / P
        expectClose(st.cagrPercent!, (pow(r.finalEquity / r.equity[0], 1 / years) - 1) * 100, relative: 1e-9)
        expectClose(st.annualizedVolatilityPercent!, naive.std * sqrt(P) * 100, relative: 1e-8)
        expectClose(st.sharpeRatio!, naive.mean / naive.std * sqrt(P), relative: 1e-8)
        let downside = sqrt(naive.returns.map { min($0, 0) * min($0, 0) }.reduce(0, +) / Double(naive.returns.count))
        expectClose(st.sortinoRatio!, naive.mean / downside * sqrt(P), relative: 1e-9)
        // Drawdown by brute force: O(n²) running maximum.
        let w = naive.wealth()
        var depth = 0.0
        for t in 0..<w.count { depth = min(depth, w[t] / w[0...t].max()! - 1) }
        expectClose(st.maxDrawdownPercent, depth * 100, relative: 1e-9)
        expectClose(st.calmarRatio!, (st.cagrPercent! / 100) / abs(depth), relative: 1e-9)
        var longest = 0
        for s in 0..<w.count where w[s] >= w[0...s].max()! && s + 1 < w.count && w[s + 1] < w[s] {
            let recovery = (s + 1..<w.count).first { w[$0] >= w[s] } ?? (w.count - 1)
            longest = max(longest, recovery - s)
        }
        #expect(st.maxDrawdownDurationBars == longest)
        // Trades.
        let pnl = r.trades.map(\.pnl)
        expectClose(st.winRatePercent!, Double(pnl.filter { $0 > 0 }.count) * 100 / Double(pnl.count), relative: 1e-12)
        let gains = pnl.filter { $0 > 0 }.reduce(0, +), losses = pnl.filter { $0 < 0 }.reduce(0, +)
        expectClose(st.profitFactor!, gains / -losses, relative: 1e-12)
        let pm = pnl.reduce(0, +) / Double(pnl.count)
        let ps = sqrt(pnl.map { ($0 - pm) * ($0 - pm) }.reduce(0, +) / Double(pnl.count - 1))
        expectClose(st.sqn!, sqrt(Double(pnl.count)) * pm / ps, relative: 1e-9)
        expectClose(st.averageTradePercent!, r.trades.map(\.pnlPercent).reduce(0, +) / Double(pnl.count), relative: 1e-12)
        expectClose(st.averageHoldingBars!, Double(r.trades.map { $0.exitStep - $0.entryStep }.reduce(0, +)) / Double(pnl.count), relative: 1e-12)
        #expect(st.bestTradePercent == r.trades.map(\.pnlPercent).max())
        expectClose(st.totalReturnPercent, (r.finalEquity / 100_000 - 1) * 100, relative: 1e-12)
        expectClose(st.timeWeightedReturnPercent, st.totalReturnPercent, relative: 1e-9)
        let held = (0..<r.equity.count).filter { r.exposed[$0] }.count
        expectClose(st.exposurePercent, Double(held) / Double(r.equity.count) * 100, relative: 1e-12)
    }

    @Test("periods per year: given, or inferred from the bar spacing and stated")
    func periodsPerYear() {
        let day: Int64 = 86_400
        #expect(StatisticsConventions.inferred(from: (0..<50).map { $0 * day }).periodsPerYear == 252)
        #expect(StatisticsConventions.inferred(from: (0..<50).map { $0 * 7 * day }).periodsPerYear == 52)
        #expect(StatisticsConventions.inferred(from: (0..<50).map { $0 * 30 * day }).periodsPerYear == 12)
        // Three sessions of 390 minute bars.
        var minutes = [Int64]()
        for d in 0..<3 { for m in 0..<390 { minutes.append(Int64(d) * day + 48_600 + Int64(m) * 60) } }
        let intraday = StatisticsConventions.inferred(from: minutes)
        #expect(intraday.periodsPerYear == 252 * 390)
        #expect(intraday.periodsPerYearSource.contains("390 bars per day"))
        // Weekday-only daily data: the median gap is one day.
        let weekdays = (0..<60).map { Int64($0) }.filter { ($0 + 3) % 7 < 5 }.map { $0 * day }
        #expect(StatisticsConventions.inferred(from: weekdays).periodsPerYear == 252)
    }

    @Test("undefined values are nil, not NaN: no trades, flat equity")
    func undefined() throws {
        let s = dailySeries("A", flat(10, count: 5))
        let r = try Backtest().run(ScriptedStrategy(script: [:]), on: Market([s]))
        let st = BacktestStatistics(r, moneyWeightedReturn: referenceXIRR)
        #expect(st.tradeCount == 0 && st.winRatePercent == nil && st.profitFactor == nil && st.sqn == nil)
        #expect(st.sharpeRatio == nil && st.sortinoRatio == nil && st.calmarRatio == nil)
        #expect(st.maxDrawdownPercent == 0 && st.totalReturnPercent == 0 && st.exposurePercent == 0)
    }
}
