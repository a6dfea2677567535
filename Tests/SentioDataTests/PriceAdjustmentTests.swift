import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

/// Price adjustment rules on small files: column aliases, notes, the split check and the actions file.
@Suite("Price adjustment")
struct PriceAdjustmentTests {
    @Test func aliasesAndUnusedColumnsAreNamed() throws {
        let text = "Ticker, DATE ,Open,High,Low,Close,Vol,Adj Close,Dividends\nX,2024-01-02,10,11,9,10,5,5,0\n"
        let r = try OHLCVReader.parse(text: text, file: "a.csv", options: ReadOptions(adjust: .auto))
        #expect(r.series.symbol == "X")
        #expect(r.series.close == [10])  // total adjustment of a one-bar file: the last bar keeps its prices
        #expect(r.adjustment.mode == .total)
        #expect(r.notes == ["a.csv: column 'Dividends' is not used"])
    }

    /// A two-bar file: the previous close and this bar's open and close.
    static func pair(previousClose: Double, open: Double, close: Double) -> String {
        let high = max(open, close), low = min(open, close)
        return "date,open,high,low,close,volume\n2024-01-02,\(previousClose),\(previousClose),\(previousClose),\(previousClose),1\n"
            + "2024-01-03,\(open),\(high),\(low),\(close),1\n"
    }

    @Test func splitCheckOnEveryRatio() throws {
        for r in PriceAdjustment.splitRatios {
            let text = Self.pair(previousClose: 100, open: 100 / r * 1.005, close: 100 / r * 0.95)
            #expect(throws: CSVError.self) { try OHLCVReader.parse(text: text, file: "s.csv", symbol: "S", options: ReadOptions(adjust: .auto)) }
            // The same file read as it is, or with the split listed, is accepted.
            _ = try OHLCVReader.parse(text: text, file: "s.csv", symbol: "S", options: ReadOptions(adjust: .none))
            let actions = try CorporateActions.parse("symbol,date,split_ratio,cash_dividend\ns,2024-01-03,\(r),\n", file: "act.csv")
            _ = try OHLCVReader.parse(text: text, file: "s.csv", symbol: "S", options: ReadOptions(adjust: .auto, actions: actions))
        }
        // Real moves: a 30 % fall, and a 50 % fall whose open did not gap (12 % away from 2x).
        for (open, close) in [(70.0, 70.0), (88.0, 50.0)] {
            _ = try OHLCVReader.parse(
                text: Self.pair(previousClose: 100, open: open, close: close), file: "s.csv", symbol: "S",
                options: ReadOptions(adjust: .auto))
        }
    }

    @Test func actionsFileRules() throws {
        let good = try CorporateActions.parse(
            "Symbol,Date,Split_Ratio,Cash_Dividend\nAAPL,2005-02-28,2:1,\nAAPL,2012-08-09,,2.65\nX,2020-01-02,1:10,0\n", file: "a.csv")
        #expect(good.actions.map(\.splitRatio) == [2, 1, 0.1])
        #expect(good.actions.map(\.cashDividend) == [0, 2.65, 0])
        for (bad, line) in [
            ("symbol,date,split_ratio,cash_dividend\nA,2020-13-01,2,0\n", 2),
            ("symbol,date,split_ratio,cash_dividend\nA,2020-01-01,-2,0\n", 2),
            ("symbol,date,split_ratio,cash_dividend\nA,2020-01-01,2,-1\n", 2),
            ("symbol,date,split_ratio,cash_dividend\nA,2020-01-01,2,0\na,2020-01-01,,1\n", 3),
        ] {
            do {
                _ = try CorporateActions.parse(bad, file: "a.csv")
                Issue.record("accepted: \(bad)")
            } catch { #expect(error.line == line) }
        }
    }

    @Test func holdingAdjustmentsFollowThePriceBasis() throws {
        let actions = try CorporateActions.parse(
            "symbol,date,split_ratio,cash_dividend\nS,2024-01-03,2,1\nS,2024-01-05,3,0\nS,2024-01-06,,0.5\n", file: "a.csv")
        var s = OHLCVSeries(symbol: "S")
        for d in 2...8 { s.append(timestamp: CivilDate(year: 2024, month: 1, day: d)!.epochSeconds, open: 1, high: 1, low: 1, close: 1, volume: 1) }
        let raw = actions.holdingAdjustments(for: s, adjustment: AppliedAdjustment(mode: .none, requested: .auto, actionsFile: "a.csv"))
        #expect(raw.map(\.shareMultiplier) == [2, 3, 1])
        #expect(raw.map(\.cashPerShare) == [1, 0, 0.5])
        // Split-adjusted prices: no share change; the dividend of 01-03 is per raw share of that day = 3 adjusted shares.
        let split = actions.holdingAdjustments(for: s, adjustment: AppliedAdjustment(mode: .splits, requested: .splits, actionsFile: "a.csv"))
        #expect(split.map(\.shareMultiplier) == [1, 1])
        #expect(split.map(\.cashPerShare) == [1.0 / 3, 0.5])
        #expect(actions.holdingAdjustments(for: s, adjustment: AppliedAdjustment(mode: .total, requested: .total)).isEmpty)
    }
}
