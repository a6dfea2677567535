import Foundation
import Logging
import SentioCore
import SentioData
import ServiceLifecycle

/// Bars replayed through the live session while serving (`--replay DIR`): every symbol's bars merged into
/// steps (one step = the bars of one timestamp), fed at `stepsPerSecond` (`nil` = as fast as possible).
///
/// Steps whose bars are all already stored (a restart) are duplicates: they cost no wait, so a restarted replay
/// catches up at once and continues at its pace.
public struct ReplayFeed: Sendable {
    public var steps: [[FeedBar]]
    public var stepsPerSecond: Double?

    public init(series: [OHLCVSeries], stepsPerSecond: Double?) {
        var byTime: [Int64: [FeedBar]] = [:]
        for s in series {
            for i in 0..<s.count { byTime[s.timestamps[i], default: []].append(FeedBar(symbol: s.symbol, bar: s[bar: i])) }
        }
        steps = byTime.keys.sorted().map { byTime[$0]! }
        self.stepsPerSecond = stepsPerSecond
    }

    /// Reads every CSV file of `directory` (the OHLCV reader's rules; symbol = file name).
    /// - Throws: `CSVError` naming the file, line and field.
    public init(directory: String, stepsPerSecond: Double?) throws {
        self.init(series: try OHLCVReader.readDirectory(directory), stepsPerSecond: stepsPerSecond)
    }

    /// The symbols, sorted.
    public var symbols: [String] { Array(Set(steps.flatMap { $0.map(\.symbol) })).sorted() }
}

struct ReplayService: Service {
    let feed: ReplayFeed
    let engine: LiveEngine
    let logger: Logger

    func run() async throws {
        do { try await replay() } catch is CancellationError {
        } catch {
            logger.error("replay stopped: \(error)")
        }
    }

    func replay() async throws {
        try await cancelWhenGracefulShutdown {
            let interval = feed.stepsPerSecond.map { Duration.seconds(1.0 / $0) }
            var next = ContinuousClock.now
            var k = 0
            while k < feed.steps.count {
                // As fast as possible: batches of steps; paced: one step per tick.
                let batch = interval == nil ? Array(feed.steps[k..<min(feed.steps.count, k + 64)].joined()) : feed.steps[k]
                let count = interval == nil ? min(64, feed.steps.count - k) : 1
                let outcomes = try await engine.ingest(batch)
                k += count
                if let interval, outcomes.contains(where: { $0 != .duplicate }) {
                    next = max(next + interval, ContinuousClock.now - interval)
                    try await Task.sleep(until: next)
                } else if interval == nil {
                    await Task.yield()
                }
            }
            logger.info("replay finished: \(feed.steps.count) steps")
        }
    }
}

/// Lets the backend complete steps that waited past their grace delay (``LiveBackend/tick(now:)``), once a second.
struct StepTicker: Service {
    let engine: LiveEngine
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    do { try await engine.tick() } catch { logger.error("step timeout: \(error)") }
                }
            }
        } catch is CancellationError {}
    }
}
