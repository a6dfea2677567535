import SentioBacktest
import SentioCore
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
            #expect(try BacktestRequest(strategy: kind).makeStrategy().name == kind.rawValue)
        }
        let rsi = try #require(try BacktestRequest(strategy: .rsi, rsiPeriod: 9, rsiUpper: 80).makeStrategy() as? RSIStrategy)
        #expect(rsi.period == 9 && rsi.lower == 30 && rsi.upper == 80)
        let dca = try #require(try BacktestRequest(strategy: .dca, dcaAmount: 50, dcaPeriod: .week).makeStrategy() as? DollarCostAveragingStrategy)
        #expect(dca.amount == 50 && dca.period == .week)
    }
}
