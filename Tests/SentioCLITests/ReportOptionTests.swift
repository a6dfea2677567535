import Foundation
import SentioTestSupport
import Testing



/// The `data-value` of the headline figure `key` in a report.
private func statValue(_ html: String, _ key: String) -> String? {
    guard let range = html.range(of: "data-stat=\"\(key)\" data-value=\"") else { return nil }
    return String(html[range.upperBound...].prefix { $0 != "\"" })
}

@Suite("--report PATH.html on sentio fund and sentio backtest")
struct ReportOptionTests {
    @Test("sentio fund --report writes the HTML report beside the JSON, with the same figures")
    func fundReport() async throws {
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("funds.html").path
        let run = try await runSentio(["fund", "Data/funds/events.csv", "--meta", "Data/funds/funds.csv",
                                          "--index", "Data/funds/index.csv", "--format", "json", "--report", path])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let summary = try #require(json["portfolioSummary"] as? [String: Any])
        let tvpi = try #require(summary["portfolioTvpi"] as? Double)
        let shown = try #require(statValue(html, "portfolioTvpi").flatMap(Double.init))
        expectClose(shown, tvpi, relative: 1e-12)
        let funds = try #require(json["funds"] as? [[String: Any]])
        for fund in funds {
            let id = try #require(fund["id"] as? String)
            #expect(html.contains("data-chart=\"jcurve-\(id)\""))
            #expect(html.contains("data-chart=\"nav-\(id)\""))
        }
        // Only the report is left in the directory (written via a temporary file and a rename).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["funds.html"])
    }

    @Test("An unwritable report path is a usage error (exit 2) naming the path")
    func unwritable() async throws {
        let run = try await runSentio(["fund", "Data/funds/events.csv", "--report", "/nonexistent-dir/r.html"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("/nonexistent-dir/r.html"))
    }

    @Test("sentio backtest --report: headline equals the JSON, every symbol charted, closed trades show signal levels")
    func backtestReport() async throws {
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("run.html").path
        let run = try await runSentio(["backtest", "--format", "json", "--report", path])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in ["finalEquity", "totalReturnPercent", "sharpeRatio", "maxDrawdownPercent", "exposurePercent"] {
            let expected = try #require(json[key] as? Double, "\(key) in JSON")
            let shown = try #require(statValue(html, key).flatMap(Double.init), "\(key) in report")
            expectClose(shown, expected, relative: 1e-12)
        }
        // Recording the levels for the report does not change the run.
        let plain = try await runSentio(["backtest", "--format", "json"])
        let plainJSON = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(plainJSON["finalEquity"] as? Double == json["finalEquity"] as? Double)
        #expect(plainJSON["tradeCount"] as? Int == json["tradeCount"] as? Int)
        let trades = try #require(json["tradeCount"] as? Int)
        #expect(trades > 0)
        #expect(statValue(html, "tradeCount") == "\(Double(trades))")
        for symbol in ["FAS", "FAZ", "LABD", "LABU", "SOXL", "SOXS", "SPXL", "SPXS", "SQQQ", "TNA", "TQQQ", "TZA"] {
            #expect(html.contains("data-chart=\"price-\(symbol)\""))
        }
        // The Sentio strategy's stops and targets come from its signals: every closed trade has both.
        let exits = html.components(separatedBy: "data-marker=\"exit\"").count - 1
        #expect(exits == trades)
        #expect(html.components(separatedBy: "data-level=\"stop\"").count - 1 >= trades)
        #expect(html.components(separatedBy: "data-level=\"target\"").count - 1 >= trades)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["run.html"])
    }

    @Test("--report and --trades on the same file is a usage error")
    func sameFile() async throws {
        let run = try await runSentio(["backtest", "--trades", "/tmp/x.csv", "--report", "/tmp/x.csv"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--report"))
    }

    @Test("A relative report path is written, and written again over an existing report")
    func relativePathReplaced() async throws {
        let name = ".build/report-option-test-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(at: repositoryRoot.appendingPathComponent(name)) }
        for asOf in ["2020-12-31", "2024-12-31"] {
            let run = try await runSentio(["fund", "Data/funds/events.csv", "--as-of", asOf, "--report", name])
            #expect(run.status == 0, "\(run.stderr)")
            let html = try String(contentsOf: repositoryRoot.appendingPathComponent(name), encoding: .utf8)
            #expect(html.contains("as of \(asOf)"))
        }
    }
}
