import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import NIOCore
import SentioCore
import SentioStore

/// The allowance app's live updates: a SignalR hub (ASP.NET Core SignalR's JSON hub protocol, version 1, over
/// WebSocket) whose server-to-client invocations go to the connections of one family.
///
/// Wire rules, as the SignalR clients expect them:
/// - `POST /hubs/family/negotiate` (authenticated) answers the transports (`WebSockets` only, text) with a
///   connection id and token (negotiate versions 0 and 1); the client then opens `GET /hubs/family?id=TOKEN` as a
///   WebSocket. A client that skips negotiation opens `/hubs/family` directly (no `id`). An `id` the server did
///   not hand out (or already used) is 404.
/// - Every record is a JSON object followed by the record separator 0x1E; one WebSocket text message may hold
///   several records.
/// - The client's first record is the handshake `{"protocol":"json","version":1}`; the server answers `{}` (or
///   `{"error": …}` and closes, for another protocol or a version other than 1 or 0: like ASP.NET Core, which accepts
///   versions up to its own, since some clients send their negotiate version there).
/// - Then the server sends invocations `{"type":1,"target":…,"arguments":[…]}` (no `invocationId`: nothing is
///   awaited) and a ping `{"type":6}` every 15 seconds; the client's pings are read and ignored, its close
///   `{"type":7}` ends the connection, and an invocation of a hub method answers a completion with an error (the
///   hub has none). On shutdown, or when a client falls more than the buffer behind, the server sends
///   `{"type":7,"error":…,"allowReconnect":true}` and closes the WebSocket.
/// - The bearer token is the `Authorization` header or the `access_token` query parameter.
final class FamilyHub: Sendable {
    static let recordSeparator: Character = "\u{1E}"
    static let handshakeReply = "{}\u{1E}"
    static let ping = "{\"type\":6}\u{1E}"

    private struct Connection {
        let familyID: String
        let out: AsyncStream<String>.Continuation
    }
    private struct State {
        var connections: [Int: Connection] = [:]
        var next = 0
        var closed = false
        /// Connection tokens handed out by negotiate and not used yet.
        var tokens: Set<String> = []
        /// Why a connection was ended by the hub (read by its handler to write the close record).
        var ended: [Int: String] = [:]
    }

    /// Records a connection may have queued before it is closed as slow.
    let capacity: Int
    private let state = NIOLockedValueBox(State())
    /// Handlers still running (shutdown waits for their close records).
    private let handlers = NIOLockedValueBox(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    var connectionCount: Int { state.withLockedValue { $0.connections.count } }
    var activeHandlers: Int { handlers.withLockedValue { $0 } }

    /// A new connection token (negotiate).
    func issueToken() -> String {
        let token = SecretToken.generate()
        state.withLockedValue { s in
            if s.tokens.count > 100_000 { s.tokens.removeAll() }
            s.tokens.insert(token)
        }
        return token
    }

    /// Uses up a negotiated token; `false` when it was not handed out or is used.
    func redeem(_ token: String) -> Bool {
        state.withLockedValue { $0.tokens.remove(token) != nil }
    }

    /// Registers a connection of `familyID`: its id and the stream of records to write to it. `nil` after shutdown.
    func connect(familyID: String) -> (id: Int, records: AsyncStream<String>, out: AsyncStream<String>.Continuation)? {
        let (records, out) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        return state.withLockedValue { s in
            guard !s.closed else { return nil }
            let id = s.next
            s.next += 1
            s.connections[id] = Connection(familyID: familyID, out: out)
            return (id, records, out)
        }
    }

    /// Removes a connection (its handler ends); finishes its stream.
    func disconnect(_ id: Int) {
        state.withLockedValue { s in s.connections.removeValue(forKey: id)?.out.finish() }
    }

    /// Why the hub ended the connection (slow, shutdown), once; `nil` when it did not.
    func takeEndReason(_ id: Int) -> String? {
        state.withLockedValue { $0.ended.removeValue(forKey: id) }
    }

    /// Sends an invocation of `event.target` with its argument to every connection of the event's family, without
    /// waiting; a connection whose queue is full is ended as slow.
    func publish(_ event: FamilyEvent) {
        let record = "{\"type\":1,\"target\":\(JSONText.quoted(event.target)),\"arguments\":[\(event.argument.trimmingCharacters(in: .whitespacesAndNewlines))]}\u{1E}"
        state.withLockedValue { s in
            for (id, c) in s.connections where c.familyID == event.familyID {
                if case .dropped = c.out.yield(record) {
                    s.ended[id] = "slow consumer: more than \(capacity) messages behind"
                    s.connections.removeValue(forKey: id)
                    c.out.finish()
                }
            }
        }
    }

    /// Ends every connection (close record "Server is shutting down") and refuses new ones.
    func shutdown() {
        state.withLockedValue { s in
            s.closed = true
            for (id, c) in s.connections {
                s.ended[id] = "Server is shutting down"
                c.out.finish()
            }
            s.connections.removeAll()
        }
    }

    /// The records of one WebSocket text message (each without its separator); `nil` when the text does not end with
    /// a separator (an incomplete record).
    static func records(_ text: String) -> [Substring]? {
        guard text.last == recordSeparator else { return nil }
        return text.dropLast().split(separator: recordSeparator, omittingEmptySubsequences: false)
    }

    /// The answer to the handshake record: `nil` when it is `{"protocol":"json","version":1}` (or 0), else the error.
    static func handshakeProblem(_ record: Substring) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any] else {
            return "the handshake is not a JSON object"
        }
        guard object["protocol"] as? String == "json" else {
            return "the protocol '\(object["protocol"].map { "\($0)" } ?? "")' is not supported: use json"
        }
        // As ASP.NET Core's JSON hub protocol (version 1) accepts any version up to its own: clients that send the
        // negotiate version there (signalrcore 1.0 sends 0) are served.
        guard let version = (object["version"] as? NSNumber)?.intValue, (0...1).contains(version) else {
            return "the json protocol version must be 1 (or 0)"
        }
        return nil
    }

    func handlerStarted() { handlers.withLockedValue { $0 += 1 } }
    func handlerEnded() { handlers.withLockedValue { $0 -= 1 } }
}

/// `POST /hubs/family/negotiate` answer (SignalR's negotiate response).
struct NegotiateResponse: Codable, Sendable {
    struct Transport: Codable, Sendable {
        var transport: String
        var transferFormats: [String]
    }
    var connectionId: String
    var connectionToken: String?
    var negotiateVersion: Int
    var availableTransports: [Transport]
}

extension SentioHTTPServer {
    /// Adds the SignalR hub `/hubs/family` (see ``FamilyHub``).
    func addFamilyHubRoutes(to routes: RouteTable) {
        let hub = familyHub, allowance = self.allowance
        let accounts = AccountsHTTP(accounts: self.accounts)
        let authenticated = routes.group("hubs/family").add(middleware: AccountAuthenticator(accounts: accounts, queryToken: true))
        @Sendable func member(_ context: ServerContext) async throws -> AllowanceService.Member {
            let user = try context.requireIdentity()
            guard let allowance else { throw ServerError(status: .serviceUnavailable, message: "the allowance app is off") }
            do { return try await Self.offload { try allowance.member(user) } } catch { throw Self.allowanceError(error) }
        }

        authenticated.post("negotiate") { request, context in
            _ = try await member(context)
            // The client's negotiate version (absent: 0); the answer is the lower of it and 1.
            let given = request.uri.queryParameters.get("negotiateVersion").map { String($0) }
            guard let version = given.map({ Int($0) }) ?? 0, version >= 0 else {
                throw ServerError(status: .badRequest, message: "query parameter 'negotiateVersion': '\(given ?? "")' is not a version (0, 1, …)")
            }
            let token = hub.issueToken()
            // Version 0 clients connect with the connection id; version 1 clients with the token.
            let body = NegotiateResponse(
                connectionId: version >= 1 ? SecretToken.generate() : token, connectionToken: version >= 1 ? token : nil,
                negotiateVersion: version >= 1 ? 1 : 0,
                availableTransports: [.init(transport: "WebSockets", transferFormats: ["Text"])])
            return jsonResponse(.ok, String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        }
        authenticated.ws("", shouldUpgrade: { request, context in
            _ = try await member(context)
            if let id = request.uri.queryParameters.get("id"), !hub.redeem(String(id)) {
                throw ServerError(status: .notFound, message: "no such connection: negotiate again")
            }
            return .upgrade([:])
        }, onUpgrade: { inbound, outbound, context in
            hub.handlerStarted()
            defer { hub.handlerEnded() }
            guard let m = try? await member(context.requestContext) else {
                try await outbound.close(.policyViolation, reason: "unauthorized")
                return
            }
            var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            // The handshake (possibly followed by other records in the same message).
            guard case .text(let first)? = try await messages.next(), let records = FamilyHub.records(first), let handshake = records.first else {
                try await outbound.close(.protocolError, reason: "expected the handshake")
                return
            }
            if let problem = FamilyHub.handshakeProblem(handshake) {
                try await outbound.write(.text("{\"error\":\(JSONText.quoted(problem))}\u{1E}"))
                try await outbound.close(.normalClosure, reason: nil)
                return
            }
            guard let (id, stream, out) = hub.connect(familyID: m.familyID) else {
                try await outbound.write(.text("{\"type\":7,\"error\":\"Server is shutting down\",\"allowReconnect\":true}\u{1E}"))
                try await outbound.close(.goingAway, reason: "server shutting down")
                return
            }
            try await outbound.write(.text(FamilyHub.handshakeReply))
            @Sendable func answer(_ record: Substring) -> Bool {
                guard let object = try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any],
                      let type = (object["type"] as? NSNumber)?.intValue
                else { return true }
                switch type {
                case 7: return false
                case 1, 4:
                    if let invocation = object["invocationId"] as? String {
                        out.yield("{\"type\":3,\"invocationId\":\(JSONText.quoted(invocation)),\"error\":\"this hub has no methods\"}\u{1E}")
                    }
                    return true
                default: return true  // pings (6) and the rest: nothing to do
                }
            }
            // The writer: records in order, until the stream ends (the client left, was slow, or shutdown).
            let writer = Task {
                for await record in stream {
                    do { try await outbound.write(.text(record)) } catch { break }
                }
                if let ended = hub.takeEndReason(id) {
                    try? await outbound.write(.text("{\"type\":7,\"error\":\(JSONText.quoted(ended)),\"allowReconnect\":true}\u{1E}"))
                    try? await outbound.close(ended.hasPrefix("slow") ? .policyViolation : .goingAway, reason: nil)
                }
            }
            let pinger = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    if Task.isCancelled { break }
                    out.yield(FamilyHub.ping)
                }
            }
            // The reader: until the client's close record or the end of the connection.
            var open = records.dropFirst().allSatisfy(answer)
            while open, let message = try? await messages.next() {
                guard case .text(let text) = message, let records = FamilyHub.records(text) else { continue }
                open = records.allSatisfy(answer)
            }
            pinger.cancel()
            hub.disconnect(id)
            await writer.value
            try? await outbound.close(.normalClosure, reason: nil)
        })
    }
}
