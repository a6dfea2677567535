import Foundation
import NIOConcurrencyHelpers
import SentioAPI
import SentioData

/// The engine side: the backend, serialized; publishes to the hub and invalidates the caches.
actor LiveEngine {
    private let backend: any LiveBackend
    let hub: SignalHub
    let cache: NIOLockedValueBox<[String: CachedBody]>
    let metrics: ServerMetrics
    /// The investing app's paper brokerage: fed each batch after the backend.
    let investing: InvestingService?

    init(backend: sending any LiveBackend, hub: SignalHub, metrics: ServerMetrics, investing: InvestingService? = nil) {
        self.investing = investing
        self.backend = backend
        self.hub = hub
        self.metrics = metrics
        cache = NIOLockedValueBox([:])
        hub.seed(Self.encode(backend.currentMessages()))
    }

    static func encode(_ messages: [LiveMessage]) -> [(symbol: String, text: String)] {
        // One line per message (APIJSON's encoding without its layout), without the NDJSON line feed.
        messages.compactMap { m in (try? APIJSON.encodeLine(m)).map { (m.data.symbol, String($0.dropLast())) } }
    }

    func ingest(_ bars: [FeedBar]) throws -> [BarOutcome] {
        if let investing, let joint = backend as? any JointCommitBackend, joint.database === investing.database {
            // One transaction (one fsync) for the live journal and the paper brokerage: the brokerage's rows of
            // these bars are written in the live session's commit.
            let (result, commit, encoding, fanout) = try investing.ingest(bars) { rows in try joint.ingest(bars, alongside: rows) }
            metrics.commit.record(commit)
            metrics.investingCommit.record(commit)
            metrics.investingEncode.record(encoding)
            metrics.investingFanout.record(fanout)
            return published(result)
        }
        let start = ContinuousClock.now
        let result = try backend.ingest(bars)
        metrics.commit.record(ContinuousClock.now - start)
        let outcomes = published(result)
        if let investing {
            let (commit, encoding, fanout) = try investing.ingestMeasured(bars)
            metrics.investingCommit.record(commit)
            metrics.investingEncode.record(encoding)
            metrics.investingFanout.record(fanout)
        }
        return outcomes
    }

    /// Counts the accepted bars, invalidates the caches and publishes the signals of a durable batch.
    private func published(_ result: IngestResult) -> [BarOutcome] {
        let accepted = result.outcomes.filter { $0 == .accepted }.count
        if accepted > 0 {
            metrics.barsIngested.increment(by: Int64(accepted))
            cache.withLockedValue { $0.removeAll(keepingCapacity: true) }
        }
        hub.publish(Self.encode(result.messages))
        return result.outcomes
    }

    func tick() throws {
        let (changed, messages) = try backend.tick(now: Date().timeIntervalSince1970)
        if changed { cache.withLockedValue { $0.removeAll(keepingCapacity: true) } }
        hub.publish(Self.encode(messages))
    }

    /// The cached body for `key`, if any: read without entering the actor (a hit never waits for an ingestion).
    nonisolated func cachedBody(_ key: String) -> CachedBody? {
        cache.withLockedValue { $0[key] }
    }

    /// The cached body for `key`, computing it with `make` on a miss.
    func body(_ key: String, _ make: @Sendable (any LiveBackend) throws -> CachedBody) throws -> CachedBody {
        if let hit = cache.withLockedValue({ $0[key] }) { return hit }
        let body = try make(backend)
        cache.withLockedValue { $0[key] = body }
        return body
    }

    func finish() throws { try backend.finish() }
}

