import SentioContractDecoders
import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SentioAPI
import SentioCore
import SentioData
import SentioServer
import SentioTestSupport
import Testing

struct StrictIngestResponse: Decodable {
    struct Result: Decodable {
        let index: Int
        let status: String
        let reason: String?
        let message: String?
    }
    let accepted: Int
    let duplicates: Int
    let rejected: Int
    let results: [Result]
}

@Suite("sentio serve: ingestion and the LP portal's auth", .serialized)
struct IngestAndAuthTests {
    @Test("ingestion is idempotent: a re-sent batch is all duplicates, a changed bar is rejected; the state is unchanged")
    func idempotentIngestion() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let steps = try sampleSteps()
        let batch = Array(steps[480..<485].joined())
        let first = try Strict.decode(StrictIngestResponse.self, try await h.ingest(batch).body)
        #expect(first.accepted == batch.count && first.duplicates == 0 && first.rejected == 0)
        let signalsAfterFirst = try await h.request("/api/v1/signals").body
        let second = try Strict.decode(StrictIngestResponse.self, try await h.ingest(batch).body)
        #expect(second.accepted == 0 && second.duplicates == batch.count)
        #expect(try await h.request("/api/v1/signals").body == signalsAfterFirst)

        var changed = batch[0]
        changed.bar.close = changed.bar.high  // still a valid bar, different values
        var unknown = batch[0]
        unknown.symbol = "ZZZZ"
        let mixed = try Strict.decode(StrictIngestResponse.self, try await h.ingest([changed, unknown, steps[485][0]]).body)
        #expect(mixed.results.map(\.status) == ["rejected", "rejected", "accepted"])
        #expect(mixed.results[0].reason == "conflicting-bar")
        #expect(mixed.results[1].reason == "unknown-symbol")
    }

    @Test("ingestion against an oracle: seeded random re-sends, duplicates and conflicts (3 seeds × 40 batches)")
    func ingestionOracle() async throws {
        let steps = try sampleSteps()
        for seed: UInt64 in [1, 7, 2024] {
            let h = try await ServerHarness(preload: 300)
            var rng = SplitMix64(seed: seed)
            // The oracle: what is stored per (symbol, timestamp).
            var stored: [String: [Int64: Bar]] = [:]
            var last: [String: Int64] = [:]
            for step in steps.prefix(300) { for b in step { stored[b.symbol, default: [:]][b.bar.timestamp] = b.bar; last[b.symbol] = b.bar.timestamp } }
            var next = 300
            for _ in 0..<40 {
                var batch: [FeedBar] = []
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    let kind = Int.random(in: 0..<4, using: &rng)
                    if kind < 2, next < steps.count {
                        batch += steps[next]; next += 1
                    } else if kind == 2 {
                        batch += steps[Int.random(in: 0..<next, using: &rng)]  // a re-send
                    } else {
                        var b = steps[Int.random(in: 0..<next, using: &rng)][0]
                        b.bar.volume += 1  // a conflicting re-send
                        batch.append(b)
                    }
                }
                var expected: [String] = []
                var pendingLast = last
                var pendingStored = stored
                for b in batch {
                    if let existing = pendingStored[b.symbol]?[b.bar.timestamp] {
                        expected.append(existing == b.bar ? "duplicate" : "rejected")
                    } else if let l = pendingLast[b.symbol], b.bar.timestamp <= l {
                        expected.append("rejected")
                    } else {
                        expected.append("accepted")
                        pendingStored[b.symbol, default: [:]][b.bar.timestamp] = b.bar
                        pendingLast[b.symbol] = b.bar.timestamp
                    }
                }
                stored = pendingStored
                last = pendingLast
                let reply = try Strict.decode(StrictIngestResponse.self, try await h.ingest(batch).body)
                #expect(reply.results.map(\.status) == expected, "seed \(seed)")
            }
            try await h.stop()
        }
    }

    @Test("ingestion: no token 401, wrong token 401, malformed NDJSON 400 naming the line, bad array element 400, body over --max-body 413, off without a token 404")
    func ingestionErrors() async throws {
        let h = try await ServerHarness(configure: { $0.maxBody = 4096 })
        defer { Task { try? await h.stop() } }
        let good = ndjson(try sampleSteps()[480])
        #expect(try await h.request("/api/v1/bars", method: .POST, body: good).status == 401)
        #expect(try await h.request("/api/v1/bars", method: .POST, headers: [("Authorization", "Bearer nope")], body: good).status == 401)
        let auth = [("Authorization", "Bearer \(ServerHarness.ingestToken)")]
        let malformed = good + #"{"symbol":"TQQQ","timestamp":"2024-01-02","open":"1","high":2,"low":1,"close":1.5,"volume":1}"# + "\n"
        let bad = try await h.request("/api/v1/bars", method: .POST, headers: auth, body: malformed)
        #expect(bad.status == 400)
        let message = try JSONDecoder().decode(APIErrorBody.self, from: Data(bad.body.utf8)).error
        #expect(message.contains("3") && message.contains("open"), "\(message)")
        let array = #"[{"symbol":"TQQQ","timestamp":"2030-01-02","open":1,"high":2,"low":1,"close":1.5,"volume":1},{"symbol":"TQQQ"}]"#
        let badArray = try await h.request("/api/v1/bars", method: .POST, headers: auth + [("Content-Type", "application/json")], body: array)
        #expect(badArray.status == 400)
        #expect(badArray.body.contains("element 1"))
        let big = try await h.request("/api/v1/bars", method: .POST, headers: auth, body: String(repeating: good, count: 40))
        #expect(big.status == 413)
        // Nothing of the refused bodies was ingested.
        let ok = try Strict.decode(StrictIngestResponse.self, try await h.request("/api/v1/bars", method: .POST, headers: auth, body: good).body)
        #expect(ok.accepted == 2)

        let off = try await ServerHarness(configure: { $0.ingestToken = nil })
        defer { Task { try? await off.stop() } }
        #expect(try await off.request("/api/v1/bars", method: .POST, headers: auth, body: good).status == 404)
    }
    // The LP portal's auth matrix (accounts, token claims, roles): PortalTests.authMatrix.
}
