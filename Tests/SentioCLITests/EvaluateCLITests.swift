import Foundation
import SentioAPI
import SentioTestSupport
import Testing

@testable import Sentio

private let sampleMarket = repositoryRoot.appendingPathComponent("Data/market").path

/// Every field of `sentio evaluate --format json`, non-optional (nullable fields decoded with the key required).
private struct StrictEvaluation: Decodable {
    struct Rule: Decodable {
        let rule, description: String
        let buy, sell, hold, scored, right: Int
        let hitRate, meanConfidence, brierScore, expectedCalibrationError: Double
        let informationCoefficient: Double?
        let reliability: [Bin]
        let targets: Targets?
        enum CodingKeys: String, CodingKey {
            case rule, description, buy, sell, hold, scored, right, hitRate, meanConfidence, brierScore
            case expectedCalibrationError, informationCoefficient, reliability, targets
        }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            rule = try c.decode(String.self, forKey: .rule)
            description = try c.decode(String.self, forKey: .description)
            buy = try c.decode(Int.self, forKey: .buy)
            sell = try c.decode(Int.self, forKey: .sell)
            hold = try c.decode(Int.self, forKey: .hold)
            scored = try c.decode(Int.self, forKey: .scored)
            right = try c.decode(Int.self, forKey: .right)
            hitRate = try c.decode(Double.self, forKey: .hitRate)
            meanConfidence = try c.decode(Double.self, forKey: .meanConfidence)
            brierScore = try c.decode(Double.self, forKey: .brierScore)
            expectedCalibrationError = try c.decode(Double.self, forKey: .expectedCalibrationError)
            informationCoefficient = try c.decode(Double?.self, forKey: .informationCoefficient)
            reliability = try c.decode([Bin].self, forKey: .reliability)
            targets = try c.decode(Targets?.self, forKey: .targets)
        }
    }
    struct Bin: Decodable {
        let bin, count: Int
        let lower, upper, meanConfidence, observedFrequency: Double
    }
    struct Targets: Decodable { let targetFirst, stopFirst, neither, noTarget: Int }
    struct Point: Decodable {
        let timestamp: String
        let value: Double
    }
    let model: String
    let config: SignalModelConfig
    let symbols: [String]
    let evaluatedBars, horizonBars, rollingWindow: Int
    let rules: [Rule]
    let rulesWithoutSignals: [String]
    let rollingInformationCoefficient: [Point]
}

@Suite("sentio evaluate")
struct EvaluateCLITests {
    @Test func jsonDecodesStrictlyAndMatchesTheLibrary() async throws {
        let run = try await runSentio(["evaluate", sampleMarket, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONDecoder().decode(StrictEvaluation.self, from: Data(run.stdout.utf8))
        let market = try OHLCVReader.readDirectory(sampleMarket)
        let evaluation = try WalkForwardEvaluation.run(market)
        #expect(run.stdout == (try APIJSON.encode(EvaluationResponse(evaluation))))
        #expect(json.symbols == market.map(\.symbol) && json.horizonBars == 5)
        #expect(json.rules.first?.rule == "sentio" && json.rules.first?.targets != nil)
        for rule in json.rules {
            #expect(rule.scored == rule.buy + rule.sell && rule.buy + rule.sell + rule.hold == json.evaluatedBars)
            #expect(rule.reliability.reduce(0) { $0 + $1.count } == rule.scored)
            #expect((0...1).contains(rule.hitRate) && (0...1).contains(rule.expectedCalibrationError))
            #expect(abs(rule.hitRate - Double(rule.right) / Double(rule.scored)) <= 1e-15)
            if rule.rule != "sentio" { #expect(rule.targets == nil) }
        }
        #expect(json.rules.first { $0.rule == "always-buy" }?.informationCoefficient == nil)
        #expect(!json.rollingInformationCoefficient.isEmpty)
    }

    @Test func tableAndReport() async throws {
        let directory = try temporaryDirectory("sentio-evaluate")
        let report = directory.appendingPathComponent("evaluation.html").path
        let run = try await runSentio(["evaluate", sampleMarket + "/TQQQ.csv", "--report", report])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("always-buy") && run.stdout.contains("ECE") && run.stdout.contains("reliability"))
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<svg class=\"reliability\"") && html.contains("rolling-ic"))
        #expect(!html.contains("placeholder"))
    }

    @Test func badInputExitsTwo() async throws {
        let directory = try temporaryDirectory("sentio-evaluate-bad")
        let short = directory.appendingPathComponent("SHORT.csv").path
        let market = try OHLCVReader.readDirectory(sampleMarket)
        try OHLCVWriter.write(market[0].prefix(100), to: short)
        for arguments in [
            ["evaluate", short],  // too short for any resolved signal
            ["evaluate", sampleMarket, "--format", "csv"],
            ["evaluate", directory.appendingPathComponent("missing.csv").path],
            ["evaluate", sampleMarket, "--horizon", "0"],
            ["evaluate"],
        ] {
            let run = try await runSentio(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.isEmpty && run.stdout.isEmpty)
        }
        let tooShort = try await runSentio(["evaluate", short])
        #expect(tooShort.stderr.contains("nothing to evaluate"))
    }
}
