import Hummingbird
import Logging
import NIOCore
import SentioAPI

func jsonResponse(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
    var h = headers
    h[.contentType] = "application/json; charset=utf-8"
    return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: text)))
}

func errorResponse(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
    let text = (try? APIJSON.encode(APIErrorBody(error: message))) ?? "{\"error\":\"internal error\"}"
    return jsonResponse(status, text, headers: headers)
}

/// Outermost, on every route of every app and on the router's 404: request metrics by route, CORS, 405 with
/// `Allow`, the CORS preflight (204 to OPTIONS), and every error as `{"error"}` JSON.
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let metrics: ServerMetrics
    let logger: Logger
    /// The CORS headers of every response (`Vary: Origin` when the origin is not `*`), built once; only this
    /// middleware sets them.
    let cors: HTTPFields

    /// The router's routes (for the route of a request, 405 and `Allow`).
    let routes: KnownRoutes

    init(metrics: ServerMetrics, routes: KnownRoutes, corsOrigin: String, logger: Logger) {
        self.metrics = metrics
        self.routes = routes
        self.logger = logger
        var cors: HTTPFields = [.accessControlAllowOrigin: corsOrigin, .accessControlExposeHeaders: "ETag, Retry-After"]
        if corsOrigin != "*" { cors[.vary] = "Origin" }
        self.cors = cors
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The core asking the router which route a path has: answered before any route runs.
        if context.isRouteProbe { return Response(status: .noContent) }
        let start = ContinuousClock.now
        // The route the router matched (path and method), else the route of the path under other methods only.
        let route: KnownRoute? = if let matched = context.endpointPath {
            routes.byLabel[matched]
        } else {
            await routes.route(of: request, context: context)
        }
        // nil: no route (the router answers 404, or 204 to OPTIONS).
        let allowed = route?.allows(request.method)
        var response: Response
        if allowed != true, request.method == .options {
            response = Response(status: .noContent, headers: [
                .accessControlAllowMethods: "GET, POST, PUT, OPTIONS",
                .accessControlAllowHeaders: "Authorization, Content-Type, If-None-Match, Idempotency-Key",
                .accessControlMaxAge: "600",
            ])
        } else if allowed == false, let route {
            response = errorResponse(.methodNotAllowed, "method \(request.method) is not allowed on \(route.label)",
                headers: [.allow: route.allow])
        } else {
            do {
                response = try await next(request, context)
            } catch let e as ServerError {
                response = e.body.map { jsonResponse(e.status, $0, headers: e.headers) } ?? errorResponse(e.status, e.message, headers: e.headers)
            } catch let e as HTTPError {
                let message: String
                switch e.status {
                case .notFound: message = "no such resource: \(request.uri.path)"
                case .contentTooLarge: message = "the request body is larger than the limit (--max-body)"
                default: message = e.body ?? e.status.reasonPhrase
                }
                response = errorResponse(e.status, message, headers: e.headers)
            } catch {
                logger.error("\(request.method) \(request.uri.path): \(error)")
                response = errorResponse(.internalServerError, "internal error")
            }
        }
        response.headers.append(contentsOf: cors)
        (route?.metrics ?? metrics.other).record(status: Int(response.status.code), duration: ContinuousClock.now - start)
        return response
    }
}

