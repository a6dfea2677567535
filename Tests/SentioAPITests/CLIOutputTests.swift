import SentioContractDecoders
import Foundation
import SentioAPI
import SentioApplication
import SentioBacktest
import SentioCore
import SentioData
import SentioTestSupport
import Testing

private struct CLIOutputError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `sentio arguments…` in the repository root; its standard output (exit status 0 required).
private func sentio(_ arguments: [String]) async throws -> String {
    let run = try await runSentio(arguments)
    guard run.status == 0 else { throw CLIOutputError(message: "sentio \(arguments) exited \(run.status): \(run.stderr)") }
    return run.stdout
}

@Suite("Real CLI output decodes with the strict decoders and equals the library's bytes", .serialized)
struct CLIOutputTests {
    @Test("backtest --format json (rsi, dca in GBP) and runs list/show/compare --format json")
    func backtestAndRuns() async throws {
        let db = try temporaryDirectory("api-cli-runs").appendingPathComponent("s.sqlite").path
        let rsi = try await sentio(["backtest", "Data/market", "--strategy", "rsi", "--commission", "0.002", "--format", "json", "--save", "--db", db])
        try expectShape(BacktestShapes.backtestSummary(), rsi)
        let decoded = try Strict.decode(StrictBacktestSummary.self, rsi)
        #expect(decoded.config.commissionRate == 0.002 && decoded.config.rsiPeriod == 14 && decoded.config.maxPositions == 12)

        // The CLI prints exactly what the library builds for the same request and data.
        let request = BacktestRequest(strategy: .rsi, commissionRate: 0.002)
        let series = try OHLCVReader.readConcurrently(try OHLCVReader.expand(paths: [EngineFixtures.marketDirectory]))
        let result = try Backtest(request.configuration(symbolCount: series.count)).run(try request.makeStrategy(), on: try Market(series))
        let library = try BacktestRunReport(
            result: result, request: request, source: BacktestDataSource(paths: ["Data/market"]),
            benchmark: .standard(BenchmarkSeries.equalWeight(series, timeline: result.timestamps)))
        #expect(decoded.benchmark?.symbol == BenchmarkSeries.equalWeightName && decoded.benchmark?.commonBars == result.timestamps.count)
        #expect(try library.summaryJSON() == rsi)
        await #expect(try sentio(["backtest", "Data/market", "--strategy", "rsi", "--commission", "0.002"]) == library.summary.table())

        let spxl = fixturePath("dca_fx/SPXL.csv"), fx = fixturePath("dca_fx/GBPUSD.csv")
        let dca = try await sentio(["backtest", spxl, "--strategy", "dca", "--amount", "100", "--every", "week", "--currency", "GBP",
                              "--fx", fx, "--format", "json", "--save", "--db", db, "--label", "gbp"])
        try expectShape(BacktestShapes.backtestSummary(investorCurrency: "GBP"), dca)
        let gbp = try Strict.decode(StrictBacktestSummary.self, dca)
        #expect(gbp.strategy == .dca && gbp.currency?.investorCurrency == "GBP" && gbp.config.fx == fx)

        let list = try Strict.decode(StrictRunList.self, try await sentio(["runs", "list", "--db", db, "--format", "json"]))
        #expect(list.runs.map(\.id) == [1, 2] && list.runs[1].label == "gbp" && list.runs[0].label == nil)
        let show = try await sentio(["runs", "show", "1", "--db", db, "--format", "json"])
        let detail = try Strict.decode(StrictRunDetail.self, show)
        #expect(detail.statistics.finalEquity == decoded.finalEquity && detail.config.commissionRate == 0.002)
        #expect(try APIJSON.encode(try APIJSONValue.parse(show)["statistics"]!) == rsi)  // the saved bytes
        let compare = try APIJSONValue.parse(try await sentio(["runs", "compare", "1", "2", "--db", db, "--format", "json"]))
        #expect(compare.fields.map(\.key) == ["runs", "statistics", "configDifferences"])
        #expect(compare["statistics"]?["finalEquity"] == .array([.number(decoded.finalEquity), .number(gbp.finalEquity)]))
    }
}
