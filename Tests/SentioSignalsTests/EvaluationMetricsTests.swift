import Foundation
import SentioCore
import SentioData
import SentioTestSupport
import Testing

@testable import SentioSignals

/// The forecast metrics against scikit-learn/scipy/numpy (Tests/Fixtures/evaluate/generate_evaluate.py) and
/// against plain re-implementations on seeded random inputs.
@Suite struct EvaluationMetricsTests {
    /// Rows of a fixture CSV as dictionaries of numbers.
    func rows(_ name: String) throws -> [[String: Double]] {
        let lines = try fixtureText(name).split(whereSeparator: \.isNewline).map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",").map { Double(String($0))! }))
        }
    }

    @Test func matchesPythonReferences() throws {
        let cases = try rows("evaluate/metrics_cases.csv")
        let expected = try rows("evaluate/metrics_expected.csv")
        let bins = try rows("evaluate/metrics_reliability.csv")
        #expect(expected.count == 12)
        for e in expected {
            let c = cases.filter { $0["case"] == e["case"] }
            #expect(Double(c.count) == e["n"])
            let p = c.map { $0["p"]! }, y = c.map { $0["y"]! == 1 }, x = c.map { $0["x"]! }, r = c.map { $0["r"]! }
            expectClose([ForecastMetrics.hitRate(y)!], [e["hit_rate"]!], relative: 1e-15, "hit rate")
            expectClose([ForecastMetrics.brierScore(probabilities: p, outcomes: y)!], [e["brier"]!], relative: 1e-12, "Brier")
            expectClose([ForecastMetrics.expectedCalibrationError(probabilities: p, outcomes: y)!], [e["ece"]!], relative: 1e-12, absolute: 1e-15, "ECE")
            expectClose([ForecastMetrics.spearman(x, r)!], [e["spearman"]!], relative: 1e-12, absolute: 1e-15, "Spearman")
            let table = ForecastMetrics.reliability(probabilities: p, outcomes: y)
            let reference = bins.filter { $0["case"] == e["case"] }
            #expect(table.map(\.bin) == reference.map { Int($0["bin"]!) })
            #expect(table.map(\.count) == reference.map { Int($0["count"]!) })
            expectClose(table.map(\.meanConfidence), reference.map { $0["mean_confidence"]! }, relative: 1e-12, "mean confidence")
            expectClose(table.map(\.observedFrequency), reference.map { $0["observed_frequency"]! }, relative: 1e-12, "observed frequency")
        }
    }

    /// Spearman against ranks by counting (rank = 1 + #smaller + (#equal − 1)/2) and Pearson written out; ECE
    /// against a per-bin filter; Brier against its definition. Seeded random inputs with and without ties.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func matchesPlainImplementations(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let n = Int.random(in: 2...200, using: &rng)
        let ties = seed % 2 == 0
        func value() -> Double {
            let v = rng.nextGaussian()
            return ties ? (v * 2).rounded() / 2 : v
        }
        let x = (0..<n).map { _ in value() }
        let r = (0..<n).map { _ in value() }
        func ranks(_ v: [Double]) -> [Double] {
            v.map { a in 1 + Double(v.count(where: { $0 < a })) + Double(v.count(where: { $0 == a }) - 1) / 2 }
        }
        func corr(_ a: [Double], _ b: [Double]) -> Double? {
            let ma = a.reduce(0, +) / Double(a.count), mb = b.reduce(0, +) / Double(b.count)
            let cov = zip(a, b).map { ($0 - ma) * ($1 - mb) }.reduce(0, +)
            let va = a.map { ($0 - ma) * ($0 - ma) }.reduce(0, +), vb = b.map { ($0 - mb) * ($0 - mb) }.reduce(0, +)
            return va > 0 && vb > 0 ? cov / (va * vb).squareRoot() : nil
        }
        let mine = ForecastMetrics.spearman(x, r)
        let plain = corr(ranks(x), ranks(r))
        #expect((mine == nil) == (plain == nil))
        if let mine, let plain { #expect(abs(mine - plain) <= 1e-12) }

        let p = (0..<n).map { _ in Double.random(in: 0...1, using: &rng) }
        let y = p.map { Double.random(in: 0..<1, using: &rng) < $0 }
        let brier = zip(p, y).map { ($0 - ($1 ? 1 : 0)) * ($0 - ($1 ? 1 : 0)) }.reduce(0, +) / Double(n)
        #expect(abs(ForecastMetrics.brierScore(probabilities: p, outcomes: y)! - brier) <= 1e-15)
        var ece = 0.0
        for b in 0..<10 {
            let members = p.indices.filter { min(9, Int(p[$0] * 10)) == b }
            guard !members.isEmpty else { continue }
            let meanP = members.map { p[$0] }.reduce(0, +) / Double(members.count)
            let freq = Double(members.count(where: { y[$0] })) / Double(members.count)
            ece += Double(members.count) / Double(n) * abs(meanP - freq)
        }
        #expect(abs(ForecastMetrics.expectedCalibrationError(probabilities: p, outcomes: y)! - ece) <= 1e-12)
        #expect(ForecastMetrics.reliability(probabilities: p, outcomes: y).reduce(0) { $0 + $1.count } == n)
    }

    @Test func undefinedFiguresAreNil() {
        #expect(ForecastMetrics.hitRate([]) == nil)
        #expect(ForecastMetrics.brierScore(probabilities: [], outcomes: []) == nil)
        #expect(ForecastMetrics.expectedCalibrationError(probabilities: [], outcomes: []) == nil)
        #expect(ForecastMetrics.spearman([1, 1, 1], [1, 2, 3]) == nil)
        #expect(ForecastMetrics.spearman([1], [2]) == nil)
        #expect(ForecastMetrics.calibrationBin(1) == 9 && ForecastMetrics.calibrationBin(0) == 0)
    }

    /// The evaluation's model figures equal those recomputed by hand from the signals and prices.
    @Test func evaluationMatchesSignals() throws {
        let series = try googSeries()
        let config = SignalModelConfig()
        let e = try WalkForwardEvaluation.run([series], config: config)
        let signals = try SignalModel.evaluate(series, config: config)
        let h = config.horizon
        var p: [Double] = [], y: [Bool] = [], buy = 0, sell = 0, hold = 0
        for t in config.firstSignalIndex..<(series.count - h) {
            let s = signals[t]
            switch s.signalType {
            case .buy: buy += 1
            case .sell: sell += 1
            case .hold: hold += 1
            }
            guard s.signalType != .hold else { continue }
            let up = series.close[t + h] > series.close[t]
            let down = series.close[t + h] < series.close[t]
            p.append(s.confidence)
            y.append(s.signalType == .buy ? up : down)
        }
        #expect(e.model.buyCount == buy && e.model.sellCount == sell && e.model.holdCount == hold)
        #expect(e.evaluatedBars == series.count - h - config.firstSignalIndex)
        #expect(e.model.rightCount == y.count(where: { $0 }))
        #expect(e.model.brierScore == ForecastMetrics.brierScore(probabilities: p, outcomes: y))
        // Always-BUY: every evaluated bar is a BUY.
        let always = try #require(e.rules.first { $0.rule == .alwaysBuy })
        #expect(always.buyCount == e.evaluatedBars && always.sellCount == 0 && always.informationCoefficient == nil)
        #expect(e.rules.map(\.rule).first == .model)
    }

    @Test func tooShortIsAnError() throws {
        let series = try googSeries().prefix(100)
        #expect(throws: EvaluationError.self) { try WalkForwardEvaluation.run([series]) }
    }
}
