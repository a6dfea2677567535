import Foundation
import SentioAPI
import SentioBacktest
import SentioCore

/// Which benchmark a run's summary compares it with.
public enum BacktestBenchmarkChoice: Sendable {
    /// None: the summary's `benchmark` is `null`.
    case none
    /// One the user asked for (`--benchmark`): a benchmark that cannot be compared is an error.
    case given(BenchmarkSeries)
    /// The default (equal-weight buy-and-hold of the universe, `BenchmarkSeries.equalWeight`): one that cannot be
    /// compared leaves `benchmark` `null` with a `benchmark-unavailable` warning saying why.
    case standard(BenchmarkSeries)
}

/// Every output of one backtest, built once from the result: the summary (JSON), the trade log and equity curve
/// (CSV) and the portfolio (`GET /portfolio`). The summary's terminal table and the records saved in a store are
/// SentioApplication's (`BacktestSummary.table()`, `BacktestRunReport.storedRun(label:inputFingerprint:)`).
public struct BacktestRunReport: Sendable {
    public var result: BacktestResult
    public var statistics: BacktestStatistics
    public var summary: BacktestSummary
    public var currency: BacktestCurrencyReport?
    /// The run against its benchmark (`nil`: none asked for, or the default one could not be compared).
    public var benchmark: BenchmarkStatistics?
    /// Signs of a degenerate run, also in the summary's `warnings`.
    public var warnings: [BacktestWarning]

    /// Closed trades listed in the portfolio file's `recentTrades`.
    public static let recentTradeLimit = 50

    /// - Parameters:
    ///   - result: the finished backtest.
    ///   - request: what was asked for (for the `config` object).
    ///   - source: where the bars came from.
    ///   - fxFile: the FX file of an investor-currency run.
    ///   - currency: the run in both currencies, for a DCA run in an investor currency.
    ///   - benchmark: the benchmark to compare with (see ``BacktestBenchmarkChoice``).
    /// - Throws: SentioAPI's `APIContractError` for a run without steps or a non-finite statistic; `BenchmarkError`
    ///   (SentioBacktest) when a ``BacktestBenchmarkChoice/given(_:)`` benchmark cannot be compared.
    public init(
        result: BacktestResult, request: BacktestRequest, source: BacktestDataSource, fxFile: String? = nil,
        currency: BacktestCurrencyReport? = nil, benchmark: BacktestBenchmarkChoice = .none
    ) throws {
        self.result = result
        self.currency = currency
        statistics = BacktestStatistics(result)
        var warnings = BacktestWarning.of(result, statistics: statistics)
        switch benchmark {
        case .none: self.benchmark = nil
        case .given(let series): self.benchmark = try BenchmarkStatistics(result, benchmark: series)
        case .standard(let series):
            do {
                self.benchmark = try BenchmarkStatistics(result, benchmark: series)
            } catch {
                self.benchmark = nil
                warnings.append(BacktestWarning.benchmarkUnavailable(error))
            }
        }
        self.warnings = warnings
        let config = BacktestRunConfig(
            request: request, configuration: result.configuration, symbols: result.symbols, source: source, fxFile: fxFile)
        summary = try BacktestSummary(
            result: result, statistics: statistics, config: config, currency: currency?.summary, benchmark: self.benchmark,
            warnings: warnings)
    }

    /// The summary as JSON (SentioAPI's `APIJSON`): the bytes `sentio backtest --format json` prints and a saved run keeps.
    public func summaryJSON() throws(APIEncodingError) -> String { try APIJSON.encode(summary) }

    /// The final portfolio (`GET /portfolio`) as JSON, with the last ``recentTradeLimit`` closed trades.
    /// - Throws: SentioAPI's `APIContractError` (see `BacktestContracts.portfolio(_:recentTrades:exchangeTimeZone:)`) or
    ///   `APIEncodingError`.
    public func portfolioJSON() throws -> String {
        try APIJSON.encode(try BacktestContracts.portfolio(result, recentTrades: Self.recentTradeLimit))
    }

    /// The trade log, see SentioAPI's `BacktestCSV.tradeLog(_:)`.
    public func tradeLogCSV() throws -> String { try BacktestCSV.tradeLog(result) }

    /// The equity curve, see SentioAPI's `BacktestCSV.equityCurve(_:)`.
    public func equityCurveCSV() throws -> String { try BacktestCSV.equityCurve(result) }
}
