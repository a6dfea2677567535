import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import NIOCore
import SentioStore

/// How `sentio serve` serves.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 8080
    /// `Access-Control-Allow-Origin` of every response.
    public var corsOrigin = "*"
    /// Requests per client IP per minute on the public `/api/v1` GETs; 0 = off.
    public var rateLimit = 100
    /// Largest accepted request body, in bytes (413 above).
    public var maxBody = 1 << 20
    /// `SENTIO_INGEST_TOKEN`; `nil` turns `POST /api/v1/bars` off (404).
    public var ingestToken: String?
    /// `SENTIO_JWT_SECRET` (at least 32 bytes): the HS256 key of the LP portal's tokens, given to
    /// ``AccountService``; without it the portal is off (every portal request is 401, login 503).
    public var jwtSecret: String?
    /// The public base URL of the server, the start of password-reset links (`--public-url`); `nil`:
    /// `http://HOST:PORT` of the listening socket.
    public var publicURL: String?
    /// Messages a WebSocket client may fall behind before it is closed.
    public var webSocketBuffer = 256

    public init() {}
}

/// The body of every error response: `{"error": "message"}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public init(error: String) { self.error = error }
}

/// An error with its HTTP status and extra headers, answered as ``APIErrorBody`` (or as `body`, a JSON text, when
/// the answer carries more than the message).
struct ServerError: Error {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]
    var body: String? = nil
}

/// One encoded GET body with its ETag, and the headers of its 200 response, built once: every response shares the
/// one `ByteBuffer` (a reference to the same storage, never a copy of the bytes).
struct CachedBody: Sendable {
    let bytes: ByteBuffer
    let etag: String
    let contentType: String
    /// `Content-Type`, `ETag`, `Cache-Control: no-cache`.
    let headers: HTTPFields

    init(_ text: String, contentType: String = "application/json; charset=utf-8") {
        bytes = ByteBuffer(string: text)
        // FNV-1a 64 over the bytes: a strong validator of this exact representation.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        etag = "\"" + String(h, radix: 16) + "-" + String(text.utf8.count, radix: 16) + "\""
        self.contentType = contentType
        headers = [.contentType: contentType, .eTag: etag, .cacheControl: "no-cache"]
    }
}

/// The request context: the router's WebSocket support, the client's address (for rate limiting) and the account
/// the request authenticated as (hummingbird-auth's `AuthRequestContext`, set by the core's `AccountAuthenticator`).
public struct ServerContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext, AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The account of the request's bearer token, on the routes behind `AccountAuthenticator`; `nil` elsewhere.
    public var identity: StoredUser?
    public let webSocket: WebSocketHandlerReference<ServerContext>
    /// The client's address, read from the connection when asked (only the rate limiter asks).
    public var remoteAddress: SocketAddress? { channel.remoteAddress }
    /// The connection (a WebSocket that cannot take its close frame is closed through it).
    let channel: any Channel
    /// Whether this is the core's question to the router "which route has this path?" (`KnownRoutes`), not a
    /// client's request.
    var isRouteProbe = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
