import Foundation
import SentioBacktest
import SentioCore
import SentioTestSupport
import Testing

/// A random USD series and random daily GBPUSD rates (some days missing), run as a GBP DCA plan.
private func randomCase(_ rng: inout SplitMix64) throws -> (InvestorCurrencyMarket, BacktestResult, ExchangeRates, fill: FillTiming) {
    let n = Int.random(in: 5...80, using: &rng)
    var price = Double.random(in: 20...200, using: &rng)
    var rows: [(Double, Double, Double, Double)] = []
    for _ in 0..<n {
        let open = price * exp(rng.nextGaussian() * 0.01)
        let close = open * exp(rng.nextGaussian() * 0.02)
        rows.append((open, max(open, close) * 1.01, min(open, close) * 0.99, close))
        price = close
    }
    let series = dailySeries("X", rows)
    var dates: [CivilDate] = [], rates: [Double] = []
    var rate = Double.random(in: 1.1...1.4, using: &rng)
    for i in 0..<n {
        rate *= exp(rng.nextGaussian() * 0.005)
        if i > 0 && Int.random(in: 0..<6, using: &rng) == 0 { continue }  // a day without a rate
        dates.append(CivilDate(epochSeconds: series.timestamps[i]))
        rates.append(rate)
    }
    let fx = ExchangeRates(dates: dates, rates: rates)
    let translated = try InvestorCurrencyMarket(assetSeries: [series], rates: fx)
    let fill: FillTiming = Bool.random(using: &rng) ? .nextOpen : .close
    let configuration = BacktestConfiguration(
        initialCapital: 0, fill: fill, costs: TradingCosts(commissionRate: Bool.random(using: &rng) ? 0.001 : 0), fractionalShares: true)
    let result = try Backtest(configuration).run(
        DollarCostAveragingStrategy(amount: 100, every: Bool.random(using: &rng) ? .week : .month), on: try Market(translated.series))
    return (translated, result, fx, fill)
}

@Suite("DCA in the investor's currency")
struct InvestorCurrencyTests {
    @Test("each purchase converts at its execution day's rate (or the last before it); the views obey their identities (1,000 random cases)")
    func identities() throws {
        var rng = SplitMix64(seed: 0x15_0101)
        for _ in 0..<1_000 {
            let (translated, result, fx, fill) = try randomCase(&rng)
            let asset = translated.assetSeries[0]
            let executions = translated.executions(of: result)
            #expect(executions.count == result.orders.filter(\.isFilled).count)
            for e in executions {
                let i = try #require(asset.timestamps.firstIndex(of: e.timestamp))
                let expectedRate = try #require(fx.rate(on: CivilDate(epochSeconds: e.timestamp))).rate
                #expect(e.rate == expectedRate)
                #expect(e.assetPrice == (fill == .close ? asset.close[i] : asset.open[i]))
                expectClose(e.investorPrice * e.rate, e.assetPrice, relative: 1e-12)
                expectClose(e.amount, 100, relative: 1e-12)
            }
            let stepRates = try CurrencyViews.stepRates(result, rates: fx)
            let views = CurrencyViews(result: result, stepRates: stepRates, moneyWeightedReturn: referenceXIRR)
            expectClose(views.valueAsset, result.finalEquity * stepRates.last!, relative: 1e-12)
            expectClose(views.investedInvestor, result.totalContributions, relative: 1e-12)
            // The FX effect telescopes: rate at the first funded step ÷ rate at the last step − 1.
            if let first = result.equity.firstIndex(where: { $0 > 0 }), first < result.equity.count - 1 {
                expectClose(1 + views.fxEffectPercent / 100, stepRates[first] / stepRates.last!, relative: 1e-9)
            }
        }
    }

    @Test("a constant rate: the asset-currency view is the investor's times the rate, same returns, no FX effect")
    func constantRate() throws {
        let series = dailySeries("X", (0..<60).map { k in let p = 50 + Double(k % 7) - Double(k) * 0.1; return (p, p + 1, p - 1, p + 0.5) })
        let fx = ExchangeRates(dates: [CivilDate(epochSeconds: series.timestamps[0])], rates: [1.25])
        let translated = try InvestorCurrencyMarket(assetSeries: [series], rates: fx)
        #expect(translated.previousRateBars.count == 59)
        let result = try Backtest(BacktestConfiguration(initialCapital: 0, fractionalShares: true))
            .run(DollarCostAveragingStrategy(amount: 100, every: .week), on: try Market(translated.series))
        let views = CurrencyViews(result: result, stepRates: try CurrencyViews.stepRates(result, rates: fx), moneyWeightedReturn: referenceXIRR)
        expectClose(views.investedAsset, views.investedInvestor * 1.25, relative: 1e-12)
        expectClose(views.valueAsset, views.valueInvestor * 1.25, relative: 1e-12)
        expectClose(views.timeWeightedReturnAssetPercent, views.timeWeightedReturnInvestorPercent, relative: 1e-12)
        expectClose(views.moneyWeightedReturnAssetPercent ?? .nan, views.moneyWeightedReturnInvestorPercent ?? .nan, relative: 1e-9)
        #expect(abs(views.fxEffectPercent) < 1e-12)
    }

    @Test("a bar before the first rate is an error naming the day, the symbol and the first rate date")
    func noRateBeforeFirstContribution() throws {
        let series = dailySeries("X", flat(10, count: 5))
        let fx = ExchangeRates(dates: [CivilDate(epochSeconds: series.timestamps[2])], rates: [1.3])
        #expect(throws: BacktestError.self) { _ = try InvestorCurrencyMarket(assetSeries: [series], rates: fx) }
        do {
            _ = try InvestorCurrencyMarket(assetSeries: [series], rates: fx, ratesName: "fx.csv")
        } catch {
            #expect(error.message.contains("no exchange rate on or before 2024-01-01 (bar 1 of X) in fx.csv, which starts on 2024-01-03"))
        }
    }
}

/// Fractional DCA invests every deposit, whatever the rounding of price × (1 + slippage) × (1 + commission) + fee:
/// a purchase that overshoots the cash by a few ulps is shaved to fit, never rejected (a rejected deposit would stay
/// uninvested for the rest of the run).
@Suite("DCA: every deposit is invested")
struct DepositRoundingTests {
    @Test("fractional DCA fills every deposit and leaves at most a few ulps of cash per deposit (2,000 random cases)")
    func everyDepositFills() throws {
        var rng = SplitMix64(seed: 0x0D_CA01)
        for _ in 0..<2_000 {
            let bars = Int.random(in: 20...80, using: &rng)
            var price = Double.random(in: 0.5...900, using: &rng)
            let rows = (0..<bars).map { _ -> (Double, Double, Double, Double) in
                price *= 1 + Double.random(in: -0.05...0.05, using: &rng)
                let p = Bool.random(using: &rng) ? price : (price * 10_000).rounded() / 10_000
                return (p, p * 1.01, p * 0.99, p)
            }
            let amount = [100, 710, 1_000, 33.33, 0.07 * 3, Double.random(in: 1...5_000, using: &rng)].randomElement(using: &rng)!
            let costs = TradingCosts(
                commissionRate: [0, 0.001, 0.0035, Double.random(in: 0...0.01, using: &rng)].randomElement(using: &rng)!,
                feePerOrder: amount >= 10 ? [0, 0, 0.99, 0.1].randomElement(using: &rng)! : 0,
                slippageBasisPoints: [0, 5, 10, Double.random(in: 0...50, using: &rng)].randomElement(using: &rng)!)
            let configuration = BacktestConfiguration(
                initialCapital: 0, fill: Bool.random(using: &rng) ? .nextOpen : .close, costs: costs, fractionalShares: true)
            let result = try Backtest(configuration).run(
                DollarCostAveragingStrategy(amount: amount, every: Bool.random(using: &rng) ? .week : .month),
                on: try Market([dailySeries("X", rows)]))
            // Only a deposit decided on the last bar may go unfilled (no later bar to fill at, with next-open fills).
            let rejected = result.rejectedOrders.filter { $0.rejection != .noBarForSymbol }
            #expect(rejected.isEmpty, "amount \(amount), costs \(costs): \(rejected)")
            // Each filled deposit is spent down to rounding: what stays is tiny against the deposits.
            let unfilled = Double(result.rejectedOrders.count) * amount
            let deposits = Double(result.orders.count) * amount
            #expect(result.finalCash >= 0 && result.finalCash - unfilled <= deposits * 1e-12, "cash left \(result.finalCash) of \(deposits)")
        }
    }
}
