import Foundation
import Logging
import SentioCore
import SentioData
import SentioLive
import ServiceLifecycle

/// Bars from per-symbol CSV files that a downloader appends to (`--follow DIR`), fed through the live session
/// while serving: every `pollInterval` seconds SentioLive's `FollowedDirectory` reads the rows completed since the
/// previous look and the server ingests them as `POST /api/v1/bars` would (durable, then published).
///
/// What the user should know goes to `report`, one line each: rows that are not bars (file, line, field), bars the
/// session refused (late or conflicting), a truncated or replaced file read again from its start.
public struct FollowFeed: Sendable {
    public var directory: FollowedDirectory
    public var pollInterval: Double
    public var report: @Sendable (String) -> Void

    /// - Parameters:
    ///   - directory: the directory to follow, with the universe whose files are read.
    ///   - pollInterval: seconds between looks at the files (> 0).
    ///   - report: where notices go (the CLI prints them to standard error).
    public init(directory: FollowedDirectory, pollInterval: Double, report: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.pollInterval = pollInterval
        self.report = report
    }
}

struct FollowService: Service {
    let feed: FollowFeed
    let engine: LiveEngine
    let logger: Logger

    func run() async throws {
        do { try await follow() } catch is CancellationError {
        } catch {
            feed.report("--follow stopped: \(error)")
            logger.error("follow stopped: \(error)")
        }
    }

    func follow() async throws {
        let feed = self.feed, engine = self.engine
        let interval = Duration.seconds(feed.pollInterval)
        try await cancelWhenGracefulShutdown {
            var directory = feed.directory
            while true {
                let poll = directory.poll()
                for notice in poll.notices { feed.report(notice) }
                for row in poll.rowErrors { feed.report(row.message) }
                if !poll.bars.isEmpty {
                    let outcomes = try await engine.ingest(poll.bars)
                    for (bar, outcome) in zip(poll.bars, outcomes) {
                        if case .rejected(let reason, let message) = outcome {
                            feed.report("\(bar.symbol) \(iso8601(epochSeconds: bar.bar.timestamp)): rejected (\(reason)): \(message)")
                        }
                    }
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
