import Foundation
import SentioTestSupport
import Testing

/// `sentio indicators --only/--set/--list` (issue 34): columns named by TA-Lib's functions and outputs, settings
/// applied, today's columns unchanged without `--only`, bad requests exit 2 with the reason.
@Suite("sentio indicators: TA-Lib functions")
struct TAFunctionsCLITests {
    let goog = fixturePath("evaluate/GOOG.csv")

    @Test func onlyAndSetNameTheColumnsAndChangeTheValues() async throws {
        let base = try await runSentio(["indicators", goog, "--only", "macd,bbands,stoch"])
        #expect(base.status == 0, "\(base.stderr)")
        let lines = base.stdout.split(separator: "\n")
        #expect(lines.first == "timestamp,open,high,low,close,volume,macd_macd,macd_macdsignal,macd_macdhist,bbands_upperband,bbands_middleband,bbands_lowerband,stoch_slowk,stoch_slowd")
        #expect(lines.count == 2149)
        // MACD's first value at its lookback (33): row 34 has it, row 33 does not.
        #expect(lines[33].split(separator: ",", omittingEmptySubsequences: false)[6].isEmpty)
        #expect(!lines[34].split(separator: ",", omittingEmptySubsequences: false)[6].isEmpty)
        let set = try await runSentio(["indicators", goog, "--only", "macd,bbands,stoch", "--set", "macd.fastperiod=8", "--set", "bbands.nbdevup=2.5"])
        #expect(set.status == 0)
        let a = lines[100].split(separator: ","), b = set.stdout.split(separator: "\n")[100].split(separator: ",")
        #expect(a[6] != b[6], "macd changed with fastperiod")
        #expect(a[9] != b[9], "upper band changed with nbdevup")
        #expect(a[11] == b[11], "lower band unchanged")
    }

    @Test func badRequestsExitTwoWithAReason() async throws {
        for (arguments, reason) in [
            (["--only", "nope"], "unknown TA-Lib function"), (["--only", "macd", "--set", "macd.period=3"], "no parameter 'period'"),
            (["--only", "macd", "--set", "macd.fastperiod=x"], "is not a number"), (["--only", "macd", "--set", "macd.fastperiod=1"], "must be from 2"),
            (["--set", "macd.fastperiod=8"], "--only"), (["--only", "bbands", "--set", "bbands.matype=8"], "must be from 0 to 6"),
        ] {
            let run = try await runSentio(["indicators", goog] + arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(reason), "\(arguments): \(run.stderr)")
        }
    }

    @Test func listShowsEveryFunction() async throws {
        let run = try await runSentio(["indicators", "--list"])
        #expect(run.status == 0)
        for name in ["MACD:", "BBANDS:", "STOCH:", "ADX:", "LINEARREG_SLOPE:", "BETA:"] { #expect(run.stdout.contains(name)) }
        #expect(run.stdout.contains("parameters: fastperiod=12 [2…100000]; slowperiod=26 [2…100000]; signalperiod=9 [1…100000]"))
    }
}
