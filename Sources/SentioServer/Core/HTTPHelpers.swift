import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import SentioAPI

// What every app's routes share: conditional GETs, bearer tokens, request bodies, JSON answers, blocking work off
// the event loop.

extension SentioHTTPServer {
    /// 304 when `If-None-Match` names the body's ETag (or `*`), else 200 with the body.
    static func conditional(_ request: Request, _ body: CachedBody) -> Response {
        if let given = request.headers[.ifNoneMatch] {
            let tags = given.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains(where: { $0 == "*" || $0 == body.etag || $0 == "W/" + body.etag }) {
                return Response(status: .notModified, headers: [.eTag: body.etag])
            }
        }
        return Response(status: .ok, headers: body.headers, body: .init(byteBuffer: body.bytes))
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    /// Runs blocking work (bcrypt, SQLite, fund reports) on NIO's thread pool, not on an event loop.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// The JSON body of a request as `T` (400 naming the problem; 413 over `--max-body`).
    static func jsonBody<T: Decodable>(_ request: Request, as: T.Type, maxBody: Int) async throws -> T {
        let bytes = try await rawBody(request, maxBody: maxBody)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw ServerError(status: .badRequest, message: "body: the key '\(key.stringValue)' is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ServerError(status: .badRequest, message: "body: '\(path)' has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ServerError(status: .badRequest, message: path.isEmpty ? "body: not JSON" : "body: '\(path)' is not valid")
        } catch {
            throw ServerError(status: .badRequest, message: "body: not the expected JSON object")
        }
    }

    static func rawBody(_ request: Request, maxBody: Int) async throws -> ByteBuffer {
        let tooLarge = ServerError(status: .contentTooLarge, message: "the request body is larger than the limit (--max-body \(maxBody) bytes)")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBody { throw tooLarge }
        var request = request
        do { return try await request.collectBody(upTo: maxBody) } catch is NIOTooManyBytesError { throw tooLarge }
    }

    static func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        jsonResponse(status, try APIJSON.encode(value))
    }
}
