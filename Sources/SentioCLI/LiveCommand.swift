import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioApplication
import SentioLive

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio live`: live paper trading, journaled in a Sentio store (`run`, the default), and `live show`.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Live paper trading: the backtest's simulator fed bar by bar, journaled in a store.",
        discussion: """
            `sentio live --db FILE --symbols LIST [strategy options]` reads bars as NDJSON from standard input, \
            one per line ({"symbol","timestamp","open","high","low","close","volume"}, as `sentio generate \
            --format ndjson` writes), until end of input, and writes the session's events as NDJSON to standard \
            output: signal_update, order, fill, rejected, equity (each object's "type").
            `sentio live show portfolio|signals|trades|snapshot --db FILE` prints the session as the apps see it.
            """,
        subcommands: [LiveRunCommand.self, LiveShowCommand.self],
        defaultSubcommand: LiveRunCommand.self
    )
}

// MARK: - sentio live (run)

/// Set by SIGINT/SIGTERM; the input loops check it and exit cleanly (journal flushed, exit 0).
nonisolated(unsafe) var liveStopRequested: sig_atomic_t = 0

struct LiveRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the session: bars in (NDJSON on standard input, or --follow DIR), events out (NDJSON).",
        discussion: """
            Input: one bar per line, {"symbol","timestamp","open","high","low","close","volume"}; the timestamp \
            in any form a CSV file may use (2024-01-02T14:31:00Z, 2024-01-02), the values JSON numbers, checked \
            by the OHLCV reader's rules. A line that is not such a bar is a `rejected` event (reason \
            malformed-line) naming its line number and field; reading goes on. Blank lines are skipped.
            Bars: a duplicate of a journaled bar is a no-op; a bar with the same symbol and time but other values \
            is rejected (conflicting-bar) and never replaces the journaled one; a bar older than the session's \
            current step is rejected (late-bar).
            Steps: the bars of one timestamp form a step; it completes when every symbol of the universe has \
            delivered its bar, when a bar with a later timestamp arrives, or when --step-timeout seconds have \
            passed since its first bar arrived (the symbols that did not deliver have no bar at that step, as \
            in the backtest). At end of input a step still missing bars stays pending: the next run continues it.
            Durability: every accepted bar, order, fill and rejection is committed to the store (SQLite WAL, \
            synchronous=FULL: a committed batch survives a power loss) before its events are written. The bars \
            of one read chunk (whatever is waiting, up to 1 MiB) are committed together (group commit). The \
            commit runs on a second thread while the next chunk is read and ingested (pipelining); a chunk's \
            events are written once its commit is durable, and before waiting for more input (--no-pipelining: \
            each chunk is committed before the next is read; the output is the same). After a crash, run the \
            same command again and re-send the feed from any earlier point: journaled bars are duplicates, and \
            the session continues exactly where the journal ends.
            Configuration: the first run stores the options with the session; later runs must give the same \
            options (an error lists what differs) or --reset, which starts over with the new options and \
            replays the journaled bars.
            Corporate actions: bars arrive unadjusted, so --adjust is auto (the default) or none. --actions FILE \
            applies each split and dividend to the holding at its ex-date (shares x ratio, cash credited), by the \
            backtest's step function: the same bars and actions give the backtest's results bit for bit. With \
            --adjust auto, a bar whose move from the symbol's previous bar looks like a split (the CSV reader's \
            split check) that no split of --actions explains is rejected (reason suspected-split, naming the \
            dates and the ratio): add the split to --actions and restart with --reset, or restart with --adjust \
            none --reset if the move is real. --date-format and --timezone read the rows of --follow's files.
            --follow DIR: instead of standard input, follows DIR's SYMBOL.csv files (one per symbol of the \
            universe; rows appended by any downloader, read with the CSV reader's rules), polling every \
            --poll-interval seconds, until SIGINT or SIGTERM; then the journal is flushed and the exit code is 0.
            Exit codes: 0 success; 2 bad options, a different stored configuration, a damaged store; 1 internal error.
            """
    )

    @OptionGroup var store: StoreOptions

    @OptionGroup var selection: SymbolSelectionOptions

    @OptionGroup var options: StrategyOptions

    @Flag(help: "Start the session over with these options: journaled events and snapshots are deleted, the journaled bars kept and replayed.")
    var reset = false

    @Option(name: .customLong("step-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds after a step's first bar after which it completes without the symbols still missing (0 = never).", valueName: "SECONDS"))
    var stepTimeout: Double = 10

    @Option(help: ArgumentHelp("Follow the per-symbol CSV files in DIR (appended rows) instead of reading standard input, until SIGINT/SIGTERM.", valueName: "DIR"))
    var follow: String?

    @Option(name: .customLong("poll-interval"), parsing: .unconditional, help: ArgumentHelp("With --follow: seconds between looks at the files.", valueName: "SECONDS"))
    var pollInterval: Double = 0.5

    @Option(name: .customLong("snapshot-interval"), parsing: .unconditional, help: ArgumentHelp("Journal a snapshot of the session every N accepted inputs (bounds the restart time).", valueName: "N"))
    var snapshotInterval: Int = JournaledLiveSession.defaultSnapshotInterval

    @Flag(inversion: .prefixedNo, help: "Standard input: commit a chunk on a second thread while the next one is read and ingested (the same output; events still written only after their commit).")
    var pipelining = true

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    func validate() throws {
        try marketFile.validateBarByBar(followed: follow != nil)
        if !(stepTimeout >= 0 && stepTimeout.isFinite) { throw ValidationError("--step-timeout must be a number of seconds >= 0, got \(stepTimeout)") }
        if !(pollInterval > 0 && pollInterval <= 3600) { throw ValidationError("--poll-interval must be in (0, 3600] seconds, got \(pollInterval)") }
        if snapshotInterval < 1 { throw ValidationError("--snapshot-interval must be at least 1, got \(snapshotInterval)") }
    }

    func run() throws {
        let database = try store.open(mode: .createIfMissing)
        let universe = try selection.list()
        var setup: LiveSessionSetup?
        let request = try options.request
        func configuration(_ universe: [String]) throws -> LiveConfiguration {
            try marketFile.liveConfiguration(
                LiveConfiguration(request: request, symbolCount: universe.count), universe: universe, strategy: request.strategy)
        }
        if let universe {
            setup = LiveSessionSetup(configuration: try configuration(universe), universe: universe)
        } else if reset {
            throw ValidationError("--reset needs --symbols LIST (the universe to start over with)")
        } else {
            // Continuing without --symbols: the stored universe, with the options given (compared with the stored ones).
            let stored = try JournaledLiveSession.storedSetup(in: database)
            guard let stored else {
                throw ValidationError("--symbols LIST is required to start a session in \(database.path)")
            }
            setup = LiveSessionSetup(configuration: try configuration(stored.universe), universe: stored.universe)
        }
        let live = try JournaledLiveSession(
            database: database, setup: setup, reset: reset, snapshotInterval: snapshotInterval)
        signal(SIGINT) { _ in liveStopRequested = 1 }
        signal(SIGTERM) { _ in liveStopRequested = 1 }
        // A parent may have started us with these signals blocked (the mask is inherited): unblock them, or a
        // SIGTERM would stay pending and the run would never stop.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &stopSignals, nil)
        var output = LiveEventOutput()
        var loop = LiveInputLoop(live: live, stepTimeout: stepTimeout, output: output, pipelined: pipelining)
        if let follow {
            try loop.follow(try marketFile.followedDirectory(follow, universe: live.setup.universe), pollInterval: pollInterval)
        } else {
            try loop.readStandardInput()
        }
        output = loop.output
        try output.commit(live, finishing: true)
        let c = live.counts
        printError(
            "live: \(c.accepted) bars accepted, \(c.duplicates) duplicates, \(c.rejected) rejected; "
                + "journal \(database.path) holds \(live.journal.lastInputSeq) inputs")
    }
}

/// Writes events as NDJSON to standard output (one `write(2)` per group commit).
struct LiveEventOutput {
    private var bytes: [UInt8] = []

    /// Commits `live` (``JournaledLiveSession/finish()`` when `finishing`) and writes the committed events (after
    /// those of a background commit still in flight, which it waits for).
    mutating func commit(_ live: JournaledLiveSession, finishing: Bool = false) throws {
        bytes.removeAll(keepingCapacity: true)
        try live.commit(forceSnapshot: finishing, appendingLinesTo: &bytes)
        try writeBytes()
    }

    /// Pipelined group commit (`JournaledLiveSession.commitInBackground`): writes the events of the previous
    /// background commit (durable now), then starts committing what was ingested since on the journal's writer
    /// thread; its events are written by the next call of this or of ``publishCommitInFlight(_:)`` or
    /// ``commit(_:finishing:)``.
    mutating func commitInBackground(_ live: JournaledLiveSession) throws {
        bytes.removeAll(keepingCapacity: true)
        try live.commitInBackground(appendingCommittedLinesTo: &bytes)
        try writeBytes()
    }

    /// Waits for the background commit in flight, if any, and writes its events.
    mutating func publishCommitInFlight(_ live: JournaledLiveSession) throws {
        bytes.removeAll(keepingCapacity: true)
        try live.waitForBackgroundCommits(appendingLinesTo: &bytes)
        try writeBytes()
    }

    private func writeBytes() throws {
        try StandardOutput.write(bytes)
    }
}

/// The input loops of `sentio live`: group commit per chunk, step timeout, clean stop on a signal.
///
/// Pipelined (standard input, unless `--no-pipelining`): a chunk's commit runs on the journal's writer thread
/// while the next chunk is read and ingested; its events are written when the next commit starts, or before the
/// loop waits for input (so a feed that pauses sees them as soon as they are durable), or at the final commit.
/// The events and their order are those of the synchronous loop: only when they are written differs, never before
/// their commit.
struct LiveInputLoop {
    let live: JournaledLiveSession
    let stepTimeout: Double
    var output: LiveEventOutput
    /// Whether the standard-input loop commits in the background (`--follow` always commits synchronously).
    let pipelined: Bool
    /// Whether the running loop commits in the background.
    private var committingInBackground = false
    /// When the pending step (of time `pendingStep`) started collecting, on the monotonic clock.
    private var pendingStep: Int64?
    private var pendingSince = ContinuousClock.now

    init(live: JournaledLiveSession, stepTimeout: Double, output: LiveEventOutput, pipelined: Bool = false) {
        self.live = live
        self.stepTimeout = stepTimeout
        self.output = output
        self.pipelined = pipelined
        pendingStep = live.session.pendingStepTime
    }

    /// Commits and publishes (pipelined: starts the commit, publishes the previous one); notes when a new step
    /// started collecting.
    private mutating func commitAndPublish() throws {
        if committingInBackground {
            try output.commitInBackground(live)
        } else {
            try output.commit(live)
        }
        let now = live.session.pendingStepTime
        if now != pendingStep {
            pendingStep = now
            pendingSince = ContinuousClock.now
        }
    }

    /// Seconds left before the pending step times out (`nil`: no step pending, or no timeout).
    private var secondsUntilTimeout: Double? {
        guard stepTimeout > 0, pendingStep != nil else { return nil }
        let elapsed = ContinuousClock.now - pendingSince
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return max(0, stepTimeout - seconds)
    }

    private mutating func closeStepIfTimedOut() throws {
        if let left = secondsUntilTimeout, left <= 0 {
            try live.closeStepIfPending()
            try commitAndPublish()
        }
    }

    /// Reads NDJSON bars from standard input until end of input (or a stop signal).
    mutating func readStandardInput() throws {
        let chunkSize = 1 << 16
        // A batch gathers what is immediately available, up to this many bytes, before one group commit.
        let batchBytes = 1 << 20
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var partial: [UInt8] = []
        var lineNumber = 0
        var endOfInput = false
        committingInBackground = pipelined
        // What is still in flight at the end (input ended, or a stop signal) is waited for and written by the
        // caller's final `commit(_:finishing:)`.
        while !endOfInput && liveStopRequested == 0 {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            if committingInBackground && poll(&descriptor, 1, 0) == 0 {
                // No input waiting: publish the commit in flight before waiting for more.
                try output.publishCommitInFlight(live)
            }
            let timeout = secondsUntilTimeout.map { Int32(min(86_400_000, ($0 * 1000).rounded(.up))) } ?? -1
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw UsageError("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if ready == 0 {
                try closeStepIfTimedOut()
                continue
            }
            var gathered = 0
            while gathered < batchBytes {
                let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress!, chunkSize) }
                if n < 0 {
                    if errno == EINTR { break }
                    throw UsageError("cannot read standard input: \(String(cString: strerror(errno)))")
                }
                if n == 0 { endOfInput = true; break }
                gathered += n
                try consume(chunk[0..<n], partial: &partial, lineNumber: &lineNumber)
                // More already waiting? Then it joins this group commit.
                var more = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                if poll(&more, 1, 0) <= 0 || more.revents & Int16(POLLIN) == 0 { break }
            }
            if endOfInput && !partial.isEmpty {
                lineNumber += 1
                try ingestLine(partial[...], lineNumber: lineNumber)
                partial.removeAll()
            }
            try commitAndPublish()
            try closeStepIfTimedOut()
        }
    }

    private mutating func consume(_ bytes: ArraySlice<UInt8>, partial: inout [UInt8], lineNumber: inout Int) throws {
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            lineNumber += 1
            if partial.isEmpty {
                try ingestLine(bytes[start..<newline], lineNumber: lineNumber)
            } else {
                partial.append(contentsOf: bytes[start..<newline])
                try ingestLine(partial[...], lineNumber: lineNumber)
                partial.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        partial.append(contentsOf: bytes[start...])
    }

    private func ingestLine(_ line: ArraySlice<UInt8>, lineNumber: Int) throws {
        let result = line.withUnsafeBufferPointer { NDJSONBars.decode($0, line: lineNumber, source: "stdin") }
        switch result {
        case nil: return
        case .success(let bar)?: try live.ingest(bar, line: lineNumber)
        case .failure(let error)?: try live.reject(error)
        }
    }

    // MARK: - --follow

    /// Follows `directory`'s `SYMBOL.csv` files (SentioLive's `FollowedDirectory`) until SIGINT/SIGTERM: rows that
    /// are not bars become `rejected` events; notices (a truncated or replaced file) go to standard error.
    mutating func follow(_ directory: FollowedDirectory, pollInterval: Double) throws {
        var followed = directory
        while liveStopRequested == 0 {
            let poll = followed.poll()
            for notice in poll.notices { printError("live: --follow: " + notice) }
            for error in poll.rowErrors { try live.reject(line: error.line, message: error.message) }
            for bar in poll.bars { try live.ingest(bar) }
            try commitAndPublish()
            try closeStepIfTimedOut()
            if liveStopRequested != 0 { break }
            usleep(UInt32(pollInterval * 1_000_000))
        }
    }
}

// MARK: - sentio live show

struct LiveShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the live session as the apps see it: portfolio, signals, trades (or the exact engine snapshot).",
        discussion: """
            portfolio: the GET /portfolio contract; signals: the GET /signals contract; trades: the trade history \
            contract, or with --format csv its trades (the Trade fields, id first); snapshot: the engine's exact \
            state (LiveSnapshot JSON), for comparing sessions. The session is rebuilt from the journal (newest \
            snapshot, then the inputs after it); nothing is written.
            """
    )

    enum Item: String, ExpressibleByArgument, CaseIterable {
        case portfolio, signals, trades, snapshot
    }

    @Argument(help: ArgumentHelp("What to print: portfolio, signals, trades or snapshot.", valueName: "WHAT"))
    var item: Item

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Output format: json, or csv (trades only).", valueName: "FORMAT"))
    var format: OutputFormat = .json

    func validate() throws {
        try format.require(item == .trades ? [.json, .csv] : [.json])
    }

    func run() throws {
        let database = try store.open(mode: .existingOnly)
        let live = try JournaledLiveSession(database: database, setup: nil)
        let session = live.session
        switch item {
        case .portfolio: print(try APIJSON.encode(session.portfolio()), terminator: "")
        case .signals: print(try APIJSON.encode(session.signals()), terminator: "")
        case .trades:
            let history = try session.tradeHistory()
            print(format == .csv ? try history.csv() : try APIJSON.encode(history), terminator: "")
        case .snapshot:
            try StandardOutput.write(try session.snapshot().encoded())
            print()
        }
    }
}
