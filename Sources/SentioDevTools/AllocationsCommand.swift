import ArgumentParser
import Foundation
import Sentio
import SentioBench
import SentioLive

/// `sentio-dev allocations`: heap allocations per update of the streaming signal engine, or per bar of a live
/// session's in-memory step (`--engine live`), counted by glibc's malloc hooks in a child run of this command
/// with `libc_malloc_debug.so.0` preloaded.
struct AllocationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allocations",
        abstract: "Count heap allocations per signal-engine update or live-session bar (glibc malloc hooks).",
        discussion: """
            Builds one streaming signal-model state per symbol (default model parameters), feeds --warmup bars per symbol, then counts every malloc/calloc/realloc/memalign-family call during the further symbol-bar updates, bars fed tick by tick across symbols, as `sentio bench signals` times them.
            With --engine live the same bars go through a live paper-trading session instead (SentioLive's LiveSession.process: the signal model of every symbol and the portfolio step of each completed timestamp, sentio strategy, equal-weight sizing, events discarded), its history reserved for the bars to come (LiveSession.reserveCapacity; --no-reserve leaves the geometric growth of the equity curve and the order and trade logs in the count).
            Counting needs glibc's allocation hooks, which work only with libc_malloc_debug.so.0 preloaded: the command re-runs itself in a child process with LD_PRELOAD set and counts there. Exit code 2 when the library is missing or the hooks do not fire (a probe allocation must be counted).
            JSON keys: symbols, bars, updates, allocations, allocationsPerUpdate.
            """
    )

    @Option(help: ArgumentHelp("Number of symbols, the first N of the 12-symbol universe.", valueName: "N"))
    var count: Int = 12

    @Option(help: ArgumentHelp("Bars per symbol, warm-up included.", valueName: "N"))
    var bars: Int = 20_000

    @Option(help: ArgumentHelp("Bars per symbol fed before counting starts (default: the model's warm-up plus one regression window, 265 with default parameters).", valueName: "N"))
    var warmup: Int?

    @Option(help: ArgumentHelp("Read bars from these CSV files or directories instead of generating minute bars.", valueName: "PATH"))
    var data: [String] = []

    @Option(help: ArgumentHelp("Seed of the generated market (unsigned integer).", valueName: "S"))
    var seed: UInt64 = 42

    @Option(help: ArgumentHelp("Output format: text or json.", valueName: "text|json"))
    var format: Format = .text

    enum Format: String, ExpressibleByArgument { case text, json }

    @Option(help: ArgumentHelp("What to count: signals (the signal engine's updates) or live (a live session's bars).", valueName: "signals|live"))
    var engine: Engine = .signals

    enum Engine: String, ExpressibleByArgument { case signals, live }

    @Flag(name: .customLong("no-reserve"), help: "With --engine live: do not reserve the session's history before counting.")
    var noReserve = false

    func validate() throws {
        guard (1...12).contains(count) else { throw ValidationError("--count must be in 1...12, got \(count)") }
        guard bars >= 2 else { throw ValidationError("--bars must be at least 2, got \(bars)") }
        if let warmup, warmup < 0 || warmup >= bars { throw ValidationError("--warmup must be in 0..<--bars (\(bars)), got \(warmup)") }
    }

    func run() throws {
        let config = SignalModelConfig()
        if ProcessInfo.processInfo.environment[MallocCounter.childEnvironmentKey] != nil {
            print(try countAllocations(config: config))
            return
        }
        let counted = try countInChild()
        let perUpdate = Double(counted.count) / Double(counted.updates)
        switch format {
        case .json:
            print("""
                {
                  "symbols": \(counted.symbols),
                  "bars": \(counted.bars),
                  "updates": \(counted.updates),
                  "allocations": \(counted.count),
                  "allocationsPerUpdate": \(perUpdate)
                }
                """)
        case .text:
            let what = engine == .live
                ? "live-session bars (LiveSession.process, \(noReserve ? "history not reserved" : "history reserved"))"
                : "updates"
            print("allocations per update: \(perUpdate) (\(counted.count) malloc-family calls in \(counted.updates) \(what) after warm-up, \(counted.symbols) symbols x \(counted.bars) bars, counted by glibc's allocation hooks in a child run with libc_malloc_debug preloaded)")
        }
    }

    /// The bars, the common length and the warm-up length: the same inputs as `sentio bench signals`.
    func prepare(config: SignalModelConfig) throws -> (series: [OHLCVSeries], barCount: Int, warm: Int) {
        try SignalsBenchmark(config: config, symbols: count, bars: bars, warmup: warmup, data: data, seed: seed).prepare()
    }

    /// Runs this command again with glibc's malloc debug library preloaded and reads its count.
    func countInChild() throws -> (count: Int, updates: Int, symbols: Int, bars: Int) {
        guard let library = MallocCounter.debugLibrary else {
            throw DevUsageError("cannot count allocations: glibc's libc_malloc_debug.so.0 not found (searched \(MallocCounter.debugLibraryCandidates.joined(separator: ", ")))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = Array(CommandLine.arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library
        environment[MallocCounter.childEnvironmentKey] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let words = output.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count == 5, words[0] == "allocations",
            let count = Int(words[1]), let updates = Int(words[2]), let symbols = Int(words[3]), let bars = Int(words[4])
        else {
            throw DevUsageError("cannot count allocations: the counting child failed (status \(process.terminationStatus)): \(output.prefix(200))")
        }
        return (count, updates, symbols, bars)
    }

    /// In the counting child: the warm-up, then the updates with the malloc hooks installed. Prints
    /// `allocations COUNT UPDATES SYMBOLS BARS`, or `unavailable REASON`.
    func countAllocations(config: SignalModelConfig) throws -> String {
        if engine == .live { return try countLiveAllocations(config: config) }
        let (series, barCount, warm) = try prepare(config: config)
        let feeds: [[Bar]] = series.map { s in (0..<barCount).map { s[bar: $0] } }
        var engine = try SignalEngine(config: config)
        let indices = series.map { engine.register(symbol: $0.symbol) }
        var checksum = 0.0
        for i in 0..<warm { for s in 0..<feeds.count { checksum += try engine.update(symbolIndex: indices[s], bar: feeds[s][i]).aiSignal } }
        mallocCount = 0
        guard let hooks = MallocCounter.install() else { return "unavailable hooks-not-found" }
        // Probe: a fresh array must be counted, or the hooks are not live (debug library not preloaded).
        let probe = [Double](repeating: checksum, count: 64 + (barCount & 1))
        let probeCount = mallocCount
        mallocCount = 0
        for i in warm..<barCount {
            for s in 0..<feeds.count { checksum += try engine.update(symbolIndex: indices[s], bar: feeds[s][i]).aiSignal }
        }
        let count = mallocCount
        MallocCounter.uninstall(hooks)
        withExtendedLifetime(probe) {}
        guard probeCount > 0 else { return "unavailable hooks-not-live" }
        return "allocations \(count) \((barCount - warm) * feeds.count) \(feeds.count) \(barCount)"
    }
}

extension AllocationsCommand {
    /// `--engine live` in the counting child: a live session (sentio strategy, equal weight over the symbols)
    /// fed the bars timestamp by timestamp; the warm-up, then the counted bars. Same output as
    /// ``countAllocations(config:)``.
    func countLiveAllocations(config: SignalModelConfig) throws -> String {
        let (series, barCount, warm) = try prepare(config: config)
        let bars: [[LiveBar]] = (0..<barCount).map { i in series.map { LiveBar(symbol: $0.symbol, bar: $0[bar: i]) } }
        let session = try LiveSession(
            configuration: LiveConfiguration(
                strategy: .sentio, backtest: BacktestConfiguration(sizing: .equalWeight(maxPositions: series.count)),
                signalModel: config),
            universe: series.map(\.symbol))
        var accepted = 0
        for step in bars[..<warm] {
            for bar in step { if case .accepted = session.process(bar) { accepted += 1 } }
            session.discardEvents()
        }
        // The history grows by one step per timestamp and by the orders and trades of the run: at most two
        // orders (an entry and an exit) and one trade per symbol-bar.
        let remaining = barCount - warm
        if !noReserve { session.reserveCapacity(steps: remaining, orders: 2 * remaining * series.count, trades: remaining * series.count) }
        mallocCount = 0
        guard let hooks = MallocCounter.install() else { return "unavailable hooks-not-found" }
        let probe = [Double](repeating: Double(accepted), count: 64 + (barCount & 1))
        let probeCount = mallocCount
        mallocCount = 0
        for step in bars[warm...] {
            for bar in step { if case .accepted = session.process(bar) { accepted += 1 } }
            session.discardEvents()
        }
        let count = mallocCount
        MallocCounter.uninstall(hooks)
        withExtendedLifetime(probe) {}
        guard probeCount > 0 else { return "unavailable hooks-not-live" }
        guard accepted == barCount * series.count else {
            throw DevUsageError("the session accepted \(accepted) of \(barCount * series.count) bars")
        }
        return "allocations \(count) \(remaining * series.count) \(series.count) \(barCount)"
    }
}
