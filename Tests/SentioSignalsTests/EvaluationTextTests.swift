import Foundation
import SentioCore
import SentioTestSupport
import Testing

@testable import SentioSignals

/// `sentio evaluate`'s table states the sampling error of the ECE and says when the signals are too few.
@Suite struct EvaluationTextTests {
    /// Short and long seeded random series: the sampling line carries 0.5·√(2/(πn)) for the model's n scored
    /// signals, and "too few signals" appears exactly when that error is at least 0.05 (n < 64).
    @Test(arguments: [UInt64(81), 82, 83])
    func samplingLineAndTooFewSignals(seed: UInt64) throws {
        var shortSeen = false, longSeen = false
        for bars in [60, 70, 900] {
            let series = randomSeries(symbol: "X", bars: bars, seed: seed)
            let e = try WalkForwardEvaluation.run([series], config: CalibrationTests.fast)
            let n = e.model.scoredCount
            let text = EvaluationText.table(e, source: "x.csv")
            let error = 0.5 * (2 / (Double.pi * Double(n))).squareRoot()
            #expect(text.contains("on \(n) independent signals shows an ECE of about \(EvaluationText.fixed(error, 3))"))
            #expect(text.contains("too few signals") == (n < 64), "n = \(n)")
            #expect(text.contains("more where outcomes overlap") == (n >= 64), "n = \(n)")
            if n < 64 { shortSeen = true } else { longSeen = true }
        }
        #expect(shortSeen && longSeen, "the series lengths must cover both cases")
    }
}
