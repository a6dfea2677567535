import NIOConcurrencyHelpers
import SentioAPI

/// Fans `signal_update` messages out to WebSocket clients without ever waiting for one.
///
/// Each client has a bounded buffer of ``capacity`` messages. Publishing appends to every buffer and returns
/// at once; a client whose buffer is full has fallen behind and is **closed** (code 1008, policy violation,
/// reason `slow consumer: more than N messages behind`) rather than skipped to the newest state: a client that
/// reconnects gets the full current state as its snapshot. On shutdown every client is closed with 1001.
/// When a client's stream ends (slow or shutdown) its `forceClose` runs: the WebSocket handler uses it to close
/// the connection outright if the close frame cannot be delivered in time (a client that never reads has a full
/// TCP window: nothing more can be sent to it).
final class SignalHub: Sendable {
    /// Why a client's stream ended.
    enum End: Sendable { case slow, shutdown }

    struct Client: Sendable {
        let continuation: AsyncStream<String>.Continuation
        let end: NIOLockedValueBox<End?>
        let forceClose: @Sendable () -> Void
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        /// The current encoded `signal_update` of each symbol, in first-seen order.
        var current: [String: String] = [:]
        var order: [String] = []
        var closed = false
    }

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

    /// Registers a client: returns the snapshot (one message per symbol) and the stream of later messages,
    /// atomically (no message is lost or doubled between them); `nil` after shutdown.
    /// `forceClose` is called once the client's stream has ended (slow or shutdown), outside the hub's lock.
    func subscribe(
        forceClose: @escaping @Sendable () -> Void = {}
    ) -> (id: Int, snapshot: [String], stream: AsyncStream<String>, end: NIOLockedValueBox<End?>)? {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        let end = NIOLockedValueBox<End?>(nil)
        return state.withLockedValue { s in
            guard !s.closed else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.clients[id] = Client(continuation: continuation, end: end, forceClose: forceClose)
            return (id, s.order.compactMap { s.current[$0] }, stream, end)
        }
    }

    func unsubscribe(_ id: Int) {
        let client = state.withLockedValue { $0.clients.removeValue(forKey: id) }
        client?.continuation.finish()
    }

    /// Publishes encoded messages (symbol, text) in order.
    func publish(_ messages: [(symbol: String, text: String)]) {
        guard !messages.isEmpty else { return }
        var slow: [Client] = []
        state.withLockedValue { s in
            for m in messages {
                if s.current[m.symbol] == nil { s.order.append(m.symbol) }
                s.current[m.symbol] = m.text
            }
            for (id, client) in s.clients {
                for m in messages {
                    if case .dropped = client.continuation.yield(m.text) {
                        client.end.withLockedValue { $0 = .slow }
                        slow.append(client)
                        s.clients[id] = nil
                        break
                    }
                }
            }
        }
        for client in slow {
            client.continuation.finish()
            client.forceClose()
        }
    }

    /// Sets the current state without sending (a restart's loaded state).
    func seed(_ messages: [(symbol: String, text: String)]) {
        state.withLockedValue { s in
            for m in messages {
                if s.current[m.symbol] == nil { s.order.append(m.symbol) }
                s.current[m.symbol] = m.text
            }
        }
    }

    /// Ends every client's stream with `.shutdown` and refuses new ones.
    func shutdown() {
        let clients = state.withLockedValue { s -> [Client] in
            s.closed = true
            let all = Array(s.clients.values)
            s.clients = [:]
            return all
        }
        for c in clients {
            c.end.withLockedValue { $0 = .shutdown }
            c.continuation.finish()
            c.forceClose()
        }
    }
}
