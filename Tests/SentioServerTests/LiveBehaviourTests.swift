import SentioContractDecoders
import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import SentioAPI
import SentioCore
import SentioData
@testable import SentioServer
import SentioTestSupport
import Testing

/// Collects the text messages of one WebSocket client, its close frame, and why it could not connect.
final class WSRecorder: Sendable {
    let messages = NIOLockedValueBox<[String]>([])
    let close = NIOLockedValueBox<WebSocketCloseFrame?>(nil)
    let finished = NIOLockedValueBox(false)
    let connectionError = NIOLockedValueBox<String?>(nil)

    func waitFor(count: Int, seconds: Double = 20) async throws {
        try await pollUntil("waited for \(count) messages, got \(messages.withLockedValue { $0.count })", seconds: seconds,
            failFast: { [self] in
                // The messages are recorded before `finished` is set: a finished client has all it will ever get.
                guard finished.withLockedValue({ $0 }), messages.withLockedValue({ $0.count }) < count else { return nil }
                return "the client ended" + (connectionError.withLockedValue { $0 }.map { " (\($0))" } ?? "")
            }) { messages.withLockedValue { $0.count } >= count }
    }

    func waitUntilFinished(seconds: Double = 20) async throws {
        try await pollUntil("the WebSocket did not close", seconds: seconds) { finished.withLockedValue { $0 } }
    }
}

/// Connects a WebSocket client in a task; returns its recorder.
func connectRecorder(_ url: String, read: Bool = true) -> (WSRecorder, Task<Void, Never>) {
    let recorder = WSRecorder()
    let task = Task {
        var logger = Logger(label: "ws-client")
        logger.logLevel = .critical
        do {
            let frame = try await WebSocketClient.connect(url: url, logger: logger) { inbound, _, _ in
                guard read else {
                    try await Task.sleep(for: .seconds(3600))
                    return
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { recorder.messages.withLockedValue { $0.append(text) } }
                }
            }
            recorder.close.withLockedValue { $0 = frame }
        } catch {
            recorder.connectionError.withLockedValue { $0 = "\(error)" }
        }
        recorder.finished.withLockedValue { $0 = true }
    }
    return (recorder, task)
}

@Suite("sentio serve: WebSocket, shutdown, restart", .serialized)
struct LiveBehaviourTests {
    @Test("WebSocket: one signal_update per ready symbol on connect, then the new signals; equal to GET /signals")
    func webSocketSnapshotAndUpdates() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let signals = try Strict.decode(StrictSignalsResponse.self, try await h.request("/api/v1/signals").body)
        let (recorder, task) = connectRecorder("ws://127.0.0.1:\(h.port)/ws/signals")
        defer { task.cancel() }
        try await recorder.waitFor(count: signals.signals.count)
        let snapshot = try recorder.messages.withLockedValue { $0 }.map { try Strict.decode(StrictLiveMessage.self, $0) }
        #expect(Set(snapshot.map(\.data.symbol)) == Set(signals.signals.map(\.symbol)))

        let step = try sampleSteps()[480]
        _ = try await h.ingest(step)
        try await recorder.waitFor(count: signals.signals.count + step.count)
        let texts = recorder.messages.withLockedValue { $0 }
        let updates = try texts.suffix(step.count).map { try Strict.decode(StrictLiveMessage.self, $0) }
        #expect(Set(updates.map(\.data.symbol)) == Set(step.map(\.symbol)))
        // The pushed signal is the one GET /signals now serves, field for field.
        let now = try #require(try JSONSerialization.jsonObject(with: Data(try await h.request("/api/v1/signals").body.utf8)) as? [String: Any])
        let served = try #require(now["signals"] as? [[String: Any]])
        for text in texts.suffix(step.count) {
            #expect(!text.contains("\n"), "one message per line")
            let message = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let signal = try #require((message["data"] as? [String: Any])?["signal"] as? [String: Any])
            let match = served.first { $0["symbol"] as? String == signal["symbol"] as? String }
            #expect(match.map { NSDictionary(dictionary: $0).isEqual(to: signal) } == true, "\(signal["symbol"] ?? "?")")
        }
        for u in updates {
            let bar = step.first { $0.symbol == u.data.symbol }!.bar
            #expect(u.data.price == bar.close)
            #expect(Int64(u.data.signal.timestamp.timeIntervalSince1970) == bar.timestamp)
        }
    }

    /// A sink that records what the hub queues on it: the frames decoded by NIO's own `WebSocketFrameDecoder`.
    final class RecordingSink: SignalSink, Sendable {
        let received = NIOLockedValueBox<[String]>([])
        func enqueue(_ wire: ByteBuffer, messages: Int) {
            let texts = try! LiveBehaviourTests.decodeFrames(wire)
            precondition(texts.count == messages)
            received.withLockedValue { $0 += texts }
        }
    }

    /// Text frames on the wire, decoded by NIOWebSocket's decoder (in an EmbeddedChannel).
    static func decodeFrames(_ wire: ByteBuffer) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 24)))
        try channel.writeInbound(wire)
        var texts: [String] = []
        while let frame = try channel.readInbound(as: WebSocketFrame.self) {
            precondition(frame.fin && frame.opcode == .text && frame.maskKey == nil && !frame.rsv1)
            texts.append(String(buffer: frame.unmaskedData))
        }
        _ = try channel.finish()
        return texts
    }

    @Test("the hub's framing is byte for byte what NIO's WebSocketFrameEncoder writes, for payload lengths around every length-field boundary")
    func framingMatchesNIO() throws {
        var rng = SplitMix64(seed: 6455)
        var lengths = [0, 1, 125, 126, 127, 65_535, 65_536, 70_000]
        for _ in 0..<20 { lengths.append(Int(rng.next() % 200_000)) }
        for n in lengths {
            let text = String((0..<n).map { k in Character(Unicode.Scalar(UInt8(97 + (k * 7 + n) % 26))) })
            let payload = ByteBuffer(string: text)
            let encoder = EmbeddedChannel(handler: WebSocketFrameEncoder())
            try encoder.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: payload)).wait()
            var expected = ByteBuffer()
            while var part = try encoder.readOutbound(as: ByteBuffer.self) { expected.writeBuffer(&part) }
            _ = try encoder.finish()
            #expect(WebSocketWire.textFrames([payload]) == expected, "payload of \(n) bytes")
            #expect(try Self.decodeFrames(WebSocketWire.textFrames([payload, payload])) == [text, text])
        }
    }

    @Test("the hub: snapshot first then every message in order; publishing never waits; a dropped client gets nothing more and learns why; shutdown ends all")
    func hubFanOut() async throws {
        let hub = SignalHub(capacity: 4)
        let sinks = [RecordingSink(), RecordingSink()]
        let a = try #require(hub.subscribe { _ in sinks[0] })
        let b = try #require(hub.subscribe { _ in sinks[1] })
        #expect(sinks[0].received.withLockedValue { $0 }.isEmpty, "no snapshot before the first message")
        for k in 0..<6 { hub.publish([(symbol: "S\(k % 2)", text: "m\(k)")]) }
        hub.drop(a.id, .slow)  // what a ChannelSink does for a client more than `capacity` behind
        var endedA = a.ended.makeAsyncIterator()
        #expect(await endedA.next() == .slow)
        #expect(await endedA.next() == nil)
        hub.publish([(symbol: "S0", text: "m6"), (symbol: "S1", text: "m7")])
        #expect(sinks[0].received.withLockedValue { $0 } == (0..<6).map { "m\($0)" })
        #expect(sinks[1].received.withLockedValue { $0 } == (0..<8).map { "m\($0)" })
        #expect(hub.clientCount == 1)
        // A new client's snapshot (the latest message per symbol, in first-seen order) comes before later messages.
        let late = RecordingSink()
        _ = try #require(hub.subscribe { _ in late })
        hub.publish([(symbol: "S2", text: "m8")])
        #expect(late.received.withLockedValue { $0 } == ["m6", "m7", "m8"])
        hub.shutdown()
        var endedB = b.ended.makeAsyncIterator()
        #expect(await endedB.next() == .shutdown)
        #expect(hub.clientCount == 0)
        #expect(hub.subscribe { _ in RecordingSink() } == nil)
    }

    @Test("graceful shutdown: WebSockets closed with 1001, in-flight request finished, run() returns")
    func gracefulShutdown() async throws {
        let h = try await ServerHarness()
        let (recorder, task) = connectRecorder("ws://127.0.0.1:\(h.port)/ws/signals")
        defer { task.cancel() }
        try await recorder.waitFor(count: 1)
        async let inFlight = h.request("/api/v1/portfolio")
        try await h.stop()
        try await recorder.waitUntilFinished()
        #expect(recorder.close.withLockedValue { $0 }?.closeCode == .goingAway)
        #expect(try await inFlight.status == 200)
    }

    @Test("child process: ready line, SIGTERM exits 0 in time, SIGKILL loses nothing acknowledged and restart serves the same state")
    func childProcessKillAndRestart() async throws {
        let directory = try temporaryDirectory("sentio-serve-child")
        let db = directory.appendingPathComponent("store.sqlite").path
        var environment = ProcessInfo.processInfo.environment
        environment["SENTIO_INGEST_TOKEN"] = "child-token"
        let arguments = ["serve", "--db", db, "--port", "0", "--symbols", testSymbols.joined(separator: ",")]

        func start() async throws -> (Process, Int, URL) {
            let serve = try await startServe(arguments, environment: environment)
            #expect(serve.startupText.split(separator: "\n").filter { $0.hasPrefix("sentio serve:") }.count == 1)
            return (serve.process, serve.port, serve.stderr)
        }
        func post(_ port: Int, _ bars: [FeedBar]) async throws -> Int {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/bars")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer child-token")
            request.body = .bytes(ByteBuffer(string: ndjson(bars)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))  // a hang guard (see pollUntil)
            _ = try await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        }
        func get(_ port: Int, _ path: String) async throws -> String {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(300))  // a hang guard (see pollUntil)
            return String(buffer: try await response.body.collect(upTo: 16 << 20))
        }

        let steps = try sampleSteps()
        var (process, port, _) = try await start()
        #expect(try await post(port, Array(steps.prefix(300).joined())) == 200)
        let acknowledged = try await get(port, "/api/v1/signals")
        kill(process.processIdentifier, SIGKILL)
        await exited(process)

        (process, port, _) = try await start()
        #expect(try await get(port, "/api/v1/signals") == acknowledged)
        #expect(try await post(port, steps[300]) == 200)
        // Exit within 5 s is bounded by the service group's 4 s graceful-shutdown limit (no wall-clock assertion here).
        kill(process.processIdentifier, SIGTERM)
        await exited(process)
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
    }
}
