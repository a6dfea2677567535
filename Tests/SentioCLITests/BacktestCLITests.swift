import Foundation
import SentioTestSupport
import Testing

/// End-to-end tests of `sentio backtest`: the built executable is run as a subprocess.
@Suite("sentio backtest CLI")
struct BacktestCLITests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }


    static func sentio(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        try await sentioCommand(["backtest"] + arguments, in: directory)
    }

    static func sentioCommand(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        let run = try await runSentio(arguments, in: directory)
        return Run(status: run.status, stdout: run.stdout, stderr: run.stderr)
    }

    /// Writes `symbols` seeded random-walk daily CSVs (weekdays from 2023-01-02) into `directory`.
    static func writeMarket(_ directory: URL, symbols: [String] = ["AAA", "BBB", "CCC"], bars: Int = 260, seed: UInt64 = 7) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var rng = SplitMix64(seed: seed)
        for (k, symbol) in symbols.enumerated() {
            var text = "timestamp,open,high,low,close,volume\n"
            var price = 40.0 + 15 * Double(k)
            var day = 19_359  // 2023-01-02, a Monday
            for _ in 0..<bars {
                while (day + 3) % 7 >= 5 { day += 1 }
                let open = price * exp(0.004 * rng.nextGaussian())
                let close = open * exp(0.03 * rng.nextGaussian())
                let high = max(open, close) * 1.01, low = min(open, close) * 0.99
                let date = Self.isoDate(day)
                text += "\(date),\(String(format: "%.4f", open)),\(String(format: "%.4f", high)),\(String(format: "%.4f", low)),\(String(format: "%.4f", close)),1000\n"
                price = close
                day += 1
            }
            try text.write(to: directory.appendingPathComponent("\(symbol).csv"), atomically: true, encoding: .utf8)
        }
    }

    static func isoDate(_ days: Int) -> String {
        // Civil-from-days (Hinnant), kept local so the test does not rely on the code under test.
        let z = days + 719_468
        let era = z / 146_097, doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02d", y, m, d)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func csvRows(_ url: URL) throws -> [[String]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    static let summaryKeys = [
        "initialCapital", "finalEquity", "totalReturnPercent", "cagrPercent", "annualizedVolatilityPercent", "sharpeRatio",
        "sortinoRatio", "calmarRatio", "maxDrawdownPercent", "maxDrawdownDurationBars", "maxDrawdownDurationDays", "tradeCount",
        "openPositionCount", "winRatePercent", "profitFactor", "averageTradePercent", "bestTradePercent", "worstTradePercent",
        "averageHoldingBars", "averageHoldingDays", "exposurePercent", "commissionsPaid", "sqn", "totalContributions",
        "timeWeightedReturnPercent", "moneyWeightedReturnPercent", "orderCount", "rejectedOrderCount", "config", "conventions",
    ]

    @Test("--format json: camelCase statistics plus config and conventions")
    func jsonKeys() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir)
        let run = try await Self.sentio([dir.path, "--strategy", "rsi", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let j = try Self.json(run.stdout)
        for key in Self.summaryKeys { #expect(j.keys.contains(key), "missing \(key)") }
        #expect(j["initialCapital"] as? Double == 100_000)
        let final = try #require(j["finalEquity"] as? Double)
        let total = try #require(j["totalReturnPercent"] as? Double)
        expectClose(final, 100_000 * (1 + total / 100), relative: 1e-9)
        #expect((j["symbols"] as? [String]) == ["AAA", "BBB", "CCC"])
        let config = try #require(j["config"] as? [String: Any])
        #expect(config["strategy"] as? String == "rsi")
        #expect(config["fill"] as? String == "next-open")
        #expect(config["sizing"] as? String == "equal-weight")
        #expect(config["maxPositions"] as? Int == 3)
        #expect(config["commissionRate"] as? Double == 0.001)
        #expect(config["rsiPeriod"] as? Int == 14)
        let conventions = try #require(j["conventions"] as? [String: Any])
        #expect(conventions["periodsPerYear"] as? Double == 252)
        #expect(conventions["riskFreeRate"] as? Double == 0)
        #expect(conventions["ddof"] as? Int == 1)
        #expect((j["tradeCount"] as? Int ?? 0) > 0)
    }

    @Test("table output is the default and names every statistic")
    func table() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir)
        let run = try await Self.sentio([dir.path, "--strategy", "buy-and-hold"])
        #expect(run.status == 0, "\(run.stderr)")
        for label in ["Initial capital", "Final equity", "Total return", "CAGR", "Sharpe ratio", "Sortino ratio", "Calmar ratio",
                      "Max drawdown", "Win rate", "Profit factor", "Exposure", "Commissions paid", "SQN", "Conventions:"] {
            #expect(run.stdout.contains(label), "missing \(label)")
        }
        #expect(run.stderr.isEmpty)  // no progress bar when stderr is not a terminal
    }

    @Test("without PATH: Data/market under the current directory, or a clear error")
    func defaultData() async throws {
        let root = try temporaryDirectory()
        try Self.writeMarket(root.appendingPathComponent("Data/market"))
        let run = try await Self.sentio(["--strategy", "rsi", "--format", "json"], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        let j = try Self.json(run.stdout)
        #expect((j["symbols"] as? [String])?.count == 3)
        let empty = try temporaryDirectory()
        let missing = try await Self.sentio(["--strategy", "rsi"], in: empty)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Data/market"))
    }

    @Test("--trades, --equity and --portfolio files: content consistent with the run")
    func outputFiles() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir.appendingPathComponent("data"))
        let trades = dir.appendingPathComponent("trades.csv"), equity = dir.appendingPathComponent("equity.csv")
        let portfolio = dir.appendingPathComponent("portfolio.json")
        let run = try await Self.sentio([
            dir.appendingPathComponent("data").path, "--strategy", "rsi", "--format", "json", "--commission", "0.002",
            "--trades", trades.path, "--equity", equity.path, "--portfolio", portfolio.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let j = try Self.json(run.stdout)
        let final = try #require(j["finalEquity"] as? Double)

        // Trades: the Trade contract's columns (id first), then commission and exitReason; one row per closed
        // trade, pnl = shares (exit − entry) − commission. (Changed by issue 12: was symbol-first without id.)
        let t = try Self.csvRows(trades)
        #expect(t[0] == ["id", "symbol", "entryPrice", "exitPrice", "shares", "entryTime", "exitTime", "pnl", "pnlPercent", "signalType", "commission", "exitReason"])
        #expect(t.count - 1 == j["tradeCount"] as? Int)
        var realized = 0.0
        for row in t.dropFirst() {
            let entry = Double(row[2])!, exit = Double(row[3])!, shares = Double(row[4])!, pnl = Double(row[7])!
            let pct = Double(row[8])!, commission = Double(row[10])!
            #expect(Int(row[4]) != nil && UUID(uuidString: row[0]) != nil)
            expectClose(pnl, shares * (exit - entry) - commission, relative: 1e-9)
            expectClose(pct, pnl / (shares * entry) * 100, relative: 1e-9)
            expectClose(commission, 0.002 * shares * (entry + exit), relative: 1e-9)
            #expect(row[9] == "BUY" && ["signal", "stop-loss", "take-profit"].contains(row[11]))
            #expect(row[5] < row[6] && row[5].hasSuffix("Z"))
            realized += pnl
        }
        // Portfolio: the GET /portfolio shape.
        let p = try Self.json(String(contentsOf: portfolio, encoding: .utf8))
        #expect(Set(p.keys) == ["initialCapital", "currentValue", "cashBalance", "totalPnL", "totalPnLPercent", "dayPnL", "dayPnLPercent", "positions", "recentTrades", "trades"])
        #expect(p["initialCapital"] as? Double == 100_000)
        expectClose(p["currentValue"] as? Double ?? .nan, final, relative: 1e-12)
        expectClose(p["totalPnL"] as? Double ?? .nan, final - 100_000, relative: 1e-9)
        let positions = try #require(p["positions"] as? [[String: Any]])
        #expect(positions.count == j["openPositionCount"] as? Int)
        var marked = p["cashBalance"] as? Double ?? .nan
        var unrealized = 0.0
        for position in positions {
            // The Position contract (issue 12): pnl and pnlPercent added, shares an integer, id a UUID.
            #expect(Set(position.keys) == ["id", "symbol", "entryPrice", "currentPrice", "shares", "entryTime", "pnl", "pnlPercent"])
            let shares = (position["shares"] as! NSNumber).doubleValue, current = position["currentPrice"] as! Double
            let entry = position["entryPrice"] as! Double
            expectClose((position["pnl"] as! NSNumber).doubleValue, shares * (current - entry), relative: 1e-9, absolute: 1e-9)
            marked += shares * current
            unrealized += shares * (current - entry) - 0.002 * shares * entry
        }
        expectClose(marked, final, relative: 1e-9)
        expectClose(100_000 + realized + unrealized, final, relative: 1e-9)
        let recent = try #require(p["recentTrades"] as? [[String: Any]])
        #expect(recent.count == min(50, t.count - 1))
        for trade in recent {
            #expect(Set(trade.keys) == ["id", "symbol", "entryPrice", "exitPrice", "shares", "entryTime", "exitTime", "pnl", "pnlPercent", "signalType"])
        }
        #expect(Set(recent.map { $0["id"] as! String }).count == recent.count)
        // `trades`: every closed trade (the trade log's rows), each with the same shape; the recent ones among them.
        let all = try #require(p["trades"] as? [[String: Any]])
        #expect(all.count == t.count - 1)
        #expect(Set(recent.map { $0["id"] as! String }).isSubset(of: Set(all.map { $0["id"] as! String })))
        if let newest = recent.first, let last = t.last { #expect(newest["exitTime"] as? String == last[6] && newest["id"] as? String == last[0]) }
        // Equity: one row per bar; equity = cash + positions; the last row is the final equity.
        let e = try Self.csvRows(equity)
        #expect(e[0] == ["timestamp", "equity", "cash", "positionsValue", "contribution", "drawdownPercent"])
        #expect(e.count - 1 == 260)
        for row in e.dropFirst() {
            expectClose(Double(row[1])!, Double(row[2])! + Double(row[3])!, relative: 1e-9, absolute: 1e-6)
            #expect(Double(row[2])! >= 0 && Double(row[5])! <= 0)
        }
        expectClose(Double(e.last![1])!, final, relative: 1e-12)
        // Daily bars: the day's P&L is against the previous bar's equity.
        let previous = Double(e[e.count - 2][1])!
        expectClose(p["dayPnL"] as? Double ?? .nan, final - previous, relative: 1e-9, absolute: 1e-9)
        expectClose(p["dayPnLPercent"] as? Double ?? .nan, (final - previous) / previous * 100, relative: 1e-9, absolute: 1e-12)
        let worst = e.dropFirst().map { Double($0[5])! }.min()!
        expectClose(worst, j["maxDrawdownPercent"] as? Double ?? .nan, relative: 1e-9)
        // Atomic writes leave nothing else behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["data", "equity.csv", "portfolio.json", "trades.csv"])
    }

    @Test("dca deposits from zero and reports time-weighted beside total return")
    func dca() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir)
        let run = try await Self.sentio([dir.path, "--strategy", "dca", "--amount", "900", "--every", "month", "--fractional", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let j = try Self.json(run.stdout)
        #expect(j["initialCapital"] as? Double == 0)
        // 260 weekdays from Monday 2023-01-02 end on Friday 2023-12-29: 12 monthly deposits.
        #expect(j["totalContributions"] as? Double == 10_800.0)
        #expect(j["tradeCount"] as? Int == 0)
        #expect(j["openPositionCount"] as? Int == 3)
        #expect(j["timeWeightedReturnPercent"] is Double)
        // Money-weighted (XIRR): same sign as the gain on the deposits.
        let mwr = try #require(j["moneyWeightedReturnPercent"] as? Double)
        let gain = (j["finalEquity"] as? Double ?? .nan) - 10_800
        #expect(mwr.sign == gain.sign)
        let config = try #require(j["config"] as? [String: Any])
        #expect(config["every"] as? String == "month" && config["amount"] as? Double == 900)
    }

    @Test("bad input: clear message, exit code 2, no output file written",
          arguments: [
            (["--strategy", "momentum"], "momentum"),
            (["--symbols", "AAA,ZZZ"], "ZZZ"),
            (["--capital", "0"], "--capital"),
            (["--capital", "-5"], "--capital"),
            (["--commission", "-0.001"], "--commission"),
            (["--fraction", "0.5"], "--sizing fraction"),
            (["--sizing", "fraction"], "--fraction"),
            (["--sizing", "all-in", "--max-positions", "3"], "--max-positions"),
            (["--strategy", "buy-and-hold", "--rsi-lower", "20"], "--rsi"),
            (["--strategy", "dca", "--capital", "1000"], "--capital"),
            (["--strategy", "rsi", "--amount", "100"], "--amount"),
            (["--rsi-lower", "80"], "--rsi-lower"),
            (["--fill", "tomorrow"], "tomorrow"),
            (["--label", "x"], "--save"),
          ])
    func badOptions(arguments: [String], expected: String) async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir.appendingPathComponent("data"))
        let out = dir.appendingPathComponent("trades.csv")
        let run = try await Self.sentio([dir.appendingPathComponent("data").path, "--trades", out.path] + arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("bad data: missing path, directory without CSV, a malformed file names file and line")
    func badData() async throws {
        let dir = try temporaryDirectory()
        let missing = try await Self.sentio([dir.appendingPathComponent("nope").path])
        #expect(missing.status == 2 && missing.stderr.contains("nope"))
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let noCSV = try await Self.sentio([empty.path])
        #expect(noCSV.status == 2 && noCSV.stderr.contains(empty.path))
        let bad = dir.appendingPathComponent("BAD.csv")
        try "timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,10\n2024-01-03,1,2,0.5,oops,10\n".write(to: bad, atomically: true, encoding: .utf8)
        let malformed = try await Self.sentio([bad.path])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("BAD.csv") && malformed.stderr.contains("3"), "\(malformed.stderr)")
    }

    @Test("the default strategy is sentio, the signal model; its config is recorded")
    func sentioStrategy() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir, bars: 400)
        let run = try await Self.sentio([dir.path, "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let j = try Self.json(run.stdout)
        #expect(j["strategy"] as? String == "sentio")
        let config = try #require(j["config"] as? [String: Any])
        #expect(config["strategy"] as? String == "sentio")
        let model = try #require(config["signalModel"] as? [String: Any])
        #expect(model["horizon"] as? Int == 5 && model["regressionWindow"] as? Int == 120)
        #expect(config["rsiPeriod"] is NSNull)
    }

    @Test("--save stores the run, its trades and equity curve; `sentio runs show` reads them back")
    func save() async throws {
        let dir = try temporaryDirectory()
        try Self.writeMarket(dir.appendingPathComponent("data"))
        let db = dir.appendingPathComponent("runs.sqlite").path
        let run = try await Self.sentio([
            dir.appendingPathComponent("data").path, "--strategy", "rsi", "--format", "json", "--save", "--db", db, "--label", "cli test",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("saved run 1"))
        let j = try Self.json(run.stdout)
        let show = try await Self.sentioCommand(["runs", "show", "1", "--db", db, "--format", "json"])
        #expect(show.status == 0, "\(show.stderr)")
        let stored = try Self.json(show.stdout)
        #expect(stored["strategy"] as? String == "rsi" && stored["label"] as? String == "cli test")
        let statistics = try #require(stored["statistics"] as? [String: Any])
        #expect(statistics["tradeCount"] as? Int == j["tradeCount"] as? Int)
        expectClose(statistics["finalEquity"] as? Double ?? .nan, j["finalEquity"] as? Double ?? 0, relative: 1e-12)
        // The saved statistics are the printed summary, config included (issue 12: the same bytes).
        #expect(statistics["config"] != nil && statistics["conventions"] != nil)
        let config = try #require(stored["config"] as? [String: Any])
        #expect(config["strategy"] as? String == "rsi" && config["rsiPeriod"] as? Int == 14)
        let trades = try #require(stored["trades"] as? [[String: Any]])
        #expect(trades.count == (j["tradeCount"] as? Int ?? -1) + (j["openPositionCount"] as? Int ?? -1))
        #expect((stored["equity"] as? [[String: Any]])?.count == 260)
        // Same bytes: the `statistics` object of `runs show` (one level deeper, so indented by two more spaces)
        // is, line for line, what `backtest --format json` printed; `runs list` holds the same object.
        #expect(Self.subObject("statistics", of: show.stdout) == run.stdout)
        let list = try await Self.sentioCommand(["runs", "list", "--db", db, "--format", "json"])
        #expect(list.status == 0, "\(list.stderr)")
        let body = run.stdout.split(separator: "\n").dropFirst().map { "      " + $0 }.joined(separator: "\n")
        #expect(list.stdout.contains("      \"statistics\": {\n" + body))
    }

    /// The value of top-level `key` in pretty-printed JSON, re-indented as a document of its own (final newline).
    static func subObject(_ key: String, of text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "  \"\(key)\": {") else { return nil }
        guard let end = lines[(start + 1)...].firstIndex(where: { $0 == "  }" || $0 == "  }," }) else { return nil }
        let inner = lines[(start + 1)..<end].map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }
        return (["{"] + inner + ["}"]).joined(separator: "\n") + "\n"
    }
}
