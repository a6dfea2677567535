import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import SentioAPI

/// Fans `signal_update` messages out to WebSocket clients without ever waiting for one.
///
/// Each batch of messages is encoded and framed once (``WebSocketWire/textFrames(_:)``: one `ByteBuffer` shared by
/// every client). Publishing hands each client's ``SignalSink`` the framed batch and returns at once; the sink queues them on the client's connection, bounded
/// by ``capacity`` messages not yet taken by the kernel. A client that falls further behind is **dropped** — closed
/// with code 1008 (policy violation, reason `slow consumer: more than N messages behind`) rather than skipped to the
/// newest state: a client that reconnects gets the full current state as its snapshot. On shutdown every client
/// is ended with 1001. A subscriber learns that it was dropped or shut down from its ``Subscription/ended`` stream.
final class SignalHub: Sendable {
    /// Why a client ended.
    enum End: Sendable, Equatable { case slow, shutdown }

    /// A registered client: its id, and the stream that yields once when the hub ends it (then finishes; it also
    /// finishes on ``unsubscribe(_:)``).
    struct Subscription: Sendable {
        let id: Int
        let ended: AsyncStream<End>
    }

    private struct Client {
        let sink: any SignalSink
        let end: AsyncStream<End>.Continuation
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        /// The current encoded `signal_update` of each symbol, in first-seen order.
        var current: [String: ByteBuffer] = [:]
        var order: [String] = []
        var closed = false

        var snapshot: [ByteBuffer] { order.compactMap { current[$0] } }

        mutating func record(_ messages: [(symbol: String, buffer: ByteBuffer)]) {
            for m in messages {
                if current[m.symbol] == nil { order.append(m.symbol) }
                current[m.symbol] = m.buffer
            }
        }
    }

    /// Messages a client may have queued (not yet taken by the kernel) before it is dropped as slow.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    var clientCount: Int { state.withLockedValue { $0.clients.count } }

    /// WebSocket handlers still running (shutdown waits for them to send their close frames).
    private let handlers = NIOLockedValueBox(0)
    var activeHandlers: Int { handlers.withLockedValue { $0 } }
    func handlerStarted() { handlers.withLockedValue { $0 += 1 } }
    func handlerEnded() { handlers.withLockedValue { $0 -= 1 } }

    /// Registers a client whose messages go to the sink `makeSink` builds for its id, and queues the snapshot (the
    /// current message of each symbol) on it first — under the hub's lock, so no message is lost or doubled between
    /// the snapshot and later ones. `nil` after shutdown.
    func subscribe(_ makeSink: (_ id: Int) -> any SignalSink) -> Subscription? {
        let (ended, end) = AsyncStream<End>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return state.withLockedValue { s in
            guard !s.closed else { return nil }
            let id = s.nextID
            s.nextID += 1
            let sink = makeSink(id)
            s.clients[id] = Client(sink: sink, end: end)
            let snapshot = s.snapshot
            if !snapshot.isEmpty { sink.enqueue(WebSocketWire.textFrames(snapshot), messages: snapshot.count) }
            return Subscription(id: id, ended: ended)
        }
    }

    /// Removes a client (its connection ended); finishes its `ended` stream.
    func unsubscribe(_ id: Int) {
        let client = state.withLockedValue { $0.clients.removeValue(forKey: id) }
        client?.end.finish()
    }

    /// Ends a client for `reason` (a sink reports `.slow`): it gets no more messages; its `ended` stream yields
    /// the reason.
    func drop(_ id: Int, _ reason: End) {
        guard let client = state.withLockedValue({ $0.clients.removeValue(forKey: id) }) else { return }
        client.end.yield(reason)
        client.end.finish()
    }

    /// Publishes encoded messages (symbol, text) in order: each encoded once, queued on every client's sink.
    func publish(_ messages: [(symbol: String, text: String)]) {
        guard !messages.isEmpty else { return }
        let buffers = messages.map { (symbol: $0.symbol, buffer: ByteBuffer(string: $0.text)) }
        let wire = WebSocketWire.textFrames(buffers.map(\.buffer))
        state.withLockedValue { s in
            s.record(buffers)
            for client in s.clients.values { client.sink.enqueue(wire, messages: buffers.count) }
        }
    }

    /// Sets the current state without sending (a restart's loaded state).
    func seed(_ messages: [(symbol: String, text: String)]) {
        state.withLockedValue { $0.record(messages.map { (symbol: $0.symbol, buffer: ByteBuffer(string: $0.text)) }) }
    }

    /// Ends every client with `.shutdown` and refuses new ones.
    func shutdown() {
        let clients = state.withLockedValue { s -> [Client] in
            s.closed = true
            defer { s.clients = [:] }
            return Array(s.clients.values)
        }
        for c in clients {
            c.end.yield(.shutdown)
            c.end.finish()
        }
    }
}

/// Where the hub's messages for one client go.
protocol SignalSink: AnyObject, Sendable {
    /// Queues `wire` — `messages` text frames, framed by ``WebSocketWire/textFrames(_:)`` — for the client, without
    /// waiting (called under the hub's lock: it must only schedule work). A sink that finds its client more than
    /// the hub's capacity behind reports it (for a ``ChannelSink``, through its `onSlow` callback) and drops later
    /// messages.
    func enqueue(_ wire: ByteBuffer, messages: Int)
}

/// Server-to-client WebSocket text frames on the wire (RFC 6455 §5.2): FIN set, opcode 1 (text), no mask (a server
/// never masks), no extension bits (the `/ws/signals` upgrade negotiates no extension), the payload length in 7
/// bits, or 126 and 16 bits, or 127 and 64 bits (network byte order).
enum WebSocketWire {
    /// The frames of `payloads` (UTF-8 text), concatenated in order.
    static func textFrames(_ payloads: [ByteBuffer]) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(payloads.reduce(0) { $0 + $1.readableBytes + 10 })
        for payload in payloads {
            let n = payload.readableBytes
            out.writeInteger(UInt8(0x81))
            if n < 126 {
                out.writeInteger(UInt8(n))
            } else if n <= 0xFFFF {
                out.writeInteger(UInt8(126))
                out.writeInteger(UInt16(n), endianness: .big)
            } else {
                out.writeInteger(UInt8(127))
                out.writeInteger(UInt64(n), endianness: .big)
            }
            out.writeImmutableBuffer(payload)
        }
        return out
    }
}

/// Writes a WebSocket client's messages straight to its NIO channel: one event-loop task, one write of the batch's
/// pre-framed bytes (shared by every client, not copied) and one flush per published batch.
///
/// Written here rather than through hummingbird-websocket's per-message `outbound.write`, because measurement showed
/// the cost (Benchmarks/serve/run.sh, release, 1,000 clients, 12-message steps, 2 cores): a Swift task per client
/// woken for every message and a flush per message took 275 ms (p50) from the POST to the last client; frames
/// written per client from here, 76–94 ms; the batch framed once and written below NIO's frame encoder (this type),
/// see the Serving article for the figure. The bytes are written from the `WebSocketFrameEncoder`'s context, so
/// they skip only that encoder (which would frame them exactly so: ``WebSocketWire``; a test compares the two);
/// the handler still sends its close frame through hummingbird-websocket, on the same event loop, after the data
/// already queued.
///
/// The bound: `outstanding` counts messages handed to NIO whose write has not completed (not yet taken by the
/// kernel); a batch that would take it above `capacity` drops the client (`onSlow`) instead.
final class ChannelSink: SignalSink, @unchecked Sendable {
    // Unchecked: `outstanding`, `isDropped` and `encoderContext` are used only on the channel's event loop.
    private let channel: any Channel
    private let capacity: Int
    private let onSlow: @Sendable () -> Void
    private var outstanding = 0
    private var isDropped = false
    private var encoderContext: ChannelHandlerContext?

    init(channel: any Channel, capacity: Int, onSlow: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.capacity = capacity
        self.onSlow = onSlow
    }

    func enqueue(_ wire: ByteBuffer, messages: Int) {
        channel.eventLoop.execute { self.write(wire, messages: messages) }
    }

    /// The channel's event loop: a fan-out to many sinks can queue one task per loop that calls
    /// ``writeOnLoop(_:messages:)`` for each of its sinks, instead of one task per sink.
    var eventLoop: any EventLoop { channel.eventLoop }

    /// ``enqueue(_:messages:)``, called on ``eventLoop``.
    func writeOnLoop(_ wire: ByteBuffer, messages: Int) {
        eventLoop.preconditionInEventLoop()
        write(wire, messages: messages)
    }

    private func write(_ wire: ByteBuffer, messages: Int) {
        guard !isDropped, messages > 0 else { return }
        guard outstanding + messages <= capacity else {
            isDropped = true
            onSlow()
            return
        }
        if encoderContext == nil {
            encoderContext = try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        }
        // The pipeline no longer holds the encoder (the connection is closing): nothing can be sent.
        guard let context = encoderContext else { return }
        outstanding += messages
        let written = channel.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(wire), promise: written)
        written.futureResult.whenComplete { _ in self.outstanding -= messages }
    }
}
