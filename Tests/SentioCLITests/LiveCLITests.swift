import Foundation
import SentioAPI
import SentioTestSupport
import Testing

@testable import Sentio

#if canImport(Glibc)
import Glibc
#endif

// `sentio live` in real child processes: SIGKILL at random moments and resume, bad bars, configuration changes,
// `generate --format ndjson | live`, --follow. Final states are compared as `live show` prints them (the exact
// engine snapshot, the portfolio and the trade history) and against `Backtest.run` on the same bars and options.

/// Runs `sentio arguments...` to completion with `text` on standard input.
func runLive(_ arguments: [String], input text: String) async throws -> SentioRun {
    let file = try temporaryDirectory("sentio-live-input").appendingPathComponent("feed.ndjson")
    try Data(text.utf8).write(to: file)
    return try await runSentio(arguments, stdin: file)
}

/// A generated minute market and its NDJSON feed lines, in timeline order.
func liveMarket(symbols: Int, bars: Int, seed: UInt64) throws -> (series: [OHLCVSeries], lines: [String]) {
    let config = MarketConfig(
        symbols: MarketConfig.firstSymbols(symbols), bars: bars, frequency: .minute, seed: seed,
        start: CivilDate(iso: "2024-01-02")!)
    let series = try MarketGenerator(config: config).generate()
    var writer = ByteWriter()
    NDJSONBars.encode(timeline: series, into: &writer)
    let lines = String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n").map { String($0) + "\n" }
    return (series, lines)
}

/// What `live show` prints for a store: the snapshot bytes, the portfolio and the trade history.
struct LiveFinalState: Equatable {
    var snapshot: String
    var portfolio: String
    var trades: String

    init(db: String) async throws {
        func show(_ item: String) async throws -> String {
            let run = try await runSentio(["live", "show", item, "--db", db])
            #expect(run.status == 0, "live show \(item): \(run.stderr)")
            return run.stdout
        }
        snapshot = try await show("snapshot")
        portfolio = try await show("portfolio")
        trades = try await show("trades")
    }
}

@Suite("sentio live", .serialized)
struct LiveCLITests {
    static let rsiOptions = ["--strategy", "rsi", "--rsi-period", "5", "--step-timeout", "0"]

    /// The backtest on the same bars and options (RSI 5, 30/70, $100,000, commission 0.001, equal weight over
    /// all symbols, next-open fills), as the contracts print it.
    static func backtestState(_ series: [OHLCVSeries]) throws -> (portfolio: String, trades: String) {
        let configuration = BacktestConfiguration(
            initialCapital: 100_000, fill: .nextOpen, costs: TradingCosts(commissionRate: 0.001),
            sizing: .equalWeight(maxPositions: series.count))
        let result = try Backtest(configuration).run(RSIStrategy(period: 5, lower: 30, upper: 70), on: try Market(series))
        return (
            try APIJSON.encode(BacktestContracts.portfolio(result, recentTrades: 10, exchangeTimeZone: .newYork)),
            try APIJSON.encode(BacktestContracts.tradeHistory(result))
        )
    }

    static func committedInputs(_ db: String) throws -> Int64 {
        try LiveJournal(database: try SentioDatabase(path: db, mode: .existingOnly)).lastInputSeq
    }

    /// Seeded: 24 SIGKILLs at random moments while the feed streams through a pipe; after each, the feed is sent
    /// again from a random point at or before the last committed bar (as a reconnecting feed does). The final
    /// state equals an uninterrupted run's, bit for bit, and the backtest's.
    @Test func killedAndResumedRunsEndInTheUninterruptedState() async throws {
        signal(SIGPIPE, SIG_IGN)
        var rng = SplitMix64(seed: 0x5EED_1313)
        let (series, lines) = try liveMarket(symbols: 3, bars: 240, seed: 11)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let arguments = ["live", "--symbols", symbols] + Self.rsiOptions + ["--snapshot-interval", "97"]

        let baselineDB = try temporaryDirectory("live-baseline").appendingPathComponent("s.sqlite").path
        let baseline = try await runLive(arguments + ["--db", baselineDB], input: lines.joined())
        #expect(baseline.status == 0, "\(baseline.stderr)")
        let expected = try await LiveFinalState(db: baselineDB)

        let db = try temporaryDirectory("live-killed").appendingPathComponent("s.sqlite").path
        var resumeFrom = 0
        var committed: Int64 = 0
        var kills = 0
        var progressed = Set<Int64>()
        while kills < 24 {
            let pipe = Pipe()
            let (process, stdout, _) = try startSentio(arguments + ["--db", db], input: pipe)
            // The rest of the feed is written from another thread in random pieces with random pauses while this
            // thread kills the process after a random delay: the kill lands anywhere from start-up to the middle of
            // a group commit.
            // Each run is sent up to a random point past what is committed, so the session advances step by step.
            let end = min(lines.count, Int(committed) + 1 + Int(rng.next() % UInt64(lines.count / 4)))
            let bytes = Array(lines[resumeFrom..<end].joined().utf8)
            var pieces: [(Range<Int>, UInt32)] = []
            var position = 0
            while position < bytes.count {
                let size = min(bytes.count - position, 1 + Int(rng.next() % 512))
                pieces.append((position..<(position + size), UInt32(rng.next() % 2_000)))
                position += size
            }
            let plan = pieces
            let writer = pipe.fileHandleForWriting
            let written = DispatchSemaphore(value: 0)
            let writing = Thread {
                for (range, pause) in plan {
                    do { try writer.write(contentsOf: bytes[range]) } catch { break }
                    if pause > 0 { usleep(pause) }
                }
                written.signal()
            }
            writing.start()
            if rng.next() % 3 == 0 {
                usleep(UInt32(rng.next() % 400_000))  // a random time: often during start-up
            } else {
                // A random point of progress: once the events published (after their commit) reach a random share
                // of what the whole feed publishes, so the kill lands while later input is being read and committed.
                let remaining = baseline.stdout.utf8.count * (end - Int(committed)) / lines.count
                let target = Int(rng.next() % UInt64(max(1, remaining)))
                let deadline = Date().addingTimeInterval(3)
                while process.isRunning, Date() < deadline,
                    ((try? FileManager.default.attributesOfItem(atPath: stdout.path)[.size] as? Int) ?? 0) < target
                {
                    usleep(500)
                }
            }
            kill(process.processIdentifier, SIGKILL)
            await exited(process)
            try? pipe.fileHandleForReading.close()  // no reader left: a blocked write fails (EPIPE) and the thread ends
            written.wait()
            try? pipe.fileHandleForWriting.close()
            #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 0)
            kills += 1
            committed = try FileManager.default.fileExists(atPath: db) ? Self.committedInputs(db) : 0
            progressed.insert(committed)
            // Re-send from a random earlier point: at or before the last committed (acknowledged) bar.
            resumeFrom = Int(rng.next() % UInt64(committed + 1))
        }
        // The last run sends the rest of the feed and reaches its end.
        let last = try await runLive(arguments + ["--db", db], input: lines[resumeFrom...].joined())
        #expect(last.status == 0, "\(last.stderr)")
        #expect(progressed.subtracting([0, Int64(lines.count)]).count >= 3, "the kills should land at many different points: \(progressed.sorted())")
        let final = try await LiveFinalState(db: db)
        #expect(final == expected)
        let backtest = try Self.backtestState(series)
        #expect(final.portfolio == backtest.portfolio)
        #expect(final.trades == backtest.trades)
    }

    /// Pipelining (the journal's commit of one chunk overlapping the next chunk's ingest) changes only when events are
    /// written, never which or in what order: seeded feeds (with duplicate, conflicting, late and malformed lines)
    /// delivered whole from a file and through a pipe in random pieces with random pauses give stdout byte for
    /// byte equal to `--no-pipelining` reading the file, and the same final state. A run whose input pipe stays
    /// open stops cleanly on SIGTERM with every event written.
    @Test func pipelinedOutputIsTheSynchronousOutput() async throws {
        signal(SIGPIPE, SIG_IGN)
        var rng = SplitMix64(seed: 0x13_91BE_11AE)
        for round in 0..<2 {
            let (series, clean) = try liveMarket(symbols: 3, bars: 300, seed: 31 + UInt64(round))
            var lines = clean
            // Bad lines at random places: re-sent bars (duplicates, or conflicting with a changed volume), malformed.
            for _ in 0..<12 {
                let at = 1 + Int(rng.next() % UInt64(lines.count - 1))
                let earlier = clean[Int(rng.next() % UInt64(at))]
                switch rng.next() % 3 {
                case 0: lines.insert(earlier, at: at)
                case 1: lines.insert(earlier.replacingOccurrences(of: "\"volume\":", with: "\"volume\":9"), at: at)
                default: lines.insert("{\"symbol\":\"\(series[0].symbol)\",\"open\":1}\n", at: at)
                }
            }
            let feed = Array(lines.joined().utf8)
            let symbols = series.map(\.symbol).joined(separator: ",")
            let arguments = ["live", "--symbols", symbols] + Self.rsiOptions + ["--snapshot-interval", "53"]
            let dir = try temporaryDirectory("live-pipelined")
            let referenceDB = dir.appendingPathComponent("reference.sqlite").path
            let reference = try await runLive(arguments + ["--db", referenceDB, "--no-pipelining"], input: String(decoding: feed, as: UTF8.self))
            #expect(reference.status == 0, "\(reference.stderr)")
            #expect(reference.stdout.contains("\"type\": \"fill\""), "the feed should trade")
            #expect(reference.stdout.contains("\"reason\": \"conflicting-bar\""))
            #expect(reference.stdout.contains("\"reason\": \"malformed-line\""))
            let expected = try await LiveFinalState(db: referenceDB)

            let fromFileDB = dir.appendingPathComponent("file.sqlite").path
            let fromFile = try await runLive(arguments + ["--db", fromFileDB], input: String(decoding: feed, as: UTF8.self))
            #expect(fromFile.status == 0, "\(fromFile.stderr)")
            #expect(fromFile.stdout == reference.stdout)
            await #expect(try LiveFinalState(db: fromFileDB) == expected)

            for run in 0..<3 {
                let db = dir.appendingPathComponent("pipe\(run).sqlite").path
                let pipe = Pipe()
                let (process, stdout, stderr) = try startSentio(arguments + ["--db", db], input: pipe)
                let maxPiece = [64, 1_024, 70_000][run]
                var pieces: [(Range<Int>, UInt32)] = []
                var position = 0
                while position < feed.count {
                    let size = min(feed.count - position, 1 + Int(rng.next() % UInt64(maxPiece)))
                    pieces.append((position..<(position + size), rng.next() % 4 == 0 ? UInt32(rng.next() % 3_000) : 0))
                    position += size
                }
                let writer = pipe.fileHandleForWriting
                for (range, pause) in pieces {
                    try writer.write(contentsOf: feed[range])
                    if pause > 0 { usleep(pause) }
                }
                let keepOpen = run == 2
                if keepOpen {
                    // The input stays open: once everything is written out, SIGTERM ends the run cleanly.
                    let deadline = Date().addingTimeInterval(60)
                    while process.isRunning, Date() < deadline,
                        ((try? FileManager.default.attributesOfItem(atPath: stdout.path)[.size] as? Int) ?? 0) < reference.stdout.utf8.count
                    {
                        try await Task.sleep(for: .milliseconds(2))  // a hang guard; the pool thread stays free
                    }
                    kill(process.processIdentifier, SIGTERM)
                } else {
                    try writer.close()
                }
                await exited(process)
                if keepOpen { try writer.close() }
                let errors = String(decoding: try Data(contentsOf: stderr), as: UTF8.self)
                #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(errors)")
                #expect(String(decoding: try Data(contentsOf: stdout), as: UTF8.self) == reference.stdout, "round \(round), run \(run)")
                await #expect(try LiveFinalState(db: db) == expected)
            }
        }
    }

    /// Duplicate bars are no-ops; a conflicting bar is rejected and never replaces the stored one; a late bar is
    /// rejected; malformed lines are rejected naming their line; the session ends as if the bad lines were absent.
    @Test func duplicateConflictingLateAndMalformedBars() async throws {
        let (series, lines) = try liveMarket(symbols: 2, bars: 60, seed: 5)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let arguments = ["live", "--symbols", symbols] + Self.rsiOptions
        let cleanDB = try temporaryDirectory("live-clean").appendingPathComponent("s.sqlite").path
        #expect(try await runLive(arguments + ["--db", cleanDB], input: lines.joined()).status == 0)

        var feed = Array(lines[0..<40])
        feed.append(lines[10])  // line 41: a duplicate of a stored bar
        let conflicting = lines[12].replacingOccurrences(of: "\"volume\":", with: "\"volume\":1")  // line 42
        #expect(conflicting != lines[12])
        feed.append(conflicting)
        // Line 43: a bar older than the current step whose symbol and time were never stored.
        feed.append(#"{"symbol":"\#(series[0].symbol)","timestamp":"2023-12-29T15:59:00Z","open":10,"high":10,"low":10,"close":10,"volume":1}"# + "\n")
        feed.append("{not json\n")  // line 44
        feed.append(#"{"symbol":"X","timestamp":"2024-01-02T09:30:00Z","open":10,"high":9,"low":10,"close":10,"volume":1}"# + "\n")  // line 45
        feed.append(#"{"symbol":"X","timestamp":"2024-01-02T09:30:00Z","open":10,"high":10,"low":10,"close":10}"# + "\n")  // line 46
        feed += lines[40...]
        let db = try temporaryDirectory("live-bad").appendingPathComponent("s.sqlite").path
        let run = try await runLive(arguments + ["--db", db], input: feed.joined())
        #expect(run.status == 0, "\(run.stderr)")

        let rejected = try run.stdout.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "rejected" }
        let byLine = Dictionary(uniqueKeysWithValues: rejected.compactMap { r in (r["line"] as? Int).map { ($0, r) } })
        #expect(byLine[41] == nil, "a duplicate is a no-op")
        #expect(byLine[42]?["reason"] as? String == "conflicting-bar")
        #expect(byLine[43]?["reason"] as? String == "late-bar")
        #expect(byLine[44]?["reason"] as? String == "malformed-line")
        #expect((byLine[44]?["message"] as? String)?.hasPrefix("stdin:44: ") == true)
        #expect(byLine[45]?["reason"] as? String == "malformed-line")
        #expect(byLine[45]?["field"] as? String == "high")
        #expect(byLine[46]?["field"] as? String == "volume")
        #expect(rejected.count == 5, "\(rejected)")
        #expect(run.stderr.contains("1 duplicates"), "\(run.stderr)")
        // The stored bar was kept: the final state is the clean run's.
        await #expect(try LiveFinalState(db: db) == LiveFinalState(db: cleanDB))
        // Every rejection was journaled before it was published.
        let journal = try LiveJournal(database: try SentioDatabase(path: db, mode: .existingOnly))
        #expect(try journal.events().filter { $0.type == "rejected" }.count == 5)
    }

    /// Continuing with other options is an error naming what differs; --reset starts over with them, keeping the
    /// bars, and ends where a fresh session with those options ends.
    @Test func configurationMismatchIsAnErrorAndResetStartsOver() async throws {
        let (series, lines) = try liveMarket(symbols: 2, bars: 50, seed: 9)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let base = ["live", "--symbols", symbols] + Self.rsiOptions
        let db = try temporaryDirectory("live-config").appendingPathComponent("s.sqlite").path
        #expect(try await runLive(base + ["--db", db], input: lines.joined()).status == 0)

        let changed = base + ["--capital", "50000", "--fill", "close", "--db", db]
        let mismatch = try await runLive(changed, input: "")
        #expect(mismatch.status == 2)
        #expect(mismatch.stderr.contains("initialCapital: stored 100000.0, given 50000.0"), "\(mismatch.stderr)")
        #expect(mismatch.stderr.contains("fill: stored next-open, given close"), "\(mismatch.stderr)")
        #expect(mismatch.stderr.contains("--reset"))
        let otherUniverse = try await runLive(["live", "--symbols", "TQQQ"] + Self.rsiOptions + ["--db", db], input: "")
        #expect(otherUniverse.status == 2)
        #expect(otherUniverse.stderr.contains("universe: stored \(symbols), given TQQQ"), "\(otherUniverse.stderr)")

        let reset = try await runLive(changed + ["--reset"], input: "")
        #expect(reset.status == 0, "\(reset.stderr)")
        let fresh = try temporaryDirectory("live-config-fresh").appendingPathComponent("s.sqlite").path
        #expect(try await runLive(base + ["--capital", "50000", "--fill", "close", "--db", fresh], input: lines.joined()).status == 0)
        await #expect(try LiveFinalState(db: db) == LiveFinalState(db: fresh))
        // Continuing now needs the new options.
        #expect(try await runLive(base + ["--db", db], input: "").status == 2)
        #expect(try await runLive(changed, input: "").status == 0)
    }

    /// `--strategy ta-cross` (a TA-Lib function in streaming form) runs live: fed in two runs on one store (the
    /// second rebuilds the strategy from the journal's spec and replays it), it ends in the backtest's state on the
    /// same bars; a different rule on that store is a configuration mismatch.
    @Test func taCrossRunsLiveAsInTheBacktest() async throws {
        let (series, lines) = try liveMarket(symbols: 2, bars: 150, seed: 17)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let options = ["--strategy", "ta-cross", "--ta-cross", "stoch_slowk>stoch_slowd", "--ta-set", "stoch.fastk_period=7", "--step-timeout", "0"]
        let db = try temporaryDirectory("live-ta-cross").appendingPathComponent("s.sqlite").path
        let first = try await runLive(["live", "--symbols", symbols] + options + ["--db", db], input: lines[..<137].joined())
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await runLive(["live", "--symbols", symbols] + options + ["--db", db], input: lines[137...].joined())
        #expect(second.status == 0, "\(second.stderr)")

        let strategy = try TACrossStrategy(rule: "stoch_slowk>stoch_slowd", settings: [TAParameterSetting(parsing: "stoch.fastk_period=7")])
        let configuration = BacktestConfiguration(
            initialCapital: 100_000, fill: .nextOpen, costs: TradingCosts(commissionRate: 0.001),
            sizing: .equalWeight(maxPositions: series.count))
        let result = try Backtest(configuration).run(strategy, on: try Market(series))
        #expect(result.trades.count >= 4, "the rule should trade on 150 bars: \(result.trades.count)")
        try await Self.expectLiveState(db: db, equals: result)

        let other = try await runLive(
            ["live", "--symbols", symbols, "--strategy", "ta-cross", "--ta-cross", "adx>25", "--step-timeout", "0", "--db", db], input: "")
        #expect(other.status == 2)
        #expect(other.stderr.contains("ta-cross.rule"), "\(other.stderr)")
    }

    /// `live show portfolio` and `trades` of a store print the backtest's (a session without snapshots has no
    /// `live show snapshot`).
    static func expectLiveState(db: String, equals result: BacktestResult) async throws {
        let portfolio = try await runSentio(["live", "show", "portfolio", "--db", db])
        let trades = try await runSentio(["live", "show", "trades", "--db", db])
        #expect(portfolio.status == 0 && trades.status == 0, "\(portfolio.stderr) \(trades.stderr)")
        #expect(portfolio.stdout == (try APIJSON.encode(BacktestContracts.portfolio(result, recentTrades: 10, exchangeTimeZone: .newYork))))
        #expect(trades.stdout == (try APIJSON.encode(BacktestContracts.tradeHistory(result))))
        let snapshot = try await runSentio(["live", "show", "snapshot", "--db", db])
        #expect(snapshot.status == 2 && snapshot.stderr.contains("does not save its state"), "\(snapshot.stderr)")
    }

    /// The signal model with TA-Lib indicator features (`--ta-feature`) runs live: its TA-Lib states are not saved
    /// in snapshots, so the second run on the store replays the journal; the end state is the backtest's.
    @Test func indicatorFeaturesRunLiveAsInTheBacktest() async throws {
        let (series, lines) = try liveMarket(symbols: 2, bars: 200, seed: 23)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let options = [
            "--ta-feature", "adx(timeperiod=10)", "--ta-feature", "wma(timeperiod=20)/close", "--window", "40", "--horizon", "2",
            "--buy-threshold", "0.5", "--sell-threshold", "0.5", "--min-confidence", "0", "--step-timeout", "0", "--snapshot-interval", "50",
        ]
        let db = try temporaryDirectory("live-ta-feature").appendingPathComponent("s.sqlite").path
        let first = try await runLive(["live", "--symbols", symbols] + options + ["--db", db], input: lines[..<251].joined())
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await runLive(["live", "--symbols", symbols] + options + ["--db", db], input: lines[251...].joined())
        #expect(second.status == 0, "\(second.stderr)")

        var model = SignalModelConfig()
        model.indicatorFeatures = ["adx(timeperiod=10)", "wma(timeperiod=20)/close"]
        model.regressionWindow = 40
        model.horizon = 2
        model.buyScoreThreshold = 0.5
        model.sellScoreThreshold = 0.5
        model.minimumConfidence = 0
        let configuration = BacktestConfiguration(
            initialCapital: 100_000, fill: .nextOpen, costs: TradingCosts(commissionRate: 0.001),
            sizing: .equalWeight(maxPositions: series.count))
        let result = try Backtest(configuration).run(try SignalStrategy.sentio(config: model), on: try Market(series))
        #expect(result.trades.count >= 2, "the model should trade on 200 bars: \(result.trades.count)")
        try await Self.expectLiveState(db: db, equals: result)
    }

    /// `sentio generate --format ndjson | sentio live`: the documented demo, with the default strategy (the signal
    /// model), ends where the backtest ends on the same generated files.
    @Test func generatedNDJSONFeedsLive() async throws {
        let generated = try await runSentio(["generate", "--symbols", "2", "--bars", "400", "--freq", "minute", "--seed", "3", "--format", "ndjson"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let dir = try temporaryDirectory("live-generate")
        let csv = try await runSentio(["generate", "--symbols", "2", "--bars", "400", "--freq", "minute", "--seed", "3", "--out", dir.path])
        #expect(csv.status == 0)
        let series = try MarketGenerator(config: MarketConfig(
            symbols: MarketConfig.firstSymbols(2), bars: 400, frequency: .minute, seed: 3,
            start: CivilDate(iso: "2023-01-02")!)).generate()
        // The NDJSON feed holds exactly the bars of the CSV files, in timeline order.
        let fromCSV = try OHLCVReader.readDirectory(dir.path)
        let lines = generated.stdout.split(separator: "\n")
        #expect(lines.count == 800)
        for (k, line) in lines.enumerated() {
            let bar = try NDJSONBars.decode(line: String(line), number: k + 1)!.get()
            let source = fromCSV.first { $0.symbol == bar.symbol }!
            #expect(source[bar: k / 2] == bar.bar)
        }
        let db = dir.appendingPathComponent("s.sqlite").path
        let run = try await runLive(["live", "--db", db, "--symbols", "TQQQ,SQQQ"], input: generated.stdout)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""type": "signal_update""#))
        let configuration = BacktestConfiguration(
            initialCapital: 100_000, fill: .nextOpen, costs: TradingCosts(commissionRate: 0.001),
            sizing: .equalWeight(maxPositions: 2))
        let result = try Backtest(configuration).run(
            try SignalStrategy.sentio(config: SignalModelConfig()), on: try Market(series))
        let portfolio = try await runSentio(["live", "show", "portfolio", "--db", db])
        #expect(portfolio.stdout == (try APIJSON.encode(BacktestContracts.portfolio(result, recentTrades: 10, exchangeTimeZone: .newYork))))
    }

    /// --follow DIR: rows appended to per-symbol CSV files are picked up; SIGTERM ends the run cleanly (exit 0,
    /// journal flushed) and the state equals a stdin run on the same bars.
    @Test func followingCSVFilesUntilSIGTERM() async throws {
        let (series, lines) = try liveMarket(symbols: 2, bars: 60, seed: 21)
        let symbols = series.map(\.symbol).joined(separator: ",")
        let arguments = ["live", "--symbols", symbols] + Self.rsiOptions
        let stdinDB = try temporaryDirectory("live-follow-stdin").appendingPathComponent("s.sqlite").path
        #expect(try await runLive(arguments + ["--db", stdinDB], input: lines.joined()).status == 0)

        let dir = try temporaryDirectory("live-follow")
        let db = dir.appendingPathComponent("s.sqlite").path
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        func csvLines(_ s: OHLCVSeries) -> [String] {
            String(decoding: OHLCVWriter.encode(s, options: .init(datesWhenMidnight: false)), as: UTF8.self)
                .split(separator: "\n").map { String($0) + "\n" }
        }
        let files = series.map { data.appendingPathComponent("\($0.symbol).csv") }
        let texts = series.map(csvLines)
        // The first half before the start, the rest appended while it runs.
        for (k, file) in files.enumerated() { try texts[k][0...30].joined().write(to: file, atomically: false, encoding: .utf8) }
        let (process, _, stderr) = try startSentio(
            arguments + ["--db", db, "--follow", data.path, "--poll-interval", "0.05"], input: FileHandle.nullDevice)
        for row in 31..<texts[0].count {
            for (k, file) in files.enumerated() {
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(texts[k][row].utf8))
                try handle.close()
            }
            if row % 10 == 0 { usleep(60_000) }
        }
        var waited = 0
        while (try? Self.committedInputs(db)) ?? 0 < 120, waited < 600 {
            usleep(50_000)
            waited += 1
        }
        kill(process.processIdentifier, SIGTERM)
        await exited(process)
        let errors = String(decoding: try Data(contentsOf: stderr), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(errors)")
        await #expect(try LiveFinalState(db: db) == LiveFinalState(db: stdinDB))
    }
}
