import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Where an app adds its routes: Hummingbird's `RouterMethods` (`get`, `post`, `group`, `ws`, `addRoutes`), over a
/// `RouteCollection` that the core adds to its one router; besides, it notes each route's path pattern and methods,
/// which the core needs for 405 (`Allow`) and the metrics' route label.
///
/// An app is a folder with one `add…Routes(to:)` function (`Lite/LiteRoutes.swift`, `Portal/PortalRoutes.swift`);
/// ``SentioHTTPServer/makeRouter()`` calls each.
final class RouteTable: RouterMethods {
    typealias Context = ServerContext
    private let collection = RouteCollection(context: ServerContext.self)
    /// Each path pattern once, in the order of its first route, with its methods.
    private(set) var patterns: [(path: RouterPath, methods: [HTTPRequest.Method])] = []

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == ServerContext {
        if let i = patterns.firstIndex(where: { $0.path == path }) {
            patterns[i].methods.append(method)
        } else {
            patterns.append((path, [method]))
        }
        _ = collection.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, ServerContext>) -> Self {
        collection.add(middleware: middleware)
        return self
    }

    /// Adds the routes to `router` (after its middleware), then one probe endpoint per pattern (see
    /// ``KnownRoutes/route(of:context:)``), and gives `known` the router to ask.
    func register(on router: Router<ServerContext>, known: KnownRoutes) {
        router.addRoutes(collection)
        for (path, _) in patterns {
            router.on(path, method: KnownRoutes.probeMethod) { _, _ in Response(status: .noContent) }
        }
        known.probe.withLockedValue { $0 = router.buildResponder() }
    }
}

/// One route of the router: its path pattern as the router reports it (`context.endpointPath`, such as
/// `/api/v1/symbols/{id}`), which is also its metrics label, its methods (for 405 and `Allow`) and its metrics.
struct KnownRoute: Sendable {
    let label: String
    let methods: [HTTPRequest.Method]
    /// The `Allow` header of a 405.
    let allow: String
    let metrics: RouteMetrics

    func allows(_ method: HTTPRequest.Method) -> Bool {
        methods.contains(method) || (method == .head && methods.contains(.get))
    }
}

/// The routes of the one router, by path pattern, for the edge middleware: the route of a request the router
/// matched is `context.endpointPath`; the route of a path the router has under another method only is found by
/// asking the router itself (``route(of:context:)``). There is no second matcher.
final class KnownRoutes: Sendable {
    /// The method of the probe endpoints: one per path pattern, each answering only the core's probe (the edge
    /// middleware answers a probe before any route runs; a client's request of this method is a 405 like any other).
    static let probeMethod = HTTPRequest.Method("SENTIO-ROUTE-PROBE")!
    let byLabel: [String: KnownRoute]
    /// The router's responder, set once every route is registered.
    let probe = NIOLockedValueBox<RouterResponder<ServerContext>?>(nil)

    init(_ table: RouteTable, metrics: ServerMetrics) {
        var byLabel: [String: KnownRoute] = [:]
        for (path, methods) in table.patterns {
            let label = path.description
            byLabel[label] = KnownRoute(
                label: label, methods: methods, allow: methods.map(\.rawValue).joined(separator: ", "),
                metrics: RouteMetrics(label: label, registry: metrics.registry))
        }
        self.byLabel = byLabel
    }

    /// The route whose path pattern matches the request's path, whatever the method; `nil` when the router has no
    /// route for the path. Asks the router with the probe method (the router's trie does the matching).
    func route(of request: Request, context: ServerContext) async -> KnownRoute? {
        guard let router = probe.withLockedValue({ $0 }) else { return nil }
        var probeContext = context
        probeContext.isRouteProbe = true
        probeContext.coreContext.endpointPath = EndpointPath()
        let head = HTTPRequest(method: Self.probeMethod, scheme: nil, authority: nil, path: request.head.path)
        _ = try? await router.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: probeContext)
        return probeContext.endpointPath.flatMap { byLabel[$0] }
    }
}
