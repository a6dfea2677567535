import AsyncHTTPClient
import Foundation
import NIOCore
import SentioTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `sentio serve` with issue 28's market-file options (a child process): `--replay` reads whole files as `sentio
/// signals` does, so with `--actions` the session runs on split-adjusted prices with the dividends in cash and serves
/// the portfolio `sentio backtest --adjust splits --actions` computes; bar-by-bar feeds refuse the whole-file modes.
@Suite("serve with market files", .serialized)
struct ServeMarketFilesTests {
    static let folder = fixturePath("market_files")

    @Test("--replay with --actions serves backtest --adjust splits --actions' portfolio")
    func replayWithActions() async throws {
        let directory = try temporaryDirectory("serve-replay-actions")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.folder + "/AAPL.csv", toPath: data.appendingPathComponent("AAPL.csv").path)
        let actions = Self.folder + "/AAPL_actions.csv"
        let portfolioFile = directory.appendingPathComponent("portfolio.json").path
        let backtest = try await runSentio([
            "backtest", data.path, "--strategy", "buy-and-hold", "--adjust", "splits", "--actions", actions, "--portfolio", portfolioFile,
        ])
        #expect(backtest.status == 0, "\(backtest.stderr)")
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: portfolioFile))) as? NSDictionary

        let db = directory.appendingPathComponent("s.sqlite").path
        let (process, _, stderr) = try startSentio([
            "serve", "--db", db, "--port", "0", "--replay", data.path, "--speed", "max", "--strategy", "buy-and-hold",
            "--actions", actions,
        ])
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        try await pollUntil("sentio serve never printed its ready line", interval: .milliseconds(50),
                            failFast: { process.isRunning ? nil : "sentio serve exited: \(text)" }) {
            text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            return text.contains("sentio serve: listening on http://")
        }
        #expect(text.contains("note: price adjustment: splits (2 split(s) from"), "\(text)")
        let line = text.split(separator: "\n").first { $0.hasPrefix("sentio serve: listening on http://") }!
        let port = Int(line.split(separator: ":").last!)!
        var served: NSDictionary?
        try await pollUntil("the replay never reached the backtest's portfolio (last: \(String(describing: served)))", interval: .milliseconds(100)) {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/portfolio"), timeout: .seconds(300))  // a hang guard
            let body = try await response.body.collect(upTo: 16 << 20)
            guard response.status == .ok else { return false }
            served = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? NSDictionary
            return served == expected
        }
        kill(process.processIdentifier, SIGTERM)
        await exited(process)
        #expect(process.terminationStatus == 0)
    }

    @Test("--follow and POST feeds refuse --adjust total/splits; --replay refuses a split it cannot explain")
    func optionErrors() async throws {
        let directory = try temporaryDirectory("serve-market-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("s.sqlite").path
        let follow = try await runSentio(["serve", "--db", db, "--port", "0", "--follow", directory.path, "--adjust", "splits"])
        #expect(follow.status == 2 && follow.stderr.contains("one at a time"), "\(follow.stderr)")
        let zone = try await runSentio(["serve", "--db", db, "--port", "0", "--symbols", "AAPL", "--timezone", "America/New_York"])
        #expect(zone.status == 2 && zone.stderr.contains("--follow"), "\(zone.stderr)")
        // The unadjusted AAPL file without its adjusted close: the replay's reader refuses the 2-for-1 of 2000-06-21.
        let data = directory.appendingPathComponent("raw")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: Self.folder + "/AAPL.csv", encoding: .utf8)
        let raw = text.split(separator: "\n").map { $0.split(separator: ",").prefix(6).joined(separator: ",") }.joined(separator: "\n")
        try Data(raw.utf8).write(to: data.appendingPathComponent("AAPL.csv"))
        let split = try await runSentio(["serve", "--db", db, "--port", "0", "--replay", data.path])
        #expect(split.status == 2 && split.stderr.contains("2-for-1 split"), "\(split.stderr)")
    }
}
