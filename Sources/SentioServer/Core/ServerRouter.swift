import Hummingbird
import NIOCore
import SentioAPI

/// `GET /healthz`.
public struct HealthBody: Codable, Sendable, Equatable {
    public var status: String
}

extension SentioHTTPServer {
    /// The server's one router: the edge middleware, then the operations routes and each app's routes.
    ///
    /// Each app adds its routes to a ``RouteTable`` from its own folder (`Lite/`, `Portal/`); a new app is a new
    /// folder with an `add…Routes(to:)` function and one line here.
    func makeRouter() -> (router: Router<ServerContext>, routes: KnownRoutes) {
        let table = RouteTable()
        addOperationsRoutes(to: table)
        addLiteRoutes(to: table)
        addPortalRoutes(to: table)
        addAllowanceRoutes(to: table)
        addInvestingRoutes(to: table)

        let routes = KnownRoutes(table, metrics: metrics)
        let router = Router(context: ServerContext.self)
        router.add(middleware: EdgeMiddleware(metrics: metrics, routes: routes, corsOrigin: options.corsOrigin, logger: logger))
        table.register(on: router, known: routes)
        return (router, routes)
    }

    /// Operations, shared by every app: `GET /healthz`, `GET /metrics` (Prometheus text), `GET /openapi.json`.
    func addOperationsRoutes(to routes: RouteTable) {
        let metrics = self.metrics
        routes.get("/healthz") { _, _ in jsonResponse(.ok, try APIJSON.encode(HealthBody(status: "ok"))) }
        routes.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        let openAPI = CachedBody(OpenAPIDocument.json)
        routes.get("/openapi.json") { request, _ in Self.conditional(request, openAPI) }
    }
}
