import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-job progress on standard error, for a person watching a terminal: one line redrawn in place with the
/// command, the phase (`2/4 indicators and signals`), a bar when the phase's size is known, and the time spent.
///
/// Shown only when standard error is a terminal (`isatty`), so pipes, files and tests see nothing. The line is
/// redrawn at most every 100 ms by updates, and every 250 ms by a timer so that the clock keeps moving through a
/// phase that reports no counts (a long report being written never looks hung); `finish()` clears it and, for a job that took a second or more, prints one line
/// with each phase's time. Safe to call from any thread (the simulator reports from the thread running it).
///
/// Use: `let progress = TerminalProgress("backtest", phases: ["reading", "simulation", "writing"])`, then
/// `progress.begin("reading")`, `progress.update(done, of: total)` where counts are known, `progress.finish()`.
final class TerminalProgress: @unchecked Sendable {
    // Unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private let command: String
    private let phases: [String]
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var phase: (index: Int, name: String, started: ContinuousClock.Instant)?
    private var unit = ""
    private var estimate = true
    private var done = 0, total = 0
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private var timings: [(String, Duration)] = []
    private var finished = false
    private var ticker: (any DispatchSourceTimer)?

    /// - Parameters:
    ///   - command: the command's name, first on the line.
    ///   - phases: the job's phases in order (their count is shown as `k/n`).
    ///   - enabled: whether to draw; by default, whether standard error is a terminal.
    init(_ command: String, phases: [String], enabled: Bool = isatty(STDERR_FILENO) != 0) {
        self.command = command
        self.phases = phases
        self.enabled = enabled
        guard enabled else { return }
        let ticker = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        ticker.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        ticker.setEventHandler { [weak self] in self?.tick() }
        ticker.resume()
        self.ticker = ticker
    }

    deinit { ticker?.cancel() }

    /// The timer's redraw: only while a line is shown (not between `clearLine()` and the next update, when the
    /// command may be printing on the same terminal).
    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished, drawn, phase != nil else { return }
        draw(force: true)
    }

    /// Starts `name` (ending the phase before it); `unit` names what `update` counts (`bars`, `files`).
    /// `estimate`: whether to show an ETA from the pace so far — only for units of similar cost (not for outputs
    /// of very different sizes, such as a CSV and a report).
    func begin(_ name: String, unit: String = "", estimate: Bool = true) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        closePhase()
        let index = (phases.firstIndex(of: name) ?? phases.count) + 1
        phase = (index, name, ContinuousClock.now)
        self.unit = unit
        self.estimate = estimate
        done = 0
        total = 0
        draw(force: true)
    }

    /// `done` of `total` units of the current phase are complete.
    func update(_ done: Int, of total: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        self.done = done
        self.total = total
        draw(force: done == total)
    }

    /// Clears the progress line so that a line printed next (on standard output, to the same terminal) starts
    /// clean; the next `update` or `begin` draws it again.
    func clearLine() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        drawn = false
        lastDraw = nil
    }

    /// A callback for the simulator and other library loops that report `(done, total)`.
    var callback: @Sendable (Int, Int) -> Void { { [self] done, total in self.update(done, of: total) } }

    /// Ends the job: clears the line and, if the job took a second or more, prints the phases' times. Later
    /// calls do nothing.
    func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        ticker?.cancel()
        closePhase()
        phase = nil
        var text = drawn ? "\r\u{1B}[2K" : ""
        let elapsed = ContinuousClock.now - started
        if elapsed >= .seconds(1) {
            let parts = timings.map { "\($0.0) \(Self.seconds($0.1))" }.joined(separator: ", ")
            text += "\(command): done in \(Self.seconds(elapsed))\(parts.isEmpty ? "" : " (\(parts))")\n"
        }
        if !text.isEmpty { FileHandle.standardError.write(Data(text.utf8)) }
        drawn = false
    }

    private func closePhase() {
        if let p = phase { timings.append((p.name, ContinuousClock.now - p.started)) }
    }

    private func draw(force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = lastDraw, now - last < .milliseconds(100) { return }
        lastDraw = now
        guard let p = phase else { return }
        var line = "\(command) [\(p.index)/\(max(phases.count, p.index))] \(p.name)"
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 24, filled = Int(fraction * Double(width))
            line += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            line += " \(Self.grouped(done))/\(Self.grouped(total))\(unit.isEmpty ? "" : " " + unit)"
            // ETA from the phase's pace so far.
            if estimate && done > 0 && done < total {
                let elapsed = now - p.started
                let perUnit = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / Double(done)
                line += ", ETA " + String(format: "%.0f s", perUnit * Double(total - done))
            }
        }
        line += "  \(Self.seconds(now - started))"
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
        drawn = true
    }

    static func seconds(_ d: Duration) -> String {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return String(format: "%.1f s", s)
    }

    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var out = ""
        while digits.count > 3 {
            out = "," + String(digits.suffix(3)) + out
            digits.removeLast(3)
        }
        return String(digits) + out
    }
}
