import ArgumentParser
import Foundation
import Sentio
import SentioLive

/// `sentio bench-live`: the in-memory step of a live session (SentioLive), timed per step.
///
/// Hidden for now: the bench command belongs to its own file set; this measures `LiveSession.process` for the
/// issue's figures (step latency for 12 symbols, allocations per bar) and can become a `sentio bench` workload.
struct BenchLiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-live",
        abstract: "Measure the in-memory step of a live session (signals + portfolio), per step and per bar.",
        discussion: """
            Generates minute bars for the first --symbols symbols (seed --seed), feeds --warmup steps untimed, then \
            times each further step: the --symbols calls of LiveSession.process (one bar per symbol, in universe \
            order; the last bar completes the step: signal model of every symbol, fills, decisions, equity mark), \
            with the monotonic clock. Events are discarded after each step, untimed (building them is the front end's \
            cost). Reports p50/p99/p99.9/max per step and per bar (step / symbols), and allocations per bar counted \
            in a child run with glibc's malloc hooks (libc_malloc_debug.so.0 preloaded), as `sentio bench signals` does.
            """,
        shouldDisplay: false)

    @Option(help: ArgumentHelp("Number of symbols, the first N of the 12-symbol universe (count; default 12).", valueName: "N"))
    var symbols: Int = 12

    @Option(help: ArgumentHelp("Steps (bars per symbol), warm-up included (count; default 20000).", valueName: "N"))
    var bars: Int = 20_000

    @Option(help: ArgumentHelp("Steps fed before timing starts (count; default 400).", valueName: "N"))
    var warmup: Int = 400

    @Option(help: ArgumentHelp("Strategy: sentio, rsi, buy-and-hold or dca (default sentio).", valueName: "NAME"))
    var strategy: String = "sentio"

    @Option(help: ArgumentHelp("Seed of the generated market (unsigned integer; default 42).", valueName: "S"))
    var seed: UInt64 = 42

    func validate() throws {
        guard (1...12).contains(symbols) else { throw ValidationError("--symbols must be in 1...12, got \(symbols)") }
        guard warmup >= 0, bars > warmup else { throw ValidationError("--bars must exceed --warmup") }
        guard ["sentio", "rsi", "buy-and-hold", "dca"].contains(strategy) else {
            throw ValidationError("--strategy must be sentio, rsi, buy-and-hold or dca, got \(strategy)")
        }
    }

    func makeSession() throws -> (LiveSession, [[LiveBar]]) {
        let market = try MarketGenerator(config: MarketConfig(
            symbols: MarketConfig.firstSymbols(symbols), bars: bars, frequency: .minute, seed: seed))
        let series = market.generate()
        let live: LiveStrategy
        switch strategy {
        case "rsi": live = .rsi(period: 14, lower: 30, upper: 70)
        case "buy-and-hold": live = .buyAndHold
        case "dca": live = .dca(amount: 1_000, every: .week, symbols: nil)
        default: live = .sentio
        }
        let configuration = LiveConfiguration(
            strategy: live, backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: series.count)))
        let session = try LiveSession(configuration: configuration, universe: series.map(\.symbol))
        let steps = series.map(\.count).min() ?? 0
        let feed = (0..<steps).map { i in series.map { LiveBar(symbol: $0.symbol, bar: $0[bar: i]) } }
        return (session, feed)
    }

    func run() throws {
        if ProcessInfo.processInfo.environment[MallocCounter.childEnvironmentKey] != nil {
            print(try countAllocations())
            return
        }
        let (session, feed) = try makeSession()
        for step in feed.prefix(warmup) {
            for bar in step { _ = session.process(bar) }
            session.discardEvents()
        }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(feed.count)
        for step in feed.dropFirst(warmup) {
            let start = monotonicNanoseconds()
            for bar in step { _ = session.process(bar) }
            latencies.append(monotonicNanoseconds() &- start)
            session.discardEvents()
        }
        latencies.sort()
        func percentile(_ q: Double) -> Double {
            let rank = Int((q * Double(latencies.count)).rounded(.up))
            return Double(latencies[Swift.min(Swift.max(rank, 1), latencies.count) - 1])
        }
        let n = Double(symbols)
        let allocations = countAllocationsInChild()
        var lines = [
            "live step (\(strategy), \(symbols) symbols, \(latencies.count) timed steps after \(warmup) warm-up steps)",
            String(format: "per step: p50 %.0f ns, p99 %.0f ns, p99.9 %.0f ns, max %.0f ns", percentile(0.5), percentile(0.99), percentile(0.999), Double(latencies.last ?? 0)),
            String(format: "per bar:  p50 %.0f ns, p99 %.0f ns, p99.9 %.0f ns", percentile(0.5) / n, percentile(0.99) / n, percentile(0.999) / n),
        ]
        if let (count, updates) = allocations {
            lines.append("allocations: \(count) in \(updates) bars (\(String(format: "%.5f", Double(count) / Double(updates))) per bar)")
        } else {
            lines.append("allocations: not measured")
        }
        lines.append("final equity \(session.result().finalEquity), steps \(session.completedSteps)")
        print(lines.joined(separator: "\n"))
    }

    func countAllocationsInChild() -> (Int, Int)? {
        guard let library = MallocCounter.debugLibrary else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = Array(CommandLine.arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library
        environment[MallocCounter.childEnvironmentKey] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let words = output.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count == 3, words[0] == "allocations",
              let count = Int(words[1]), let updates = Int(words[2]) else { return nil }
        return (count, updates)
    }

    func countAllocations() throws -> String {
        let (session, feed) = try makeSession()
        for step in feed.prefix(warmup) {
            for bar in step { _ = session.process(bar) }
            session.discardEvents()
        }
        guard let hooks = MallocCounter.install() else { return "unavailable hooks-not-found" }
        mallocCount = 0
        for step in feed.dropFirst(warmup) {
            for bar in step { _ = session.process(bar) }
            session.discardEvents()
        }
        let count = mallocCount
        MallocCounter.uninstall(hooks)
        return "allocations \(count) \((feed.count - warmup) * symbols)"
    }
}
