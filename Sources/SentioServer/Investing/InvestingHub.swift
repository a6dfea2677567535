import NIOConcurrencyHelpers
import NIOCore

/// The investing app's WebSocket connections and their subscriptions; fans the brokerage's events out without
/// waiting for any client.
///
/// Each message is encoded and framed once (``WebSocketWire/textFrames(_:)``); a connection gets the frames of the
/// channels (and, for `quotes`, the symbols) it subscribed to, and of its own investor only (orders, positions,
/// account, DCA, transfers), written by its ``SignalSink`` like the signals socket's clients (a client more than the
/// buffer behind is dropped with 1008); one task per event loop writes a publish's share of all of its
/// connections. Subscriptions change under the hub's lock, so a message is never half delivered across a change.
final class InvestingHub: Sendable {
    enum End: Sendable, Equatable { case slow, shutdown }

    enum Admission {
        case connected(id: Int, ended: AsyncStream<End>)
        /// Over `maxConnections` (close 4005).
        case full
        /// Shutting down (close 4006).
        case closed
    }

    /// A connection's state, changed only under the hub's lock (hence unchecked).
    private final class Connection: @unchecked Sendable {
        let id: Int
        let userID: String
        var channels: Set<String>
        var symbols: Set<String> = []
        let sink: any SignalSink
        let end: AsyncStream<End>.Continuation
        /// The publish that last gave this connection a message, its first message and any further ones.
        var stamp = 0
        var first = 0
        var more: [Int] = []

        init(id: Int, userID: String, sink: any SignalSink, end: AsyncStream<End>.Continuation) {
            self.id = id
            self.userID = userID
            channels = Set(InvestingWire.defaultChannels)
            self.sink = sink
            self.end = end
        }
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var byUser: [String: [Connection]] = [:]
        /// The connections subscribed to each market channel (`fx`), and to each symbol's quotes: a market message
        /// visits its subscribers only.
        var byChannel: [String: [Int: Connection]] = [:]
        var bySymbol: [String: [Int: Connection]] = [:]
        var nextID = 0
        var stamp = 0
        var closed = false

        mutating func remove(_ id: Int) -> Connection? {
            guard let c = connections.removeValue(forKey: id) else { return nil }
            byUser[c.userID]?.removeAll { $0 === c }
            if byUser[c.userID]?.isEmpty == true { byUser[c.userID] = nil }
            for channel in c.channels { byChannel[channel]?[id] = nil }
            for symbol in c.symbols { bySymbol[symbol]?[id] = nil }
            return c
        }
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
            let c = Connection(id: id, userID: userID, sink: sink, end: end)
            s.connections[id] = c
            s.byUser[userID, default: []].append(c)
            for channel in c.channels { s.byChannel[channel, default: [:]][id] = c }
            return .connected(id: id, ended: ended)
        }
    }

    func disconnect(_ id: Int) {
        state.withLockedValue { $0.remove(id) }?.end.finish()
    }

    func drop(_ id: Int, _ reason: End) {
        let c = state.withLockedValue { $0.remove(id) }
        c?.end.yield(reason)
        c?.end.finish()
    }

    /// Adds (or, `subscribe` false, removes) channels and quote symbols; then queues `reply` on the connection
    /// (the ack after the change: nothing published after it misses the new subscription).
    func change(_ id: Int, subscribe: Bool, channels: [String], symbols: [String], reply: String) {
        state.withLockedValue { s in
            guard let c = s.connections[id] else { return }
            for channel in c.channels { s.byChannel[channel]?[id] = nil }
            for symbol in c.symbols { s.bySymbol[symbol]?[id] = nil }
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
            for channel in c.channels { s.byChannel[channel, default: [:]][id] = c }
            if c.channels.contains("quotes") {
                for symbol in c.symbols { s.bySymbol[symbol, default: [:]][id] = c }
            }
            c.sink.enqueue(WebSocketWire.textFrames([ByteBuffer(string: reply)]), messages: 1)
        }
    }

    /// Queues one message on one connection.
    func send(_ id: Int, _ text: String) {
        state.withLockedValue { s in
            s.connections[id]?.sink.enqueue(WebSocketWire.textFrames([ByteBuffer(string: text)]), messages: 1)
        }
    }

    /// Publishes messages in order: each framed once; each connection gets its share as one write. A market message
    /// visits only its channel's (or symbol's) subscribers, an investor's message only that investor's connections.
    func publish(_ messages: [Outgoing]) {
        guard !messages.isEmpty else { return }
        let frames = messages.map { WebSocketWire.textFrames([ByteBuffer(string: $0.text)]) }
        state.withLockedValue { s in
            guard !s.connections.isEmpty else { return }
            s.stamp += 1
            let stamp = s.stamp
            var touched: [Connection] = []
            func deliver(_ k: Int, to c: Connection) {
                if c.stamp != stamp {
                    c.stamp = stamp
                    c.first = k
                    if !c.more.isEmpty { c.more.removeAll(keepingCapacity: true) }
                    touched.append(c)
                } else {
                    c.more.append(k)
                }
            }
            for (k, m) in messages.enumerated() {
                if let user = m.userID {
                    for c in s.byUser[user] ?? [] where c.channels.contains(m.channel) { deliver(k, to: c) }
                } else if let symbol = m.symbol {
                    for c in (s.bySymbol[symbol] ?? [:]).values { deliver(k, to: c) }
                } else {
                    for c in (s.byChannel[m.channel] ?? [:]).values { deliver(k, to: c) }
                }
            }
            // One task per event loop writes to all of its connections (not one task per connection).
            var perLoop: [ObjectIdentifier: (loop: any EventLoop, writes: [(ChannelSink, ByteBuffer, Int)])] = [:]
            // A share of several messages is concatenated once for every connection with the same share (clients
            // subscribed to the same symbols and channels): the bytes are built per share, not per client.
            var shares: [[Int]: ByteBuffer] = [:]
            for c in touched {
                var wire = frames[c.first]
                if !c.more.isEmpty {
                    let key = [c.first] + c.more
                    if let shared = shares[key] {
                        wire = shared
                    } else {
                        wire = ByteBuffer()
                        wire.reserveCapacity(key.reduce(0) { $0 + frames[$1].readableBytes })
                        for i in key { wire.writeImmutableBuffer(frames[i]) }
                        shares[key] = wire
                    }
                }
                let count = 1 + c.more.count
                if let sink = c.sink as? ChannelSink {
                    let loop = sink.eventLoop
                    perLoop[ObjectIdentifier(loop), default: (loop, [])].writes.append((sink, wire, count))
                } else {
                    c.sink.enqueue(wire, messages: count)
                }
            }
            for (_, batch) in perLoop {
                let writes = batch.writes
                batch.loop.execute { for (sink, wire, count) in writes { sink.writeOnLoop(wire, messages: count) } }
            }
        }
    }

    /// Ends every connection with `.shutdown` and refuses new ones.
    func shutdown() {
        let all = state.withLockedValue { s -> [Connection] in
            s.closed = true
            defer { s = State(closed: true) }
            return Array(s.connections.values)
        }
        for c in all {
            c.end.yield(.shutdown)
            c.end.finish()
        }
    }
}
