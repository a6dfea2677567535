import ArgumentParser
import Dispatch
import Foundation
import SentioServer

/// `sentio-dev ceiling`: the benchmark ceiling route (`GET /constant`), for `Benchmarks/serve/run.sh`.
struct CeilingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ceiling",
        abstract: "Serve a constant body at GET /constant (minimal Hummingbird app): the ceiling sentio serve is measured against.",
        discussion: "Prints `sentio-dev ceiling: listening on http://HOST:PORT` to standard error when ready; stop it with SIGTERM or SIGINT.")

    @Option(help: "Address to listen on (default: 127.0.0.1).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port (default: 18181).")
    var port = 18181

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535, got \(port)") }
    }

    func run() throws {
        let host = self.host, port = self.port
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        Task {
            do {
                try await CeilingServer.run(host: host, port: port) { bound in
                    FileHandle.standardError.write(Data("sentio-dev ceiling: listening on http://\(host):\(bound)\n".utf8))
                }
            } catch {
                failure = error
            }
            done.signal()
        }
        done.wait()
        if let failure { throw failure }
    }
}
