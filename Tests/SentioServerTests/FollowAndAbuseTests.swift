import SentioContractDecoders
import AsyncHTTPClient
import Foundation
import NIOCore
import SentioAPI
import SentioCore
import SentioData
@testable import SentioServer
import SentioTestSupport
import Testing

/// Waits (polling) until `condition` holds; a hang guard, not a measurement (see `pollUntil`).
func eventually(_ what: String, seconds: Double = 60, _ condition: () async throws -> Bool) async throws {
    try await pollUntil("never happened: \(what)", seconds: seconds, interval: .milliseconds(20), condition)
}

/// The lines (each with its line feed) of a shipped sample file, header first.
func sampleLines(_ symbol: String) throws -> [String] {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Data/market/\(symbol).csv"), encoding: .utf8)
    return text.split(separator: "\n").map { String($0) + "\n" }
}

func appendText(_ text: String, to url: URL) throws {
    if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}

/// Daily bars after the sample's last day for the test symbols: a seeded random walk of valid OHLCV bars starting at
/// `closes` (the step they follow, in `testSymbols` order), so the first bar does not gap as a split would (a live
/// session rejects a move that looks like a split, `suspected-split`).
func syntheticSteps(after step: [FeedBar], count: Int, seed: UInt64) -> [[FeedBar]] {
    var rng = SplitMix64(seed: seed)
    let last = step[0].bar.timestamp
    var prices = testSymbols.map { symbol in step.first { $0.symbol == symbol }!.bar.close }
    return (1...count).map { k in
        testSymbols.enumerated().map { i, symbol in
            let open = prices[i]
            prices[i] = max(1, prices[i] * (1 + 0.02 * rng.nextGaussian()))
            let high = max(open, prices[i]) * 1.01, low = min(open, prices[i]) * 0.99
            return FeedBar(symbol: symbol, bar: Bar(
                timestamp: last + Int64(k) * 86_400, open: open, high: high, low: low, close: prices[i],
                volume: Double(1_000 + rng.next() % 1_000_000)))
        }
    }
}

@Suite("sentio serve: --follow, header floods, slow WebSocket clients", .serialized)
struct FollowAndAbuseTests {
    @Test("--follow: rows appended while serving are ingested (API and WebSocket reflect them, equal to POSTing the same bars); a partial last line waits for its line feed; a truncated file is read again with a notice, its rows duplicates")
    func followWhileServing() async throws {
        let dir = try temporaryDirectory("serve-follow")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = try testSymbols.map(sampleLines)
        let files = testSymbols.map { dir.appendingPathComponent("\($0).csv") }
        let steps = try sampleSteps()
        // The two sample files share their days: row r of each file is step r - 1.
        #expect(steps.allSatisfy { $0.count == testSymbols.count } && steps.count == lines[0].count - 1)
        for k in files.indices { try appendText(lines[k][0...300].joined(), to: files[k]) }

        let h = try await ServerHarness(preload: 0, follow: dir)
        defer { Task { try? await h.stop() } }
        try await eventually("the first 300 rows of each file ingested") { try await h.metric("sentio_bars_ingested_total") == 600 }
        let oracle300 = try await ServerHarness(preload: 300)
        #expect(try await h.request("/api/v1/signals").body == (try await oracle300.request("/api/v1/signals").body))
        try await oracle300.stop()

        let (recorder, task) = connectRecorder("ws://127.0.0.1:\(h.port)/ws/signals")
        defer { task.cancel() }
        try await recorder.waitFor(count: 2)
        // Row 301: SQQQ's cut inside the volume (read early, it would be a valid bar with the wrong volume).
        let sqqq = testSymbols.firstIndex(of: "SQQQ")!, tqqq = testSymbols.firstIndex(of: "TQQQ")!
        let row = lines[sqqq][301]
        let cut = row.index(row.lastIndex(of: ",")!, offsetBy: 3)
        try appendText(String(row[..<cut]), to: files[sqqq])
        try appendText(lines[tqqq][301], to: files[tqqq])
        try await eventually("TQQQ's row 301 ingested") { try await h.metric("sentio_bars_ingested_total") == 601 }
        try await Task.sleep(for: .milliseconds(200))  // several polls see the partial line
        #expect(try await h.metric("sentio_bars_ingested_total") == 601, "the partial line was not consumed")
        try appendText(String(row[cut...]), to: files[sqqq])
        try await eventually("SQQQ's completed row 301 ingested") { try await h.metric("sentio_bars_ingested_total") == 602 }
        try await recorder.waitFor(count: 4)
        let updates = try recorder.messages.withLockedValue { $0 }.suffix(2).map { try Strict.decode(StrictLiveMessage.self, $0) }
        #expect(Set(updates.map(\.data.symbol)) == Set(testSymbols))
        #expect(updates.allSatisfy { Int64($0.data.signal.timestamp.timeIntervalSince1970) == steps[300][0].bar.timestamp })
        let detail = try Strict.decode(StrictSymbolDetail.self, try await h.request("/api/v1/symbols/SQQQ").body)
        let fullVolume = try #require(Double(row.trimmingCharacters(in: .newlines).split(separator: ",").last!))
        #expect(detail.historicalData.last?.volume == fullVolume)

        // The rest, appended in seeded random chunks (cut anywhere), equals POSTing the same bars.
        var rng = SplitMix64(seed: 0xF0_11_0E)
        var rest = lines.map { Array($0[302...].joined().utf8) }
        while rest.contains(where: { !$0.isEmpty }) {
            let k = Int(rng.next() % UInt64(files.count))
            let n = min(rest[k].count, 1 + Int(rng.next() % 400))
            try appendText(String(decoding: rest[k].prefix(n), as: UTF8.self), to: files[k])
            rest[k].removeFirst(n)
        }
        let total = Double(steps.count * testSymbols.count)
        try await eventually("every row ingested") { try await h.metric("sentio_bars_ingested_total") == total }
        let oracle = try await ServerHarness(preload: steps.count)
        let served = try await h.request("/api/v1/signals").body
        #expect(served == (try await oracle.request("/api/v1/signals").body))
        #expect(try await h.request("/api/v1/portfolio").body == (try await oracle.request("/api/v1/portfolio").body))
        try await oracle.stop()
        #expect(h.reports.withLockedValue { $0 }.isEmpty, "no bad row, no rejected bar: \(h.reports.withLockedValue { $0 })")

        // Truncated and rewritten shorter: read again from its start with a notice; its rows are duplicates.
        let handle = try FileHandle(forWritingTo: files[tqqq])
        try handle.truncate(atOffset: 0)
        try handle.close()
        try appendText(lines[tqqq][0...100].joined(), to: files[tqqq])
        try await eventually("the truncation noticed") { !h.reports.withLockedValue { $0 }.isEmpty }
        let reports = h.reports.withLockedValue { $0 }
        #expect(reports.count == 1 && reports[0].contains("\(files[tqqq].path): the file was truncated"), "\(reports)")
        // The rest of the old rows again, then a new day in both files: once the new bars are accepted, every
        // row before them was read (file order), and all of those were duplicates.
        try appendText(lines[tqqq][101...].joined(), to: files[tqqq])
        let next = syntheticSteps(after: steps.last!, count: 1, seed: 7)[0]
        for bar in next {
            let b = bar.bar
            try appendText("\(iso8601(epochSeconds: b.timestamp)),\(b.open),\(b.high),\(b.low),\(b.close),\(b.volume)\n",
                           to: files[testSymbols.firstIndex(of: bar.symbol)!])
        }
        try await eventually("the new day ingested") { try await h.metric("sentio_bars_ingested_total") == total + 2 }
        #expect(h.reports.withLockedValue { $0 }.count == 1, "duplicates are silent: \(h.reports.withLockedValue { $0 })")
    }

    @Test("GET /api/v1/signals is encoded once per update: later GETs are served from the cache until a bar is accepted")
    func signalsBodyIsCached() async throws {
        let h = try await ServerHarness(preload: 100)
        defer { Task { try? await h.stop() } }
        #expect(h.server.engine.cachedBody("signals") == nil)
        let first = try await h.request("/api/v1/signals")
        let cached = try #require(h.server.engine.cachedBody("signals"))
        #expect(String(buffer: cached.bytes) == first.body)
        #expect(first.headers["ETag"].first == cached.etag)
        let second = try await h.request("/api/v1/signals")
        #expect(second.body == first.body && second.headers["ETag"] == first.headers["ETag"])
        #expect(try await h.ingest(try sampleSteps()[100]).status == 200)
        #expect(h.server.engine.cachedBody("signals") == nil, "an accepted bar empties the cache")
        let third = try await h.request("/api/v1/signals")
        #expect(third.headers["ETag"] != first.headers["ETag"])
        #expect(h.server.engine.cachedBody("signals")?.etag == third.headers["ETag"].first)
    }

    @Test("serve: --follow and --replay are mutually exclusive; a missing --follow directory is exit 2")
    func followOptionErrors() async throws {
        let dir = try temporaryDirectory("serve-follow-options")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("s.sqlite").path
        let both = try await runSentio(["serve", "--db", db, "--port", "0", "--follow", dir.path, "--replay", "Data/market"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("--follow and --replay are mutually exclusive"), "\(both.stderr)")
        let missing = try await runSentio(["serve", "--db", db, "--port", "0", "--symbols", "TQQQ", "--follow", dir.path + "/nope"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--follow \(dir.path)/nope: no such directory"), "\(missing.stderr)")
    }

    @Test("header floods (thousands of headers, a 1 MB header line, a flood after a good request) get 400/431 and a closed connection; a concurrent normal client keeps getting 200s")
    func headerFloods() async throws {
        let h = try await ServerHarness(preload: 60)
        defer { Task { try? await h.stop() } }
        let port = h.port
        let manyHeaders = "GET /api/v1/signals HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (0..<5_000).map { "X-Flood-\($0): \($0)\r\n" }.joined() + "\r\n"
        let hugeLine = "GET /api/v1/signals HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n"
        let afterGood = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + manyHeaders
        let payloads = Array(repeating: [manyHeaders, hugeLine, afterGood], count: 3).joined().map { Array($0.utf8) }

        struct Outcome: Sendable { var statuses: [Int]; var end: RawSocket.End; var afterGood: Bool }
        let floodsDone = NIOLockedValueBoxFlag()
        @Sendable func normalClient() async throws -> [Int] {
            var statuses: [Int] = []
            while !floodsDone.get() || statuses.count < 20 {
                statuses.append(try await h.request("/api/v1/signals").status)
            }
            return statuses
        }
        async let normal = normalClient()
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for payload in payloads {
                group.addTask {
                    try await offPool {
                        let socket = try RawSocket(port: port)
                        socket.write(payload)
                        let (bytes, end) = socket.readToEnd()
                        return Outcome(statuses: responseStatuses(bytes), end: end, afterGood: payload.count == afterGood.utf8.count)
                    }
                }
            }
            var all: [Outcome] = []
            for try await o in group { all.append(o) }
            floodsDone.set()
            return all
        }
        #expect(outcomes.count == payloads.count)
        for o in outcomes {
            #expect(o.end != .timedOut, "the server closes a flooding connection")
            let flooded = o.afterGood ? Array(o.statuses.dropFirst()) : o.statuses
            if o.afterGood { #expect(o.statuses.first == 200, "the good request before the flood is answered: \(o.statuses)") }
            #expect(flooded.allSatisfy { $0 == 400 || $0 == 431 }, "never served: \(o.statuses)")
        }
        let statuses = try await normal
        #expect(statuses.count >= 20 && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        #expect(try await h.request("/healthz").status == 200)
    }

    @Test("a WebSocket client that never reads is closed once it falls --ws-buffer messages behind (seen on a real socket); a normal client gets every update in order; ingestion never waits")
    func neverReadingWebSocketClient() async throws {
        let h = try await ServerHarness(preload: 480) { $0.webSocketBuffer = 64 }
        defer { Task { try? await h.stop() } }
        let port = h.port
        // The slow client: a raw socket with a small receive window that upgrades, then never reads.
        let slow = try RawSocket(port: port, receiveBuffer: 4096)
        let handshake = try await offPool { () -> [UInt8]? in
            slow.write(Array(("GET /ws/signals HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
            return slow.read(until: "\r\n\r\n")
        }
        #expect(responseStatuses(try #require(handshake)) == [101])
        let (recorder, task) = connectRecorder("ws://127.0.0.1:\(port)/ws/signals")
        defer { task.cancel() }
        try await recorder.waitFor(count: 2)
        try await eventually("both clients subscribed") { h.server.hub.clientCount == 2 }
        #expect(try await h.metric("sentio_websocket_clients") == 2)

        let steps = syntheticSteps(after: try sampleSteps()[479], count: 8_000, seed: 0x510_C11E)
        var sent = 0
        // 24 steps (48 messages) per POST, then the normal client catches up: it never falls 64 behind.
        while h.server.hub.clientCount == 2 && sent < steps.count {
            let batch = Array(steps[sent..<min(steps.count, sent + 24)])
            #expect(try await h.ingest(Array(batch.joined())).status == 200)
            sent += batch.count
            try await recorder.waitFor(count: 2 + 2 * sent, seconds: 60)
        }
        #expect(h.server.hub.clientCount == 1, "the never-reading client was dropped after \(sent) steps")
        guard h.server.hub.clientCount == 1 else { return }
        try await eventually("the never-reading client's handler ended (connection closed)") {
            try await h.metric("sentio_websocket_clients") == 1
        }
        // The normal client still gets everything.
        for k in 0..<3 {
            let batch = Array(steps[(sent + k * 24)..<(sent + (k + 1) * 24)])
            #expect(try await h.ingest(Array(batch.joined())).status == 200)
        }
        sent += 72
        try await recorder.waitFor(count: 2 + 2 * sent, seconds: 60)
        let received = try recorder.messages.withLockedValue { $0 }.dropFirst(2).map { try Strict.decode(StrictLiveMessage.self, $0) }
        #expect(received.count == 2 * sent)
        #expect(received.map { Int64($0.data.signal.timestamp.timeIntervalSince1970) }
            == steps.prefix(sent).flatMap { step in step.map(\.bar.timestamp) }, "every update, in order")
        for (k, step) in steps.prefix(sent).enumerated() {
            #expect(Set(received[(2 * k)..<(2 * k + 2)].map(\.data.symbol)) == Set(step.map(\.symbol)))
        }
        // The slow client's connection was closed by the server (what it gets when it finally reads ends).
        let end = try await offPool { slow.readToEnd().end }
        #expect(end != .timedOut)
    }
}

/// A flag set once, read from any task.
final class NIOLockedValueBoxFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    func get() -> Bool { lock.lock(); defer { lock.unlock() }; return value }
}
