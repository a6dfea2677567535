import SentioContractDecoders
import Foundation
import SentioAPI
import SentioCore
import SentioData
import SentioSignals
import SentioTestSupport
import Testing

// `sentio signals` output (latest, --detail, --history JSON and CSV) decoded with the strict decoders: the CLI
// prints exactly the library's contract bytes.

/// Every model parameter, non-optional (the keys of a `--config` file).
struct StrictModelConfig: Decodable {
    let horizon, regressionWindow, regressionReseedInterval, shortMomentumPeriod, mediumMomentumPeriod: Int
    let rsiPeriod, volumeWindow, atrPeriod: Int
    let buyScoreThreshold, sellScoreThreshold, minimumConfidence, rsiOverbought, rsiOversold: Double
    let stopLossATRMultiple: Double
    let overlapCorrection: Bool
    let strongConfidence, moderateConfidence: Double
    let calibrationBins, calibrationMinimumSignals: Int
    let calibrationScoreRange, calibrationPriorWeight, calibrationOverallPriorWeight, calibrationDirectionPriorWeight: Double
}

/// The outcome fields of a history row: every key present, `realizedReturn`/`right` possibly `null`.
struct StrictHistoryOutcome: Decodable {
    let horizonBars: Int
    let realizedReturn: Double?
    let right: Bool?
    enum CodingKeys: String, CodingKey { case horizonBars, realizedReturn, right }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        horizonBars = try c.decode(Int.self, forKey: .horizonBars)
        realizedReturn = try c.decode(Double?.self, forKey: .realizedReturn)
        right = try c.decode(Bool?.self, forKey: .right)
    }
}

/// The outcomes of `sentio signals --history` JSON.
struct StrictSignalHistoryOutcomes: Decodable {
    let signals: [StrictHistoryOutcome]
}

/// `sentio signals --history` JSON.
struct StrictSignalHistory: Decodable {
    let model: String
    let config: StrictModelConfig
    let timestamp: Date
    let signals: [StrictSignal]
    let warmingUp: [StrictWarmingUp]
}

/// Runs the built `sentio` in the repository root.
private func sentio(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let run = try await runSentio(arguments)
    return (run.status, run.stdout, run.stderr)
}

@Suite("sentio signals output decodes with the strict decoders")
struct SignalCLIOutputTests {
    @Test("sentio signals --format json = the library's GET /signals bytes; a short file is listed under warmingUp")
    func latest() async throws {
        let run = try await sentio(["signals", EngineFixtures.marketDirectory, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try Strict.decode(StrictSignalsResponse.self, run.stdout)
        #expect(decoded.signals.count == 12 && decoded.warmingUp.isEmpty)
        let market = try OHLCVReader.readDirectory(EngineFixtures.marketDirectory)
        #expect(run.stdout == (try APIJSON.encode(SignalContracts.response(series: market))))
        try expectShape(Shapes.signalsResponse, run.stdout)

        // Seeded random lengths below the warm-up: barsRemaining = bars the model still needs.
        var rng = SplitMix64(seed: 1207)
        let config = SignalModelConfig()
        let directory = try temporaryDirectory("sentio-api-warm")
        let tqqq = try #require(market.first { $0.symbol == "TQQQ" })
        var lengths: [String: Int] = [:]
        for name in ["AAA", "BBB", "CCC"] {
            let n = 1 + Int(rng.next() % UInt64(config.firstSignalIndex))
            var series = tqqq.prefix(n)
            series.symbol = name
            try OHLCVWriter.write(series, to: directory.appendingPathComponent("\(name).csv").path)
            lengths[name] = n
        }
        let warm = try await sentio(["signals", directory.path, EngineFixtures.marketDirectory + "/SOXL.csv"])
        #expect(warm.status == 0, "\(warm.stderr)")
        let response = try Strict.decode(StrictSignalsResponse.self, warm.stdout)
        #expect(response.signals.map(\.symbol) == ["SOXL"])
        #expect(response.warmingUp.map(\.symbol) == ["AAA", "BBB", "CCC"])
        for entry in response.warmingUp {
            #expect(entry.barsRemaining == config.featureLookback + config.horizon + config.regressionWindow - lengths[entry.symbol]!)
        }
    }

    @Test("sentio signals --detail TQQQ --last 30 = the symbol-detail golden contract")
    func detail() async throws {
        let run = try await sentio(["signals", EngineFixtures.marketDirectory, "--detail", "TQQQ", "--last", "30", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try Strict.decode(StrictSymbolDetail.self, run.stdout)
        #expect(decoded.symbol == "TQQQ" && decoded.name == "Nasdaq 3x Bull" && decoded.historicalData.count == 30)
        try expectShape(Shapes.symbolDetail, run.stdout)
        try Golden.check("symbol-detail.json", run.stdout)
    }

    @Test("sentio signals --history: JSON decodes strictly (golden), CSV columns are the Signal fields")
    func history() async throws {
        let arguments = ["signals", EngineFixtures.marketDirectory, "--symbols", "TQQQ,SQQQ", "--history", "--window", "20",
                         "--from", "2024-09-01"]
        let run = try await sentio(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try Strict.decode(StrictSignalHistory.self, run.stdout)
        #expect(decoded.model == "sentio-rolling-ols-v1" && decoded.config.regressionWindow == 20)
        var config = SignalModelConfig()
        config.regressionWindow = 20
        let market = try OHLCVReader.readDirectory(EngineFixtures.marketDirectory)
        let from = CivilDate(year: 2024, month: 9, day: 1)!.epochSeconds
        let selected = ["TQQQ", "SQQQ"].map { symbol in
            let s = market.first { $0.symbol == symbol }!
            let start = s.timestamps.firstIndex { $0 >= from }!
            return s.slice(start..<s.count)
        }
        let expectedSignals = try selected.flatMap { try SignalModel.evaluate($0, config: config).filter { !$0.isWarmUp } }
        #expect(decoded.signals.map { $0.id.uuidString.lowercased() } == expectedSignals.map(\.id))
        #expect(!decoded.signals.isEmpty && decoded.warmingUp.isEmpty)
        #expect(run.stdout == (try APIJSON.encode(SignalContracts.history(series: selected, config: config))))
        try Golden.check("signal-history.json", run.stdout)
        // Outcomes: h = 5; realizedReturn from the close h bars later, null for the last h bars of each symbol;
        // right only for BUY/SELL.
        let outcomes = try Strict.decode(StrictSignalHistoryOutcomes.self, run.stdout).signals
        #expect(outcomes.count == decoded.signals.count && outcomes.allSatisfy { $0.horizonBars == config.horizon })
        var row = 0
        for s in selected {
            let ready = try SignalModel.evaluate(s, config: config).filter { !$0.isWarmUp }
            for signal in ready {
                let o = outcomes[row]
                let later = signal.barIndex + config.horizon
                if later < s.count {
                    let expected = 100 * (s.close[later] / s.close[signal.barIndex] - 1)
                    #expect(o.realizedReturn == expected)
                    switch signal.signalType {
                    case .buy: #expect(o.right == (s.close[later] > s.close[signal.barIndex]))
                    case .sell: #expect(o.right == (s.close[later] < s.close[signal.barIndex]))
                    case .hold: #expect(o.right == nil)
                    }
                } else {
                    #expect(o.realizedReturn == nil && o.right == nil)
                }
                row += 1
            }
        }
        #expect(outcomes.suffix(config.horizon).allSatisfy { $0.realizedReturn == nil })

        let csv = try await sentio(arguments + ["--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n")
        let header = lines.first.map { $0.split(separator: ",").map(String.init) }
        #expect(header == ["id", "symbol", "timestamp", "price", "change", "changePercent", "signalType", "confidence",
                           "targetReturn", "stopLoss", "profitTarget", "aiSignal", "rsi", "volumeRatio", "recommendation",
                           "reasoning", "horizonBars", "realizedReturn", "right"])
        #expect(lines.count == 1 + decoded.signals.count)
        for (line, signal) in zip(lines.dropFirst(), decoded.signals) {
            let cells = line.split(separator: ",", maxSplits: 14, omittingEmptySubsequences: false).map(String.init)
            #expect(UUID(uuidString: cells[0]) == signal.id && cells[1] == signal.symbol)
            #expect(Strict.parseTimestamp(cells[2]) == signal.timestamp)
            #expect(Double(cells[3]) == signal.price && Double(cells[9]) == signal.stopLoss && Double(cells[13]) == signal.volumeRatio)
        }
        for (line, outcome) in zip(lines.dropFirst(), outcomes) {
            let tail = line.split(separator: ",", omittingEmptySubsequences: false).suffix(3).map(String.init)
            #expect(tail[0] == "\(outcome.horizonBars)")
            #expect(tail[1] == (outcome.realizedReturn.map { "\($0)" } ?? ""))
            #expect(tail[2] == (outcome.right.map { $0 ? "true" : "false" } ?? ""))
        }
    }
}
