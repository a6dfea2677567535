import Foundation

/// A wait in a test that ran out: what was awaited, and how long and how often it was checked.
public struct PollTimedOut: Error, CustomStringConvertible {
    public var description: String
}

/// Evaluates `condition` every `interval` until it holds: a hang guard, never a measurement.
///
/// It gives up only once **both** `seconds` of wall-clock time have passed **and** `condition` has been evaluated
/// `seconds / interval` times. The test process runs hundreds of tests on Swift's cooperative pool, which has one
/// thread per core (two in CI), and tests that wait for child processes hold those threads. A wall-clock deadline
/// alone can then expire before the awaited work (a server's handler, a WebSocket client) got a single turn — CI
/// once saw a WebSocket snapshot "not received" after 20 s of a test that the starved pool had stretched to 218 s.
/// Each poll suspends, so counting polls gives the awaited work at least as many turns as it gets on an idle machine.
///
/// - Parameters:
///   - what: names the awaited event in the error.
///   - failFast: checked after `condition` fails; a non-nil message ends the wait at once (the awaited event can no
///     longer happen, for example the connection it needed has closed).
public func pollUntil(
    _ what: @autoclosure () -> String, seconds: Double = 60, interval: Duration = .milliseconds(10),
    failFast: () -> String? = { nil }, _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let start = clock.now
    let wallLimit = Duration.seconds(seconds)
    let pollLimit = Int((Duration.seconds(seconds) / interval).rounded(.up))
    var polls = 0
    while try await !condition() {
        if let reason = failFast() { throw PollTimedOut(description: "\(what()): \(reason)") }
        polls += 1
        if polls >= pollLimit, clock.now - start >= wallLimit {
            throw PollTimedOut(description: "\(what()): not after \(polls) checks in \(clock.now - start)")
        }
        try await Task.sleep(for: interval)
    }
}

/// Waits for `process` to exit without holding a thread: `isRunning` checked every 5 ms between suspensions.
///
/// Not `waitUntilExit()` on a Dispatch thread: on Linux, Foundation's `waitUntilExit` spins its thread's run loop
/// (a busy loop on a thread with no run-loop sources), and Dispatch's default-QoS threads are the ones Swift's
/// global executor runs on, one per core: a full test run once stalled for 18 minutes with one such thread spinning
/// at 73 % CPU while the test it waited for could not get a turn.
public func exited(_ process: Process) async {
    while process.isRunning {
        try? await Task.sleep(for: .milliseconds(5))
    }
}
