import Foundation
import SentioAPI
import SentioBacktest
import SentioCore
import SentioData
import SentioFunds
import SentioSignals
import SentioTestSupport
import Testing

/// Real engine results on the repository's `Data/` samples, computed through the library.
enum EngineFixtures {
    static let marketDirectory = repositoryRoot.appendingPathComponent("Data/market").path
    static let fundsDirectory = repositoryRoot.appendingPathComponent("Data/funds")

    static func market() throws -> [OHLCVSeries] {
        try OHLCVReader.readDirectory(marketDirectory).sorted { $0.symbol < $1.symbol }
    }

    /// The market with LABD and LABU cut to 100 bars (still warming up: the model needs more).
    static func marketWithWarmUp() throws -> [OHLCVSeries] {
        try market().map { ["LABD", "LABU"].contains($0.symbol) ? $0.prefix(100) : $0 }
    }

    static func backtest(fractional: Bool) throws -> BacktestResult {
        let config = fractional
            ? BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001, slippageBasisPoints: 5),
                sizing: .fractionOfEquity(0.25), fractionalShares: true)
            : BacktestConfiguration(costs: TradingCosts(commissionRate: 0.001), sizing: .equalWeight(maxPositions: 4))
        return try Backtest(config).run(SignalStrategy.sentio(), on: Market(market()))
    }

    static func fundReport() throws -> FundReport {
        let events = try FundEventFile(
            text: String(contentsOf: fundsDirectory.appendingPathComponent("events.csv"), encoding: .utf8), file: "events.csv")
        let metadata = try FundMetadataFile(
            text: String(contentsOf: fundsDirectory.appendingPathComponent("funds.csv"), encoding: .utf8), file: "funds.csv")
        return try FundReport(events: events, metadata: metadata)
    }

    /// A small BTCUSD/ETHUSD market (daily closes) for the holdings valuation.
    static func cryptoMarket() -> [OHLCVSeries] {
        func series(_ symbol: String, _ closes: [Double]) -> OHLCVSeries {
            var s = OHLCVSeries(symbol: symbol)
            let start = CivilDate(year: 2024, month: 12, day: 27)!.epochSeconds
            for (k, c) in closes.enumerated() {
                s.append(timestamp: start + Int64(k) * 86_400, open: c, high: c * 1.01, low: c * 0.99, close: c, volume: 1_000)
            }
            return s
        }
        return [series("BTCUSD", [94_164.86, 95_163.93, 93_530.23, 92_643.21, 93_429.20, 94_419.76]),
                series("ETHUSD", [3_328.92, 3_397.68, 3_353.52, 3_361.48, 3_332.33, 3_353.51])]
    }

    static let holdings = [
        CryptoHoldingInput(symbol: "BTCUSD", name: "Bitcoin", amount: 1.25),
        CryptoHoldingInput(symbol: "ETHUSD", name: "Ethereum", amount: 10.5),
    ]
}

/// Golden files: compared byte for byte; re-recorded only with `SENTIO_RECORD_GOLDEN=1`.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ name: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["SENTIO_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try Data(contentsOf: url)
        #expect(Data(text.utf8) == expected,
            "\(name) differs from its golden file; if the change is intended, re-record with SENTIO_RECORD_GOLDEN=1",
            sourceLocation: sourceLocation)
    }
}

/// Raw-bytes shape check (key order, types, nulls) of a contract's JSON text.
func expectShape(_ shape: Shape, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let raw = try RawJSON.parse(text)
    let problems = shape.problems(raw)
    #expect(problems.isEmpty, "\(problems.prefix(5))", sourceLocation: sourceLocation)
}
