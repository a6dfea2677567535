import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SentioAPI
import SentioData
import ServiceLifecycle
import UnixSignals

/// `sentio serve`: the apps' HTTP and WebSocket API over a live backend (see the catalog article `Serving`).
///
/// Build it with a backend (which owns the live state), an optional LP portal and an optional replay or follow feed;
/// ``run(gracefulShutdownSignals:onReady:)`` serves until SIGTERM/SIGINT (or ``shutdown()``), then shuts down
/// in this order: WebSockets closed with 1001, the replay or follow feed stopped, the HTTP server stops accepting and finishes
/// the requests in flight, the backend's last commit.
public final class SentioHTTPServer: Sendable {
    public let options: ServerOptions
    let engine: LiveEngine
    let hub: SignalHub
    let metrics: ServerMetrics
    /// The LP portal's fund data (replaced by an events upload).
    let portalState: NIOLockedValueBox<FundPortal?>
    /// Accounts, tokens and resets; `nil`: the portal answers 401 (authenticated routes) or 503.
    let accounts: AccountService?
    /// The family allowance app over the accounts' store; `nil` with no accounts.
    public let allowance: AllowanceService?
    /// The allowance app's SignalR hub (`/hubs/family`).
    let familyHub: FamilyHub
    /// Whether the portal's events come from the store (uploads are saved there) rather than `--funds FILE`.
    let portalFromStore: Bool
    /// One events upload at a time.
    let uploadLock = NIOLock()
    let replay: ReplayFeed?
    let follow: FollowFeed?
    /// The investing app's backend; `nil`: its routes answer 503 and its WebSocket closes with 4001.
    let investing: InvestingService?
    let rateLimiter: RateLimiter
    let portalCache = NIOLockedValueBox<[String: CachedBody]>([:])
    let group = NIOLockedValueBox<ServiceGroup?>(nil)
    let shutdownRequested = NIOLockedValueBox(false)
    let logger: Logger

    /// - Parameters:
    ///   - options: address, limits, CORS origin, tokens and WebSocket buffer.
    ///   - backend: the live state (loaded: `/healthz` answers 200 as soon as the server listens).
    ///   - portal: the LP portal's data; `nil` answers its endpoints 404 (after authentication).
    ///   - accounts: the portal's accounts (login, tokens, invitations, resets); `nil` turns the portal off.
    ///   - portalFromStore: whether `portal` was read from the accounts' store (fund event uploads are then saved
    ///     there; otherwise they are refused with 409).
    ///   - replay: bars to feed through the backend while serving.
    ///   - follow: a directory of CSV files to follow while serving (bars from appended rows).
    ///   - investing: the investing app's paper brokerage, fed every ingested bar after the live backend.
    ///   - logger: where the server and its services log.
    public init(
        options: ServerOptions, backend: sending any LiveBackend, portal: FundPortal? = nil, accounts: AccountService? = nil,
        portalFromStore: Bool = false, replay: ReplayFeed? = nil, follow: FollowFeed? = nil,
        investing: InvestingService? = nil, logger: Logger = Logger(label: "sentio.serve")
    ) {
        self.options = options
        let metrics = ServerMetrics()
        let hub = SignalHub(capacity: options.webSocketBuffer)
        self.metrics = metrics
        self.hub = hub
        engine = LiveEngine(backend: backend, hub: hub, metrics: metrics, investing: investing)
        self.investing = investing
        portalState = NIOLockedValueBox(portal)
        self.accounts = accounts
        let allowance = accounts.map(AllowanceService.init(accounts:))
        let familyHub = FamilyHub(capacity: options.webSocketBuffer)
        allowance?.onEvent { familyHub.publish($0) }
        self.allowance = allowance
        self.familyHub = familyHub
        self.portalFromStore = portalFromStore
        self.replay = replay
        self.follow = follow
        rateLimiter = RateLimiter(perMinute: options.rateLimit)
        self.logger = logger
    }

    /// Ingests bars as `POST /api/v1/bars` does (durable when it returns).
    public func ingest(_ bars: [FeedBar]) async throws -> [BarOutcome] {
        try await engine.ingest(bars)
    }

    /// The request-header limits: a request over any of them (a header flood, a huge header line) is answered
    /// 400 and its connection closed, or closed at once, without touching the other connections.
    public static let headerLimits = HTTP1Channel.Configuration.DecoderConfiguration(
        maxHeaderFieldSize: 16 << 10, maxHeaderListSize: 64 << 10, maxHeaderFieldCount: 256)

    /// HTTP/1.1 with the WebSocket upgrade, the header limits, and a connection whose request cannot be parsed
    /// closed (`ParseErrorCloser`).
    static func serverBuilder(router: Router<ServerContext>) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(httpDecoderConfiguration: headerLimits),
            ws: .init(maxFrameSize: 1 << 16, closeTimeout: .seconds(2)))
        return HTTPServerBuilder { responder in
            ClosingOnParseError(base: HTTP1WebSocketUpgradeChannel(
                responder: responder, webSocketResponder: webSocketResponder, configuration: configuration))
        }
    }

    /// Asks the running server to shut down gracefully (as SIGTERM does).
    public func shutdown() async {
        shutdownRequested.withLockedValue { $0 = true }
        if let g = group.withLockedValue({ $0 }) { await g.triggerGracefulShutdown() }
    }

    /// Serves until a graceful shutdown completes. `onReady` gets the bound port once the server listens.
    public func run(
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        onReady: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) async throws {
        let router = makeRouter().router
        let accounts = self.accounts, publicURL = options.publicURL, host = options.host
        let app = Application(
            router: router,
            server: Self.serverBuilder(router: router),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                accounts?.setPublicURL(publicURL ?? "http://\(host):\(port)")
                await onReady(port)
            },
            logger: logger)
        let hub = self.hub, engine = self.engine, logger = self.logger, familyHub = self.familyHub
        let investingHub = investing?.hub
        // Shut down in reverse order: WebSockets (1001), replay, HTTP (finish in flight), engine (last commit).
        let engineService = LifecycleStep(name: "engine-commit") {
            do { try await engine.finish() } catch { logger.error("last commit failed: \(error)") }
        }
        let webSocketService = LifecycleStep(name: "websockets") {
            hub.shutdown()
            familyHub.shutdown()
            investingHub?.shutdown()
            // Give the handlers a moment to send their close frames.
            for _ in 0..<50 where hub.clientCount > 0 || hub.activeHandlers > 0 || familyHub.activeHandlers > 0
                || (investingHub?.activeHandlers ?? 0) > 0 {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: engineService), .init(service: app),
        ]
        services.append(.init(service: StepTicker(engine: engine, logger: logger), successTerminationBehavior: .ignore))
        if let allowance {
            services.append(.init(service: AllowanceRound(service: allowance, logger: logger), successTerminationBehavior: .ignore))
        }
        if let replay {
            services.append(.init(service: ReplayService(feed: replay, engine: engine, logger: logger),
                                  successTerminationBehavior: .ignore))
        }
        if let follow {
            services.append(.init(service: FollowService(feed: follow, engine: engine, logger: logger),
                                  successTerminationBehavior: .ignore))
        }
        services.append(.init(service: webSocketService))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(4)
        // No limit on cancellation: the library would turn an overrun into a fatalError (a crash, not an exit).
        configuration.maximumCancellationDuration = nil
        let serviceGroup = ServiceGroup(configuration: configuration)
        group.withLockedValue { $0 = serviceGroup }
        if shutdownRequested.withLockedValue({ $0 }) { return }
        try await serviceGroup.run()
    }
}

/// A server option that cannot be served with.
public enum ServerConfigurationError: Error, CustomStringConvertible {
    /// HS256 needs a key of at least 32 bytes (the hash's output size).
    case shortJWTSecret(bytes: Int)

    public var description: String {
        switch self {
        case .shortJWTSecret(let n): "SENTIO_JWT_SECRET must be at least 32 bytes for HS256, got \(n)"
        }
    }
}

/// A service that waits for graceful shutdown, then does one step.
struct LifecycleStep: Service {
    let name: String
    let step: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await step()
    }
}

/// Requests per client IP in fixed one-minute windows.
final class RateLimiter: Sendable {
    let perMinute: Int
    private let windows = NIOLockedValueBox<[String: (start: Int64, count: Int)]>([:])

    init(perMinute: Int) { self.perMinute = perMinute }

    /// `nil` when allowed, else the seconds until the client's window ends (for `Retry-After`).
    func check(_ client: String, now: Int64 = Int64(Date().timeIntervalSince1970)) -> Int? {
        guard perMinute > 0 else { return nil }
        let window = now - now % 60
        return windows.withLockedValue { w in
            if w.count > 100_000 { w = w.filter { $0.value.start == window } }
            var entry = w[client] ?? (window, 0)
            if entry.start != window { entry = (window, 0) }
            entry.count += 1
            w[client] = entry
            return entry.count > perMinute ? Int(window + 60 - now) : nil
        }
    }
}

/// A child channel whose connection is closed when its HTTP request cannot be parsed (over the header limits,
/// malformed). Hummingbird answers such a request with 400 and closes, except for a connection's first request,
/// which the WebSocket upgrade check reads before Hummingbird's handler exists: nothing would close it.
struct ClosingOnParseError<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(ParseErrorCloser())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes the connection 1 s after an `HTTPParserError` (time for Hummingbird's own 400 where it answers one);
/// passes everything on.
final class ParseErrorCloser: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            let channel = context.channel
            _ = context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
        context.fireErrorCaught(error)
    }
}
