import Foundation
import Sentio
import SentioTestSupport
import Testing

/// The README's library example is this code, and it runs.
@Suite("README: the library example")
struct ReadmeExampleTests {
    /// The example's body, exactly as the README shows it (after `import Sentio`).
    static let exampleLines = [
        #"let series = try OHLCVReader.read(path: "Data/market/TQQQ.csv")"#,
        #"let rsi = relativeStrengthIndex(series.close, period: 14)"#,
        #"let configuration = BacktestRequest(strategy: .rsi).configuration(symbolCount: 1)"#,
        #"let result = try Backtest(configuration).run(RSIStrategy(), on: try Market([series]))"#,
        #"let statistics = BacktestStatistics(result, moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))"#,
        #"print("RSI \(rsi.validValues.last!), final equity \(statistics.finalEquity), Sharpe \(statistics.sharpeRatio ?? .nan)")"#,
        #"let flows = [CashFlow(date: CivilDate(iso: "2020-01-01")!, amount: -100), CashFlow(date: CivilDate(iso: "2021-07-01")!, amount: 121)]"#,
        #"print("XIRR \(try xirr(flows: flows).rate)")"#,
    ]

    @Test("the README shows exactly these lines after `import Sentio`")
    func readmeShowsTheCode() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = (["```swift", "import Sentio", ""] + Self.exampleLines + ["```"]).joined(separator: "\n")
        #expect(readme.contains(block))
    }

    @Test("the example runs on the sample data and gives the engine's numbers")
    func exampleRuns() throws {
        let root = repositoryRoot.path
        // The example's code, with the path made absolute (the README runs from the repository root).
        let series = try OHLCVReader.read(path: root + "/Data/market/TQQQ.csv")
        let rsi = relativeStrengthIndex(series.close, period: 14)
        let configuration = BacktestRequest(strategy: .rsi).configuration(symbolCount: 1)
        let result = try Backtest(configuration).run(RSIStrategy(), on: try Market([series]))
        let statistics = BacktestStatistics(result, moneyWeightedReturn: BacktestMoneyWeightedReturn.xirr(_:))
        let flows = [CashFlow(date: CivilDate(iso: "2020-01-01")!, amount: -100), CashFlow(date: CivilDate(iso: "2021-07-01")!, amount: 121)]
        let rate = try xirr(flows: flows).rate
        #expect(rsi.validValues.count == series.count - 14)
        #expect(statistics.finalEquity == result.finalEquity && statistics.finalEquity > 0)
        // 121 / 100 over 547 days (Actual/365F): (1.21)^(365/547) - 1.
        #expect(abs(rate - (pow(1.21, 365.0 / 547.0) - 1)) < 1e-12)
    }
}
