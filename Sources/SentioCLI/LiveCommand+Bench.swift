import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioLive

/// `sentio live bench`: measurements of the journaled session (not a test; numbers for the Journal article).
///
/// 1. Replay throughput: a generated market fed in timeline order through ``JournaledLiveSession`` into a fresh
///    store, one group commit per `--batch` bars (as `sentio live` commits one read chunk), events encoded as the
///    command encodes them for its output. With `--journal-only` the engine is left out (the store's cost alone).
/// 2. Bar-to-durable acknowledgement: one bar per commit (a feed of one bar per symbol per second never has two
///    bars waiting), time from handing the bar over to the commit returning; p50/p99/p99.9.
/// 3. Restart: the store left as a killed process leaves it (no final snapshot, the longest tail: the last
///    snapshot is `--snapshot-interval - 1` inputs back), then the time to open it and rebuild the session.
struct LiveBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the journaled session: replay throughput, durable-acknowledgement latency, restart time.",
        discussion: """
            Generates a minute-bar market, feeds it in timeline order through a journaled session in a fresh \
            store (one group commit per --batch bars), restarts it as a killed process leaves it (the longest tail \
            since the newest snapshot), then times single-bar commits. Prints wall-clock and CPU figures.
            """
    )

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

    @Flag(name: .customLong("journal-only"), help: "Time the store alone (no engine).")
    var journalOnly = false

    @Flag(name: .customLong("no-publish"), help: "Do not encode the published events (signal updates, equity marks...) as the command does for its output; journaled events are encoded either way.")
    var noPublish = false

    @Option(help: ArgumentHelp("Directory for the benchmark's store files (default: a temporary directory).", valueName: "DIR"))
    var directory: String?

    func validate() throws {
        if !(1...12).contains(symbols) { throw ValidationError("--symbols must be in 1...12, got \(symbols)") }
        if bars < 1 { throw ValidationError("--bars must be at least 1, got \(bars)") }
        if batch < 1 { throw ValidationError("--batch must be at least 1, got \(batch)") }
        if snapshotInterval < 1 { throw ValidationError("--snapshot-interval must be at least 1, got \(snapshotInterval)") }
        if ackSamples < 1 { throw ValidationError("--ack-samples must be at least 1, got \(ackSamples)") }
    }

    func run() throws {
        let level = synchronous
        let config = MarketConfig(
            symbols: MarketConfig.firstSymbols(symbols), bars: bars, frequency: .minute, seed: 7,
            start: CivilDate(iso: "2020-01-02")!)
        let market = try MarketGenerator(config: config).generate()
        let universe = market.map(\.symbol)
        var feed: [FeedBar] = []
        feed.reserveCapacity(market.count * bars)
        for i in 0..<bars { for s in market { feed.append(FeedBar(symbol: s.symbol, bar: s[bar: i])) } }
        let dir = directory ?? NSTemporaryDirectory() + "sentio-live-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let setup = LiveSessionSetup(
            configuration: LiveConfiguration(
                strategy: .sentio,
                backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: universe.count))),
            universe: universe)
        print("market: \(universe.count) symbols × \(bars) minute bars = \(feed.count) bars; synchronous=\(level.rawValue); batch \(batch); snapshot every \(snapshotInterval) inputs")

        // 1. Throughput.
        let path = dir + "/throughput.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let clock = ContinuousClock()
        var output = 0
        let started = clock.now
        let cpuStarted = Self.cpuSeconds()
        if journalOnly {
            let journal = try LiveJournal(database: try SentioDatabase(path: path), synchronous: level)
            var pending = LiveJournalBatch()
            for (k, item) in feed.enumerated() {
                pending.append(.bar(symbol: item.symbol, bar: item.bar))
                if (k + 1) % batch == 0 { try journal.commit(&pending) }
            }
            try journal.commit(&pending)
        } else {
            let live = try JournaledLiveSession(
                database: try SentioDatabase(path: path), setup: setup, synchronous: level,
                snapshotInterval: snapshotInterval)
            for (k, item) in feed.enumerated() {
                try live.ingest(item)
                if (k + 1) % batch == 0 {
                    let events = try live.commit()
                    if !noPublish { for event in events { output += try APIJSON.encodeLine(event).utf8.count } }
                }
            }
            // Killed here: no finish(), so the restart below replays the longest tail since the last snapshot.
            let events = try live.commit()
            if !noPublish { for event in events { output += try APIJSON.encodeLine(event).utf8.count } }
        }
        let seconds = Self.seconds(clock.now - started)
        let cpu = Self.cpuSeconds() - cpuStarted
        print(String(format: "throughput: %.0f bars/s wall (%d bars in %.2f s), %.0f bars per CPU-second (user+sys %.2f s; the machine's other load does not count); %d bytes of events encoded", Double(feed.count) / seconds, feed.count, seconds, Double(feed.count) / cpu, cpu, output))

        // 2. Restart.
        if !journalOnly {
            var restarts: [Double] = []
            var restartCPU: [Double] = []
            for _ in 0..<3 {
                let t0 = clock.now
                let c0 = Self.cpuSeconds()
                let live = try JournaledLiveSession(database: try SentioDatabase(path: path), setup: setup, synchronous: level)
                restarts.append(Self.seconds(clock.now - t0))
                restartCPU.append(Self.cpuSeconds() - c0)
                if restarts.count == 1 { print("restart replayed \(live.replayedInputs) inputs after the newest snapshot") }
            }
            print(String(format: "restart (open store + load snapshot + replay tail), best of 3: %.3f s wall, %.3f s CPU (all wall: %@)", restarts.min()!, restartCPU.min()!, restarts.map { String(format: "%.3f", $0) }.joined(separator: ", ")))
        }

        // 3. Acknowledgement latency: one bar per commit.
        let ackPath = dir + "/ack.sqlite"
        try? FileManager.default.removeItem(atPath: ackPath)
        var latencies: [Double] = []
        latencies.reserveCapacity(ackSamples)
        if journalOnly {
            let journal = try LiveJournal(database: try SentioDatabase(path: ackPath), synchronous: level)
            var pending = LiveJournalBatch()
            for item in feed.prefix(ackSamples) {
                let t0 = clock.now
                pending.append(.bar(symbol: item.symbol, bar: item.bar))
                try journal.commit(&pending)
                latencies.append(Self.seconds(clock.now - t0))
            }
        } else {
            let live = try JournaledLiveSession(
                database: try SentioDatabase(path: ackPath), setup: setup, synchronous: level,
                snapshotInterval: snapshotInterval)
            for item in feed.prefix(ackSamples) {
                let t0 = clock.now
                try live.ingest(item)
                for event in try live.commit() { output += try APIJSON.encodeLine(event).utf8.count }
                latencies.append(Self.seconds(clock.now - t0))
            }
        }
        latencies.sort()
        func quantile(_ q: Double) -> Double { latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] * 1e3 }
        print(String(format: "bar-to-durable ack (one bar per commit, %d samples): p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms", latencies.count, quantile(0.5), quantile(0.99), quantile(0.999), latencies.last! * 1e3))
        if directory == nil { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// User + system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
