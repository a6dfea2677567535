import ArgumentParser
import Foundation
import Sentio
import SentioBench
import SentioLive

extension LiveJournal.Synchronous: ExpressibleByArgument {}

/// `sentio-dev live-bench`: measurements of the live engine (not a test; numbers for the Journal and LiveSessions
/// articles).
///
/// 1. `throughput`: a generated market fed in timeline order through ``JournaledLiveSession`` into a fresh store,
///    one group commit per `--batch` bars (as `sentio live` commits one read chunk), events encoded as the
///    command encodes them for its output. With `--journal-only` the engine is left out (the store's cost alone).
/// 2. `restart`: the store left as a killed process leaves it (no final snapshot, the longest tail: the last
///    snapshot is up to `--snapshot-interval - 1` inputs back), then the time to open it and rebuild the session
///    (open + load snapshot + replay tail: ready to ingest).
/// 3. `ack`: bar-to-durable acknowledgement: one bar per commit (a feed of one bar per symbol per second never has
///    two bars waiting), time from handing the bar over to its events being encoded after the commit; p50/p99/p99.9.
///    With `--paced` the bars arrive at one bar per symbol per second (evenly spread), as such a feed delivers them.
/// 4. `step`: the in-memory step for the whole universe (signals + portfolio, no store, no events built), time per
///    completed step; p50/p99/p99.9.
struct LiveBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-bench",
        abstract: "Measure the live engine: replay throughput, restart time, durable-acknowledgement latency, step latency.",
        discussion: """
            Generates a minute-bar market and runs the parts asked for (--part, all by default). throughput: feeds it in timeline order through a journaled session in a fresh store (one group commit per --batch bars). restart: reopens that store as a killed process leaves it (the longest tail since the newest snapshot) and times open + snapshot + replay until the session is ready; with --part restart and --directory holding a store from an earlier run, only the restart is timed. ack: times single-bar commits. step: times the in-memory step of all symbols. Prints wall-clock and CPU figures.
            """
    )

    enum Part: String, ExpressibleByArgument, CaseIterable {
        case all, throughput, restart, ack, step
    }

    @Option(help: ArgumentHelp("What to measure: all, throughput, restart, ack or step.", valueName: "PART"))
    var part: Part = .all

    @Option(help: ArgumentHelp("Symbols of the generated market (1 to 12).", valueName: "N"))
    var symbols: Int = 12

    @Option(help: ArgumentHelp("Minute bars per symbol.", valueName: "N"))
    var bars: Int = 100_000

    @Option(help: ArgumentHelp("Bars per group commit in the throughput run.", valueName: "N"))
    var batch: Int = 4_096

    @Option(name: .customLong("snapshot-interval"), help: ArgumentHelp("Inputs between snapshots.", valueName: "N"))
    var snapshotInterval: Int = JournaledLiveSession.defaultSnapshotInterval

    @Option(help: ArgumentHelp("PRAGMA synchronous of the journal: full or normal.", valueName: "LEVEL"))
    var synchronous: LiveJournal.Synchronous = .full

    @Option(name: .customLong("ack-samples"), help: ArgumentHelp("Single-bar commits timed for the latency figures.", valueName: "N"))
    var ackSamples: Int = 2_000

    @Flag(help: "ack: deliver one bar per symbol per second, evenly spread (real time), instead of back to back.")
    var paced = false

    @Option(name: .customLong("warmup-steps"), help: ArgumentHelp("step: steps fed before timing starts.", valueName: "N"))
    var warmupSteps: Int = 400

    @Flag(name: .customLong("journal-only"), help: "Time the store alone (no engine).")
    var journalOnly = false

    @Flag(help: "throughput: pipelined group commits (JournaledLiveSession.commitInBackground): each batch is committed on a writer thread while the next is ingested and its lines are written; lines are still handed out only after their commit.")
    var pipelined = false

    @Flag(name: .customLong("no-publish"), help: "Do not encode the published events (signal updates, equity marks...) as the command does for its output; journaled events are encoded either way.")
    var noPublish = false

    @Option(help: ArgumentHelp("Directory for the benchmark's store files, kept after the run (default: a temporary directory, removed).", valueName: "DIR"))
    var directory: String?

    func validate() throws {
        if !(1...12).contains(symbols) { throw ValidationError("--symbols must be in 1...12, got \(symbols)") }
        if bars < 1 { throw ValidationError("--bars must be at least 1, got \(bars)") }
        if batch < 1 { throw ValidationError("--batch must be at least 1, got \(batch)") }
        if snapshotInterval < 1 { throw ValidationError("--snapshot-interval must be at least 1, got \(snapshotInterval)") }
        if ackSamples < 1 { throw ValidationError("--ack-samples must be at least 1, got \(ackSamples)") }
        if warmupSteps < 0 { throw ValidationError("--warmup-steps must be at least 0, got \(warmupSteps)") }
        if part == .step && bars <= warmupSteps {
            throw ValidationError("--bars (\(bars)) must exceed --warmup-steps (\(warmupSteps)) for the step part")
        }
    }

    func wants(_ p: Part) -> Bool { part == .all || part == p }

    func run() throws {
        let dir = directory ?? NSTemporaryDirectory() + "sentio-live-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/throughput.sqlite"
        let reuse = part == .restart && directory != nil && FileManager.default.fileExists(atPath: path)
        let config = MarketConfig(
            symbols: MarketConfig.firstSymbols(symbols), bars: reuse ? 1 : bars, frequency: .minute, seed: 7,
            start: CivilDate(iso: "2020-01-02")!)
        let market = try MarketGenerator(config: config).generate()
        let universe = market.map(\.symbol)
        let setup = LiveSessionSetup(
            configuration: LiveConfiguration(
                strategy: .sentio,
                backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: universe.count))),
            universe: universe)
        print("market: \(universe.count) symbols × \(bars) minute bars = \(universe.count * bars) bars; synchronous=\(synchronous.rawValue); batch \(batch); snapshot every \(snapshotInterval) inputs")
        if wants(.throughput) || (wants(.restart) && !reuse) { try throughput(market: market, setup: setup, path: path) }
        if wants(.restart) && !journalOnly { try restart(setup: setup, path: path) }
        if wants(.ack) { try acknowledgement(market: market, setup: setup, path: dir + "/ack.sqlite") }
        if wants(.step) { try stepLatency(market: market, setup: setup) }
        if directory == nil { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// 1. Replay throughput, leaving the store as a killed process leaves it.
    func throughput(market: [OHLCVSeries], setup: LiveSessionSetup, path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var output = 0
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        let count = market.count * bars
        let started = monotonicNanoseconds()
        let cpuStarted = Self.cpuSeconds()
        if journalOnly {
            let journal = try LiveJournal(database: try SentioDatabase(path: path), synchronous: synchronous)
            var pending = LiveJournalBatch()
            var k = 0
            for i in 0..<bars {
                for s in market {
                    pending.append(.bar(symbol: s.symbol, bar: s[bar: i]))
                    k += 1
                    if k % batch == 0 { try journal.commit(&pending) }
                }
            }
            try journal.commit(&pending)
        } else {
            let live = try JournaledLiveSession(
                database: try SentioDatabase(path: path), setup: setup, synchronous: synchronous,
                snapshotInterval: snapshotInterval)
            var k = 0
            // As the command publishes: the batch's lines written straight from the session's events.
            func publish(last: Bool = false) throws {
                if noPublish {
                    _ = try live.commit()
                    return
                }
                if pipelined {
                    try live.commitInBackground(appendingCommittedLinesTo: &buffer)
                    if last { try live.waitForBackgroundCommits(appendingLinesTo: &buffer) }
                } else {
                    try live.commit(appendingLinesTo: &buffer)
                }
                output += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            for i in 0..<bars {
                for s in market {
                    try live.ingest(FeedBar(symbol: s.symbol, bar: s[bar: i]))
                    k += 1
                    if k % batch == 0 { try publish() }
                }
            }
            // Killed here: no finish(), so the restart replays the longest tail since the last snapshot.
            try publish(last: true)
        }
        let seconds = Self.seconds(since: started)
        let cpu = Self.cpuSeconds() - cpuStarted
        if pipelined && !journalOnly { print("throughput: pipelined group commits (journal on a writer thread)") }
        print(String(format: "throughput: %.0f bars/s wall (%d bars in %.2f s), %.0f bars per CPU-second (user+sys %.2f s; the machine's other load does not count); %d bytes of events encoded", Double(count) / seconds, count, seconds, Double(count) / cpu, cpu, output))
    }

    /// 2. Restart: open + load snapshot + replay tail, best of 3.
    func restart(setup: LiveSessionSetup, path: String) throws {
        var restarts: [Double] = []
        var restartCPU: [Double] = []
        for _ in 0..<3 {
            let t0 = monotonicNanoseconds()
            let c0 = Self.cpuSeconds()
            let live = try JournaledLiveSession(database: try SentioDatabase(path: path), setup: setup, synchronous: synchronous)
            restarts.append(Self.seconds(since: t0))
            restartCPU.append(Self.cpuSeconds() - c0)
            if restarts.count == 1 {
                let snapshot = try live.journal.latestSnapshot()
                print("restart: \(live.session.completedSteps) steps, \(live.journal.lastInputSeq) inputs journaled; snapshot \(snapshot?.state.count ?? 0) bytes; replayed \(live.replayedInputs) inputs after it")
            }
        }
        print(String(format: "restart (open store + load snapshot + replay tail, ready to ingest), best of 3: %.3f s wall, %.3f s CPU (all wall: %@)", restarts.min()!, restartCPU.min()!, restarts.map { String(format: "%.3f", $0) }.joined(separator: ", ")))
    }

    /// 3. Acknowledgement latency: one bar per commit.
    func acknowledgement(market: [OHLCVSeries], setup: LiveSessionSetup, path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var latencies: [Double] = []
        latencies.reserveCapacity(ackSamples)
        var feed: [FeedBar] = []
        outer: for i in 0..<bars {
            for s in market {
                if feed.count == ackSamples { break outer }
                feed.append(FeedBar(symbol: s.symbol, bar: s[bar: i]))
            }
        }
        let spacing = 1_000_000_000 / UInt64(market.count)  // nanoseconds: one bar per symbol per second
        var due = monotonicNanoseconds()
        func wait(until instant: UInt64) {
            let now = monotonicNanoseconds()
            if instant > now { Thread.sleep(forTimeInterval: Double(instant - now) / 1e9) }
        }
        var buffer: [UInt8] = []
        if journalOnly {
            let journal = try LiveJournal(database: try SentioDatabase(path: path), synchronous: synchronous)
            var pending = LiveJournalBatch()
            for item in feed {
                if paced { wait(until: due); due += spacing }
                let t0 = monotonicNanoseconds()
                pending.append(.bar(symbol: item.symbol, bar: item.bar))
                try journal.commit(&pending)
                latencies.append(Self.seconds(since: t0))
            }
        } else {
            let live = try JournaledLiveSession(
                database: try SentioDatabase(path: path), setup: setup, synchronous: synchronous,
                snapshotInterval: snapshotInterval)
            for item in feed {
                if paced { wait(until: due); due += spacing }
                let t0 = monotonicNanoseconds()
                try live.ingest(item)
                try live.commit(appendingLinesTo: &buffer)
                latencies.append(Self.seconds(since: t0))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        latencies.sort()
        func quantile(_ q: Double) -> Double { nearestRankPercentile(latencies, q)! * 1e3 }
        let pacing = paced ? "paced at one bar per symbol per second (\(market.count) bars/s)" : "back to back"
        print(String(format: "bar-to-durable ack (one bar per commit, %@, %d samples): p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms", pacing, latencies.count, quantile(0.5), quantile(0.99), quantile(0.999), latencies.last! * 1e3))
    }

    /// 4. The in-memory step: every symbol's bar of one timestamp through `LiveSession.process` (the last one
    /// completes the step), events discarded.
    func stepLatency(market: [OHLCVSeries], setup: LiveSessionSetup) throws {
        let session = try LiveSession(configuration: setup.configuration, universe: setup.universe)
        session.reserveCapacity(steps: bars, orders: 4 * bars, trades: 2 * bars)
        let feed: [[LiveBar]] = (0..<bars).map { i in market.map { LiveBar(symbol: $0.symbol, bar: $0[bar: i]) } }
        var samples: [UInt64] = []
        samples.reserveCapacity(bars)
        var completed = 0
        for (i, step) in feed.enumerated() {
            let t0 = monotonicNanoseconds()
            for bar in step {
                if case .accepted(let c) = session.process(bar) { completed += c }
            }
            session.discardEvents()
            let t1 = monotonicNanoseconds()
            if i >= warmupSteps { samples.append(t1 - t0) }
        }
        samples.sort()
        func quantile(_ q: Double) -> Double { Double(nearestRankPercentile(samples, q)!) / 1e3 }
        let perBar = Double(samples.reduce(0, +)) / Double(samples.count * market.count) / 1e3
        print(String(format: "in-memory step (%d symbols, sentio strategy, %d timed steps after %d warm-up, %d completed): p50 %.2f µs, p99 %.2f µs, p99.9 %.2f µs, max %.2f µs per step; mean %.3f µs per bar", market.count, samples.count, warmupSteps, completed, quantile(0.5), quantile(0.99), quantile(0.999), Double(samples.last!) / 1e3, perBar))
    }

    /// User + system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }

    /// Seconds of the monotonic clock since `start` (a ``monotonicNanoseconds()`` reading).
    static func seconds(since start: UInt64) -> Double { Double(monotonicNanoseconds() &- start) / 1e9 }
}
