import Foundation
import SentioCore
import SentioData
import SentioStore

/// What a journaled session is started with and stores: the configuration and the universe.
public struct LiveSessionSetup: Sendable, Equatable, Codable {
    public var configuration: LiveConfiguration
    /// The symbols, in the order the backtest lists them.
    public var universe: [String]

    public init(configuration: LiveConfiguration, universe: [String]) {
        self.configuration = configuration
        self.universe = universe
    }

    /// One line per setting that differs from `stored` (``LiveConfiguration/differences(from:)``, then the
    /// universe); empty when they are the same.
    public func differences(from stored: LiveSessionSetup) -> [String] {
        var lines = configuration.differences(from: stored.configuration)
        if universe != stored.universe {
            lines.append("universe: stored \(stored.universe.joined(separator: ",")), given \(universe.joined(separator: ","))")
        }
        return lines
    }
}

/// Why a journaled session cannot start or continue.
public enum LiveJournalError: UserInputError, Equatable {
    /// The store holds a session with another configuration; `differences` says what differs.
    case configurationMismatch(path: String, differences: [String])
    /// The store holds no live session (for commands that only read one).
    case noSession(path: String)
    /// The stored session cannot be read back (configuration JSON, snapshot) or its replay does not reproduce
    /// what was journaled.
    case damaged(path: String, detail: String)

    public var description: String {
        switch self {
        case .configurationMismatch(let path, let differences):
            return "the live session in \(path) was started with a different configuration ("
                + differences.joined(separator: "; ")
                + "); continue with the stored options, or pass --reset to start over with these (the bars are kept)"
        case .noSession(let path):
            return "no live session in \(path) (start one with `sentio live --db \(path) --symbols LIST`)"
        case .damaged(let path, let detail):
            return "the live session in \(path) is damaged: \(detail)"
        }
    }
}

/// A ``LiveSession`` whose every accepted bar, order, fill and rejection is journaled in a Sentio store before it
/// is published, and which restarts where it stopped.
///
/// Use: ``ingest(_:line:)`` the bars of one chunk of input (and ``reject(_:)`` its malformed lines,
/// ``closeStepIfPending()`` when the grace delay passes), then ``commit(forceSnapshot:alongside:)``: one transaction (group commit),
/// after which the returned events may be written out. Nothing is published before it is durable.
///
/// Bars, in order of the checks:
/// - a bar of a symbol and timestamp already journaled (or accepted in this chunk) with the same values is a
///   duplicate: a no-op, no event (a reconnecting feed re-sends what it sent before);
/// - with other values it is a `conflicting-bar` rejection: journaled, never replacing the stored bar;
/// - otherwise the session decides (accepted, or `late-bar`, `unknown-symbol`, `invalid-bar`, … rejections).
///
/// Restart (``init(database:setup:reset:synchronous:snapshotInterval:)``): the newest snapshot, then the inputs
/// journaled after it, replayed through the session without publishing (their events were journaled and
/// published before). A snapshot is taken at the first commit after every `snapshotInterval` inputs, and at
/// ``finish()``. Snapshots are compact (``LiveSession/compactSnapshot()``: no equity curve, order or trade log),
/// so a restart costs the same however long the session ran; the history before the snapshot is rebuilt only
/// when something asks for it (``LiveSession/result()``, the portfolio, the trade history, a full
/// ``LiveSession/snapshot()``), by replaying the journaled inputs the snapshot covers into a new session and
/// checking that it reproduces the snapshot byte for byte. A snapshot of an older format is ignored (the inputs
/// are replayed from the start, as without a snapshot).
public final class JournaledLiveSession {
    /// The default snapshot interval, in inputs. Chosen by measurement (see the store's Journal article): restart
    /// replays at most this many inputs plus loading one snapshot.
    public static let defaultSnapshotInterval = 50_000

    public private(set) var session: LiveSession
    public let journal: LiveJournal
    public let setup: LiveSessionSetup
    public let snapshotInterval: Int
    /// Inputs replayed when the session was opened (the tail after the snapshot; all inputs after a reset).
    public private(set) var replayedInputs = 0

    /// What happened to the bars and lines fed since the session was opened.
    public struct Counts: Sendable, Equatable {
        public var accepted = 0
        public var duplicates = 0
        public var rejected = 0
    }

    public private(set) var counts = Counts()

    private var batch = LiveJournalBatch()
    /// Events to publish after the next commit (signal updates still as the engine's signals).
    private var output: [LiveSession.PendingEvent] = []
    private var inputsSinceSnapshot = 0
    /// The latest accepted bar per symbol (committed or in the open batch); filled lazily from the journal. A
    /// re-sent copy of it (the common re-send: a downloader rewriting its last row) is told from a conflicting
    /// bar without reading the store.
    private var lastAccepted: [String: Bar] = [:]
    /// The latest input applied to the session (replayed, or accepted into the open batch): always the journal's
    /// last committed input plus the inputs of the commit in flight and of the open batch.
    private var appliedInputSeq: Int64 = 0
    /// The pipelined group commit running on the writer thread (``commitInBackground(appendingCommittedLinesTo:)``).
    private var inFlight: BackgroundCommit?
    /// Whether this thread has already waited for `inFlight` to finish.
    private var inFlightFinished = false
    /// The NDJSON lines of the commit in flight, published when it is durable.
    private var inFlightLines: [UInt8] = []
    private var encodedLines: [UInt8] = []
    /// Runs the pipelined commits, one at a time in order.
    private let writer = DispatchQueue(label: "sentio.live.journal-writer")
    /// The error of a failed background commit: the session cannot commit any more.
    private var backgroundFailure: (any Error)?

    /// The setup stored in `database`, or `nil` when it holds no live session.
    ///
    /// - Throws: `LiveJournalError/damaged(path:detail:)` when it cannot be read, `StoreError`.
    public static func storedSetup(in database: SentioDatabase) throws -> LiveSessionSetup? {
        guard let json = try LiveJournal(database: database).configurationJSON() else { return nil }
        return try decodeSetup(json, path: database.path)
    }

    static func decodeSetup(_ json: String, path: String) throws -> LiveSessionSetup {
        do {
            return try JSONDecoder().decode(LiveSessionSetup.self, from: Data(json.utf8))
        } catch {
            throw LiveJournalError.damaged(path: path, detail: "its stored configuration cannot be read (\(error))")
        }
    }

    /// Opens the session stored in `database`, or starts one.
    ///
    /// - Parameters:
    ///   - database: the store holding the journal (created by migration `v4-live-journal`).
    ///   - setup: the configuration and universe to run with; `nil` continues the stored session as it is.
    ///   - reset: start over with `setup`: journaled events and snapshots are deleted, the journaled bars kept and
    ///     replayed through the new session (their events journaled again).
    ///   - synchronous: SQLite's `synchronous` setting for the journal (`.full`: an acknowledged commit survives a
    ///     power loss; see the store's Journal article).
    ///   - snapshotInterval: journal a snapshot every this many accepted inputs (bounds the replay on restart).
    /// - Throws: ``LiveJournalError`` (a different stored configuration, no session, a damaged one),
    ///   `StoreError`, or the session's errors for an invalid configuration.
    public init(
        database: SentioDatabase, setup: LiveSessionSetup?, reset: Bool = false,
        synchronous: LiveJournal.Synchronous = .full, snapshotInterval: Int = defaultSnapshotInterval
    ) throws {
        precondition(snapshotInterval >= 1, "snapshotInterval must be at least 1")
        let journal = try LiveJournal(database: database, synchronous: synchronous)
        self.journal = journal
        self.snapshotInterval = snapshotInterval
        var stored: LiveSessionSetup?
        if let json = try journal.configurationJSON() { stored = try Self.decodeSetup(json, path: database.path) }
        guard let chosen = setup ?? stored else { throw LiveJournalError.noSession(path: database.path) }
        if let stored, !reset {
            let differences = chosen.differences(from: stored)
            if !differences.isEmpty {
                throw LiveJournalError.configurationMismatch(path: database.path, differences: differences)
            }
        }
        self.setup = chosen
        let fresh = stored == nil || reset
        if fresh {
            try chosen.configuration.validate()
            // Validate by building the session before anything is written.
            session = try LiveSession(configuration: chosen.configuration, universe: chosen.universe)
            try journal.start(configurationJSON: try OrderedJSON.encode(chosen), resetting: reset)
            try replay(after: 0, journaling: true)
        } else if let snapshot = try journal.latestSnapshot(),
                  LiveSnapshot.version(ofEncoded: [UInt8](snapshot.state)) == LiveSnapshot.currentVersion {
            do {
                session = try LiveSession(snapshot: try LiveSnapshot(encoded: [UInt8](snapshot.state)))
            } catch {
                throw LiveJournalError.damaged(
                    path: database.path, detail: "its snapshot after input \(snapshot.inputSeq) cannot be read (\(error))")
            }
            if !session.hasFullHistory {
                // The history before the snapshot (equity curve, order and trade logs) is rebuilt only when asked
                // for (`live show`, the server): a replay of the journaled inputs the snapshot covers.
                let covered = snapshot.inputSeq, path = database.path
                session.historyProvider = { [journal, chosen] in
                    let prefix = try LiveSession(configuration: chosen.configuration, universe: chosen.universe)
                    try journal.forEachInput(after: 0, through: covered) { inputSeq, input in
                        try Self.apply(input, seq: inputSeq, to: prefix, path: path)
                        prefix.discardEvents()
                    }
                    return prefix
                }
            }
            try replay(after: snapshot.inputSeq, journaling: false)
        } else {
            // No snapshot, or one of an older format (a replay of every input rebuilds the state, and the next
            // commit journals a snapshot of this build's format).
            session = try LiveSession(configuration: chosen.configuration, universe: chosen.universe)
            try replay(after: 0, journaling: false)
        }
    }

    /// Replays the journaled inputs after `seq`. Without `journaling` (a restart) their events were journaled
    /// before and are dropped; with it (a reset) they are journaled again, with snapshots, in batches.
    private func replay(after seq: Int64, journaling: Bool) throws {
        let path = journal.database.path
        var count = 0
        try journal.forEachInput(after: seq) { inputSeq, input in
            count += 1
            appliedInputSeq = inputSeq
            if case .bar(let symbol, let bar) = input {
                if bar.timestamp >= lastAccepted[symbol]?.timestamp ?? .min { lastAccepted[symbol] = bar }
            }
            if journaling {
                // A reset: the inputs were accepted under another configuration; under this one they go through
                // the session as they are (a bar is accepted; a journaled step close closes the pending step).
                switch input {
                case .bar(let symbol, let bar):
                    _ = session.process(
                        LiveBar(
                            symbol: symbol, timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low,
                            close: bar.close, volume: bar.volume))
                case .stepClosed:
                    session.closePendingStep()
                }
            } else {
                try Self.apply(input, seq: inputSeq, to: session, path: path)
            }
            if journaling {
                try session.takeEvents { pending in
                    if case .event(let event) = pending, Self.isJournaled(event) {
                        batch.appendEvent(type: event.type, json: try LiveJournalCodec.line(event), inputSeq: inputSeq)
                    }
                }
                inputsSinceSnapshot += 1
                if inputsSinceSnapshot >= snapshotInterval && session.canSnapshot {
                    batch.setSnapshot(Data(try session.compactSnapshot().encoded()), coveringInput: inputSeq)
                    inputsSinceSnapshot = 0
                }
                if batch.eventCount >= 10_000 || batch.hasSnapshot { try journal.commit(&batch) }
            } else {
                session.discardEvents()
            }
        }
        if journaling { try journal.commit(&batch) }
        replayedInputs = count
        appliedInputSeq = journal.lastInputSeq
        if !journaling { inputsSinceSnapshot = count }
    }

    /// Replays one journaled input through `session` (events are left in it), checking that it is accepted as
    /// it was when journaled.
    ///
    /// - Throws: ``LiveJournalError/damaged(path:detail:)`` when it is not.
    static func apply(_ input: LiveJournalInput, seq inputSeq: Int64, to session: LiveSession, path: String) throws {
        switch input {
        case .bar(let symbol, let bar):
            let outcome = session.process(
                LiveBar(
                    symbol: symbol, timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low,
                    close: bar.close, volume: bar.volume))
            if case .accepted(let completed) = outcome, completed <= 1 { return }
            throw LiveJournalError.damaged(
                path: path, detail: "journaled input \(inputSeq) (\(symbol) bar) was not accepted on replay (\(outcome))")
        case .stepClosed(let timestamp):
            guard session.pendingStepTime == timestamp else {
                throw LiveJournalError.damaged(
                    path: path, detail: "journaled input \(inputSeq) closes step \(iso8601(epochSeconds: timestamp)) but no such step is pending on replay")
            }
            session.closePendingStep()
        }
    }

    /// Orders, fills and rejections are journaled; signal updates and equity marks follow from the bars.
    static func isJournaled(_ event: LiveEvent) -> Bool {
        switch event {
        case .order, .fill, .rejected: return true
        case .signalUpdate, .equity: return false
        }
    }

    private func lastAcceptedBar(_ symbol: String) throws -> Bar? {
        if let b = lastAccepted[symbol] { return b }
        try waitForBackgroundCommit()
        guard let t = journal.lastTimestamp(symbol: symbol), let b = try journal.storedBar(symbol: symbol, timestamp: t)
        else { return nil }
        lastAccepted[symbol] = b
        return b
    }

    private func record(_ event: LiveEvent, line: Int?) throws {
        var event = event
        if case .rejected(var rejection) = event, rejection.line == nil, let line {
            rejection.line = line
            event = .rejected(rejection)
        }
        if case .rejected = event { counts.rejected += 1 }
        if Self.isJournaled(event) {
            batch.appendEvent(type: event.type, json: try LiveJournalCodec.line(event), inputSeq: appliedInputSeq)
        }
        output.append(.event(event))
    }

    /// Records the session's events (signal updates stay engine signals until they are published).
    private func recordSessionEvents(line: Int?) throws {
        try session.takeEvents { pending in
            switch pending {
            case .signal: output.append(pending)
            case .event(let event): try record(event, line: line)
            }
        }
    }

    /// Feeds one bar (`line`: its input line, for rejection events). Its events are published by ``commit(forceSnapshot:alongside:)``.
    ///
    /// - Throws: `StoreError` when the journal cannot be read, `JSONEncodingError` if an event cannot be encoded.
    public func ingest(_ feedBar: FeedBar, line: Int? = nil) throws {
        let symbol = feedBar.symbol, bar = feedBar.bar
        if let last = try lastAcceptedBar(symbol), bar.timestamp <= last.timestamp {
            var existing = bar.timestamp == last.timestamp
                ? last
                : batch.pendingBar(symbol: symbol, timestamp: bar.timestamp)
            if existing == nil {
                try waitForBackgroundCommit()  // the journal then holds every earlier input
                existing = try journal.storedBar(symbol: symbol, timestamp: bar.timestamp)
            }
            if let existing {
                if existing == bar {  // a duplicate: a no-op
                    counts.duplicates += 1
                    return
                }
                let rejection = LiveBarRejection.conflicting(
                    existing: LiveBar(
                        symbol: symbol, timestamp: existing.timestamp, open: existing.open, high: existing.high,
                        low: existing.low, close: existing.close, volume: existing.volume))
                try record(
                    .rejected(LiveRejection(
                        reason: .bar(rejection.kind), message: rejection.description, symbol: symbol,
                        timestamp: bar.timestamp, line: line)),
                    line: line)
                return
            }
        }
        let outcome = session.process(
            LiveBar(
                symbol: symbol, timestamp: bar.timestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close,
                volume: bar.volume))
        switch outcome {
        case .accepted: counts.accepted += 1
        case .duplicate: counts.duplicates += 1
        case .rejected: break
        }
        if case .accepted = outcome {
            batch.append(.bar(symbol: symbol, bar: bar))
            appliedInputSeq += 1
            lastAccepted[symbol] = bar
            inputsSinceSnapshot += 1
        }
        try recordSessionEvents(line: line)
    }

    /// Records a line that is not a bar as a `rejected` event (`malformed-line`, naming the line and field).
    public func reject(_ error: NDJSONBarError) throws {
        try record(
            .rejected(LiveRejection(
                reason: .malformedLine, message: error.description, field: error.field, line: error.line)),
            line: error.line)
    }

    /// Records an input that could not be read as a `rejected` event (`malformed-line`) with `message`.
    public func reject(line: Int, message: String) throws {
        try record(.rejected(LiveRejection(reason: .malformedLine, message: message, line: line)), line: line)
    }

    /// The grace delay passed: completes the pending step, if any, with the symbols that delivered (journaled,
    /// so that a replay closes it at the same point). Returns whether a step was closed.
    @discardableResult
    public func closeStepIfPending() throws -> Bool {
        guard let pending = session.pendingStepTime else { return false }
        session.closePendingStep()
        batch.append(.stepClosed(timestamp: pending))
        appliedInputSeq += 1
        inputsSinceSnapshot += 1
        try recordSessionEvents(line: nil)
        return true
    }

    /// Whether inputs or events wait for ``commit(forceSnapshot:alongside:)``.
    public var hasUncommitted: Bool { !batch.isEmpty || !output.isEmpty || inFlight != nil }

    /// Group commit: journals everything since the last commit in one transaction (with a snapshot when
    /// `snapshotInterval` inputs have passed since the last one), then returns the events to publish, in order.
    ///
    /// `investing`: the paper brokerage's rows changed by the same bars (``PaperBrokerage/stage(_:)``), written in the
    /// same transaction (`LiveJournal.commit(_:alongside:)`): one commit and one fsync per batch for both journals.
    ///
    /// - Throws: `StoreError`; nothing is then published, and the inputs count as never received (nor are the rows
    ///   written).
    public func commit(forceSnapshot: Bool = false, alongside investing: InvestingRows = InvestingRows()) throws -> [LiveEvent] {
        precondition(inFlight == nil, "commit() with a background commit in flight: call waitForBackgroundCommits(appendingLinesTo:) first")
        try journalBatch(forceSnapshot: forceSnapshot, alongside: investing)
        defer { output.removeAll(keepingCapacity: true) }
        var events: [LiveEvent] = []
        events.reserveCapacity(output.count)
        let config = session.configuration.signalModel
        for pending in output {
            switch pending {
            case .event(let event): events.append(event)
            case .signal(let signal):
                // Left out when the contract cannot carry it (as LiveSession.takeEvents() does).
                if LiveJournalCodec.isPublishable(signal) { events.append(.signalUpdate(signal, config: config)) }
            }
        }
        return events
    }

    /// ``commit(forceSnapshot:alongside:)``, then the events to publish appended to `lines` as NDJSON — the bytes of
    /// ``LiveJournalCodec/appendLine(_:to:)`` of each event ``commit(forceSnapshot:alongside:)`` returns — written straight from the
    /// engine's signals (no contract strings built: the cheap path of a command's output).
    ///
    /// - Throws: `StoreError` (nothing appended); `JSONEncodingError` for an order, fill or equity event with a
    ///   non-finite number (after the commit).
    public func commit(forceSnapshot: Bool = false, appendingLinesTo lines: inout [UInt8]) throws {
        try waitForBackgroundCommits(appendingLinesTo: &lines)
        try journalBatch(forceSnapshot: forceSnapshot)
        defer { output.removeAll(keepingCapacity: true) }
        try appendOutputLines(to: &lines)
    }

    /// Journals the open batch (with a snapshot when due) in one transaction.
    private func journalBatch(forceSnapshot: Bool, alongside investing: InvestingRows = InvestingRows()) throws {
        try takeSnapshotIfDue(force: forceSnapshot)
        try journal.commit(&batch, alongside: investing)
    }

    private func takeSnapshotIfDue(force: Bool) throws {
        guard session.canSnapshot else { return }  // rebuilt from its inputs on restart
        if inputsSinceSnapshot >= snapshotInterval || (force && inputsSinceSnapshot > 0) {
            batch.setSnapshot(Data(try session.compactSnapshot().encoded()), coveringInput: appliedInputSeq)
            inputsSinceSnapshot = 0
        }
    }

    // MARK: - Pipelined group commit

    /// Pipelined group commit, for a second core: first waits for the previous background commit and appends its
    /// lines to `lines` (they are durable now: publish them), then hands the open batch (with a snapshot when
    /// due) to a writer thread, which commits it in one transaction while this thread writes its events' lines
    /// (as ``commit(forceSnapshot:appendingLinesTo:)`` writes them) and goes on ingesting. The lines of a batch
    /// are therefore handed out one call later, after its commit: output order and "committed before published"
    /// hold as with ``commit(forceSnapshot:appendingLinesTo:)``. ``waitForBackgroundCommits(appendingLinesTo:)``
    /// (or ``commit(forceSnapshot:appendingLinesTo:)``) hands out the last one.
    ///
    /// While a background commit is in flight, ``journal`` belongs to the writer thread: read it only after
    /// ``waitForBackgroundCommits(appendingLinesTo:)``. (Ingesting needs the journal only for a symbol's first
    /// bar in this process and for a re-sent bar older than the symbol's latest; it then waits by itself.)
    ///
    /// - Throws: the `StoreError` of the previous background commit (nothing of it is published, and the session
    ///   stays failed: every later commit throws it again; reopen the session, which continues after the last
    ///   durable commit); `JSONEncodingError` as ``commit(forceSnapshot:appendingLinesTo:)``.
    public func commitInBackground(appendingCommittedLinesTo lines: inout [UInt8]) throws {
        try waitForBackgroundCommits(appendingLinesTo: &lines)
        try takeSnapshotIfDue(force: false)
        let job = BackgroundCommit(journal: journal, batch: batch)
        batch.removeAll()
        inFlight = job
        inFlightFinished = false
        writer.async { job.run() }
        // Written while the writer commits; handed out once the commit is durable.
        encodedLines.removeAll(keepingCapacity: true)
        defer { output.removeAll(keepingCapacity: true) }
        try appendOutputLines(to: &encodedLines)
        swap(&encodedLines, &inFlightLines)
    }

    /// Waits for the background commit in flight, if any, and appends its lines to `lines` (durable now).
    ///
    /// - Throws: its `StoreError` (see ``commitInBackground(appendingCommittedLinesTo:)``).
    public func waitForBackgroundCommits(appendingLinesTo lines: inout [UInt8]) throws {
        guard try awaitInFlight() else { return }
        lines.append(contentsOf: inFlightLines)
        inFlightLines.removeAll(keepingCapacity: true)
        inFlight = nil
        inFlightFinished = false
    }

    /// Waits for the background commit without handing out its lines (for reading the journal: the lines stay
    /// for the next hand-out).
    private func waitForBackgroundCommit() throws { _ = try awaitInFlight() }

    /// Waits (once) for the commit in flight; `false` when there is none.
    ///
    /// - Throws: its error, or that of an earlier failed background commit.
    private func awaitInFlight() throws -> Bool {
        if let failure = backgroundFailure { throw failure }
        guard let job = inFlight else { return false }
        if !inFlightFinished {
            job.done.wait()
            inFlightFinished = true
        }
        if let error = job.error {
            backgroundFailure = error
            inFlight = nil
            inFlightLines.removeAll(keepingCapacity: true)
            throw error
        }
        return true
    }

    /// The lines of the pending output, in order.
    private func appendOutputLines(to lines: inout [UInt8]) throws {
        let config = session.configuration.signalModel
        for pending in output {
            switch pending {
            case .event(let event): try LiveJournalCodec.appendLine(event, to: &lines)
            case .signal(let signal): LiveJournalCodec.appendSignalUpdate(signal, config: config, to: &lines)
            }
        }
    }

    /// The last commit of a clean exit: journals what is left, with a snapshot so the next start replays nothing.
    /// (After ``commitInBackground(appendingCommittedLinesTo:)``, wait with
    /// ``waitForBackgroundCommits(appendingLinesTo:)`` first, or finish with
    /// `commit(forceSnapshot: true, appendingLinesTo:)`.)
    public func finish() throws -> [LiveEvent] {
        try commit(forceSnapshot: true)
    }
}

/// One group commit run on ``JournaledLiveSession``'s writer thread. The thread that creates it hands it over and
/// touches it again only after `done` is signalled (which orders the writer's effects before that read), so its
/// unsynchronized state is never shared: hence `@unchecked Sendable`.
private final class BackgroundCommit: @unchecked Sendable {
    let journal: LiveJournal
    var batch: LiveJournalBatch
    var error: (any Error)?
    let done = DispatchSemaphore(value: 0)

    init(journal: LiveJournal, batch: LiveJournalBatch) {
        self.journal = journal
        self.batch = batch
    }

    func run() {
        do { try journal.commit(&batch) } catch { self.error = error }
        done.signal()
    }
}
