import Hummingbird
import Logging
import NIOCore

/// The benchmark ceiling: a minimal Hummingbird application with one route, `GET /constant`, returning a
/// constant JSON body with no middleware.
///
/// `Benchmarks/serve/run.sh` loads it (through `sentio-dev ceiling`) beside `sentio serve` in the same run, so
/// the API's requests per second are reported as a fraction of what Hummingbird itself serves on that machine.
public enum CeilingServer {
    /// Serves `GET /constant` on `host:port` until the task is cancelled or the process is signalled.
    /// - Parameters:
    ///   - host: the address to listen on.
    ///   - port: the port to listen on; 0 picks a free one.
    ///   - onReady: called with the bound port (useful with port 0).
    public static func run(host: String, port: Int, onReady: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router()
        let constant = ByteBuffer(string: #"{"status":"ok","note":"constant body of the benchmark ceiling route"}"#)
        router.get("/constant") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: constant))
        }
        var logger = Logger(label: "sentio.ceiling")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in onReady(channel.localAddress?.port ?? port) }, logger: logger)
        try await app.runService()
    }
}
