import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioData

/// Real market files as shipped in PyPI wheels (Tests/Fixtures/market_files, generate_market_files.py): the
/// adjustments, the long form and the date detection against reference numbers computed with pandas.
@Suite("Real market files")
struct MarketFilesTests {
    static let folder = "market_files/"

    /// `reference.csv` of the fixture folder (name → value).
    static func reference() throws -> [String: String] {
        let text = try String(contentsOfFile: fixturePath(folder + "reference.csv"), encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let parts = line.split(separator: ",", maxSplits: 1)
            out[String(parts[0])] = String(parts[1])
        }
        return out
    }

    static func number(_ name: String) throws -> Double {
        let text = try #require(try reference()[name])
        return try #require(Double(text))
    }

    /// The line of the fixture file whose first cell is `date` (1-based; the header is line 1).
    static func line(of date: String, in file: String) throws -> Int {
        let text = try String(contentsOfFile: fixturePath(folder + file), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.hasPrefix(date + ",") }) + 1
    }

    /// Relative difference.
    static func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(abs(a), abs(b)) }

    @Test func aaplTotalAdjustmentReproducesTheAdjustedCloseReturns() throws {
        let path = fixturePath(Self.folder + "AAPL.csv")
        let raw = try OHLCVReader.readWithReport(path: path, options: ReadOptions(adjust: .none))
        let result = try OHLCVReader.readWithReport(path: path, options: ReadOptions(adjust: .auto))
        #expect(result.adjustment.mode == .total)
        #expect(result.adjustment.adjustedCloseColumn == "Adj Close")
        let expectedSplits = Int(try Self.number("aapl_splits"))
        #expect(result.adjustment.splits == expectedSplits)
        let s = result.series, r = raw.series
        let bars = Int(try Self.number("aapl_bars"))
        #expect(s.count == bars)
        // The last bar keeps the file's prices; every bar's OHLC is scaled by one factor.
        #expect(s.close.last == r.close.last)
        for i in [0, 77, 1_000, s.count - 1] {
            let g = s.close[i] / r.close[i]
            #expect(Self.relative(s.open[i] / r.open[i], g) < 1e-15)
            #expect(Self.relative(s.high[i] / r.high[i], g) < 1e-15)
            #expect(Self.relative(s.low[i] / r.low[i], g) < 1e-15)
        }
        // Close-to-close returns are the adjusted close's (pandas): each step adds at most a few roundings.
        let fromSecondClose = s.close[s.count - 1] / s.close[1] - 1
        #expect(Self.relative(fromSecondClose, try Self.number("aapl_adj_close_return_from_second_close")) < 1e-13)
        // Buy at the second bar's open, hold to the last close (gross).
        let gross = s.close[s.count - 1] / s.open[1] - 1
        #expect(Self.relative(gross, try Self.number("aapl_buy_and_hold_total_gross")) < 1e-13)
        // Volumes count shares of the last bar: x4 before 2000-06-21, x2 until 2005-02-28, as written after.
        #expect(s.volume[0] == r.volume[0] * 4)
        #expect(s.volume[s.count - 1] == r.volume[s.count - 1])
    }

    @Test func aaplWithoutAdjustedCloseIsRefusedAtTheFirstSplit() throws {
        // The same file without its Adj Close column: the split check names the 2000-06-21 split.
        let text = try String(contentsOfFile: fixturePath(Self.folder + "AAPL.csv"), encoding: .utf8)
        let unadjusted = text.split(separator: "\n").map { $0.split(separator: ",").prefix(6).joined(separator: ",") }
            .joined(separator: "\n")
        let expectedLine = try Self.line(of: "2000-06-21", in: "AAPL.csv")
        do {
            _ = try OHLCVReader.parse(text: unadjusted, file: "AAPL.csv", symbol: "AAPL", options: ReadOptions(adjust: .auto))
            Issue.record("a split on unadjusted prices was accepted")
        } catch {
            guard case let .suspectedSplit(file, line, _, previousLine, previousDate, date, ratio, _, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(file == "AAPL.csv")
            #expect(line == expectedLine)
            #expect(previousLine == expectedLine - 1)
            #expect(previousDate == "2000-06-20")
            #expect(date == "2000-06-21")
            #expect(ratio == "2-for-1")
            #expect(error.description.contains("--adjust none"))
            #expect(error.description.contains("--actions"))
        }
        // --adjust none accepts the move; the actions file explains both splits.
        let none = try OHLCVReader.parse(text: unadjusted, file: "AAPL.csv", symbol: "AAPL", options: ReadOptions(adjust: .none))
        let bars = Int(try Self.number("aapl_bars"))
        #expect(none.series.count == bars)
        let actions = try CorporateActions.read(path: fixturePath(Self.folder + "AAPL_actions.csv"))
        let withActions = try OHLCVReader.parse(
            text: unadjusted, file: "AAPL.csv", symbol: "AAPL", options: ReadOptions(adjust: .auto, actions: actions))
        #expect(withActions.adjustment.mode == .none)
        #expect(withActions.adjustment.actionsFile == actions.file)
        #expect(withActions.series == none.series)
        // --adjust splits with the actions: prices before 2000-06-21 are a quarter, volumes four times.
        let split = try OHLCVReader.parse(
            text: unadjusted, file: "AAPL.csv", symbol: "AAPL", options: ReadOptions(adjust: .splits, actions: actions))
        #expect(split.adjustment.splits == 2)
        #expect(split.series.close[0] == none.series.close[0] / 4)
        #expect(split.series.volume[0] == none.series.volume[0] * 4)
        let gross = split.series.close.last! / split.series.open[1] - 1
        #expect(Self.relative(gross, try Self.number("aapl_buy_and_hold_splits_gross")) < 1e-13)
    }

    @Test func splitsFoundInTheAdjustedCloseEqualTheActionsFile() throws {
        let path = fixturePath(Self.folder + "AAPL.csv")
        let actions = try CorporateActions.read(path: fixturePath(Self.folder + "AAPL_actions.csv"))
        let fromColumn = try OHLCVReader.readWithReport(path: path, options: ReadOptions(adjust: .splits))
        let fromActions = try OHLCVReader.readWithReport(path: path, options: ReadOptions(adjust: .splits, actions: actions))
        #expect(fromColumn.adjustment.splits == 2)
        #expect(fromColumn.series == fromActions.series)
    }

    @Test func longFormFileReadsAsAUniverse() throws {
        let path = fixturePath(Self.folder + "stocks_2005H1.csv")
        let results = try OHLCVReader.readResults(path: path, options: ReadOptions(adjust: .auto))
        #expect(results.map(\.series.symbol) == ["AAPL", "IBM", "MSFT"])
        for result in results {
            let symbol = result.series.symbol
            let bars = Int(try Self.number("long_\(symbol)_bars"))
            #expect(result.series.count == bars)
            #expect(result.adjustment.mode == .total)
            let r = result.series.close.last! / result.series.close.first! - 1
            #expect(Self.relative(r, try Self.number("long_\(symbol)_adj_close_return")) < 1e-13)
        }
        // One symbol can be selected; a file of several is refused where one series is asked for.
        let ibm = try OHLCVReader.readWithReport(path: path, options: ReadOptions(symbol: "ibm", adjust: .auto))
        #expect(ibm.series == results[1].series)
        #expect(throws: CSVError.self) { try OHLCVReader.readWithReport(path: path) }
        #expect(try OHLCVReader.readAll(paths: [path]).count == 3)
    }

    @Test func monthDayYearDatesAreDetected() throws {
        let path = fixturePath(Self.folder + "SP500_1999.csv")
        let result = try OHLCVReader.readWithReport(path: path, options: ReadOptions(adjust: .auto))
        let reference = try Self.reference()
        let bars = Int(try Self.number("sp500_1999_bars"))
        #expect(result.series.count == bars)
        #expect(CivilDate(epochSeconds: result.series.timestamps[0]).description == reference["sp500_1999_first_date"])
        #expect(CivilDate(epochSeconds: result.series.timestamps.last!).description == reference["sp500_1999_last_date"])
        #expect(result.notes.contains { $0.contains("%m/%d/%Y") })
        // The adjusted close equals the close in this file: total adjustment leaves returns as they are.
        let r = result.series.close.last! / result.series.close.first! - 1
        #expect(Self.relative(r, try Self.number("sp500_1999_close_return")) < 1e-13)
    }

    @Test func bundledDataAndFixturesPassTheSplitCheck() throws {
        // Every OHLCV file the repository ships reads under the default of `sentio` (auto): none trips the check.
        let files = [
            "Data/market", "Data/crypto", "Tests/Fixtures/backtest/goog_daily.csv", "Tests/Fixtures/dca_fx/SPXL.csv",
            "Tests/Fixtures/evaluate/BTCUSD.csv", "Tests/Fixtures/evaluate/EURUSD.csv", "Tests/Fixtures/evaluate/GOOG.csv",
            "Tests/Fixtures/indicators/goog_ohlcv.csv",
        ].map { repositoryRoot.appendingPathComponent($0).path }
        let results = try OHLCVReader.readAllWithReports(paths: files, options: ReadOptions(adjust: .auto))
        #expect(results.count >= 12 + 6)
        #expect(results.allSatisfy { $0.adjustment.isPlain })
    }
}
