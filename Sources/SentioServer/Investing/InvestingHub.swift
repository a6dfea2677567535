import NIOConcurrencyHelpers
import NIOCore

/// The investing app's WebSocket connections and their subscriptions; fans the brokerage's events out without
/// waiting for any client.
///
/// Each message is encoded and framed once (``WebSocketWire/textFrames(_:)``); a connection gets the frames of the
/// channels (and, for `quotes`, the symbols) it subscribed to, and of its own investor only (orders, positions,
/// account, DCA, transfers), queued on its ``SignalSink`` like the signals socket's clients (a client more than the
/// buffer behind is dropped with 1008). Subscriptions change under the hub's lock, so a message is never half
/// delivered across a change.
final class InvestingHub: Sendable {
    enum End: Sendable, Equatable { case slow, shutdown }

    enum Admission {
        case connected(id: Int, ended: AsyncStream<End>)
        /// Over `maxConnections` (close 4005).
        case full
        /// Shutting down (close 4006).
        case closed
    }

    private struct Connection {
        let userID: String
        var channels: Set<String>
        var symbols: Set<String>
        let sink: any SignalSink
        let end: AsyncStream<End>.Continuation
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var byUser: [String: Set<Int>] = [:]
        var nextID = 0
        var closed = false
    }

    /// One message to publish: its channel, symbol (quotes) and investor (`nil`: anyone subscribed), and its text.
    struct Outgoing {
        var channel: String
        var symbol: String?
        var userID: String?
        var text: String
    }

    let maxConnections: Int
    let capacity: Int
    private let state = NIOLockedValueBox(State())
    private let handlers = NIOLockedValueBox(0)

    init(maxConnections: Int, capacity: Int) {
        self.maxConnections = maxConnections
        self.capacity = capacity
    }

    var connectionCount: Int { state.withLockedValue { $0.connections.count } }
    var activeHandlers: Int { handlers.withLockedValue { $0 } }
    func handlerStarted() { handlers.withLockedValue { $0 += 1 } }
    func handlerEnded() { handlers.withLockedValue { $0 -= 1 } }

    /// Registers a connection of `userID`, whose messages go to `sink`, with the default channels.
    func connect(userID: String, sink: any SignalSink) -> Admission {
        let (ended, end) = AsyncStream<End>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return state.withLockedValue { s in
            if s.closed { return .closed }
            if s.connections.count >= maxConnections { return .full }
            let id = s.nextID
            s.nextID += 1
            s.connections[id] = Connection(
                userID: userID, channels: Set(InvestingWire.defaultChannels), symbols: [], sink: sink, end: end)
            s.byUser[userID, default: []].insert(id)
            return .connected(id: id, ended: ended)
        }
    }

    func disconnect(_ id: Int) {
        let c = state.withLockedValue { s -> Connection? in
            guard let c = s.connections.removeValue(forKey: id) else { return nil }
            s.byUser[c.userID]?.remove(id)
            if s.byUser[c.userID]?.isEmpty == true { s.byUser[c.userID] = nil }
            return c
        }
        c?.end.finish()
    }

    func drop(_ id: Int, _ reason: End) {
        let c = state.withLockedValue { s -> Connection? in
            guard let c = s.connections.removeValue(forKey: id) else { return nil }
            s.byUser[c.userID]?.remove(id)
            return c
        }
        c?.end.yield(reason)
        c?.end.finish()
    }

    /// Adds (or, `subscribe` false, removes) channels and quote symbols; then queues `reply` on the connection
    /// (the ack after the change: nothing published after it misses the new subscription).
    func change(_ id: Int, subscribe: Bool, channels: [String], symbols: [String], reply: String) {
        state.withLockedValue { s in
            guard var c = s.connections[id] else { return }
            if subscribe {
                c.channels.formUnion(channels)
                c.symbols.formUnion(symbols)
            } else if channels.contains("quotes") && !symbols.isEmpty {
                c.symbols.subtract(symbols)
                if c.symbols.isEmpty { c.channels.remove("quotes") }
                c.channels.subtract(channels.filter { $0 != "quotes" })
            } else {
                c.channels.subtract(channels)
                if channels.contains("quotes") { c.symbols = [] }
            }
            s.connections[id] = c
            c.sink.enqueue(WebSocketWire.textFrames([ByteBuffer(string: reply)]), messages: 1)
        }
    }

    /// Queues one message on one connection.
    func send(_ id: Int, _ text: String) {
        state.withLockedValue { s in
            s.connections[id]?.sink.enqueue(WebSocketWire.textFrames([ByteBuffer(string: text)]), messages: 1)
        }
    }

    /// Publishes messages in order: each framed once; each connection gets its share as one write.
    func publish(_ messages: [Outgoing]) {
        guard !messages.isEmpty else { return }
        let frames = messages.map { WebSocketWire.textFrames([ByteBuffer(string: $0.text)]) }
        state.withLockedValue { s in
            guard !s.connections.isEmpty else { return }
            var share: [Int: [Int]] = [:]
            for (k, m) in messages.enumerated() {
                if let user = m.userID {
                    for id in s.byUser[user] ?? [] where s.connections[id]!.channels.contains(m.channel) {
                        share[id, default: []].append(k)
                    }
                } else {
                    for (id, c) in s.connections where c.channels.contains(m.channel) && (m.symbol.map { c.symbols.contains($0) } ?? true) {
                        share[id, default: []].append(k)
                    }
                }
            }
            for (id, indices) in share {
                let sink = s.connections[id]!.sink
                if indices.count == 1 {
                    sink.enqueue(frames[indices[0]], messages: 1)
                } else {
                    var wire = ByteBuffer()
                    wire.reserveCapacity(indices.reduce(0) { $0 + frames[$1].readableBytes })
                    for i in indices { wire.writeImmutableBuffer(frames[i]) }
                    sink.enqueue(wire, messages: indices.count)
                }
            }
        }
    }

    /// Ends every connection with `.shutdown` and refuses new ones.
    func shutdown() {
        let all = state.withLockedValue { s -> [Connection] in
            s.closed = true
            defer { s.connections = [:]; s.byUser = [:] }
            return Array(s.connections.values)
        }
        for c in all {
            c.end.yield(.shutdown)
            c.end.finish()
        }
    }
}
