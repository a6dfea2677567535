import Foundation
import SentioAPI
import SentioCore
import SentioServer
import SentioTestSupport
import Testing

/// Debian's `chromium` (installed by `.ci/run`), or `nil`.
let chromiumPath: String? = {
    for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    where FileManager.default.isExecutableFile(atPath: path) { return path }
    return nil
}()

@Suite("sentio serve: the web page in headless Chromium", .serialized)
struct BrowserTests {
    @Test("the signal cards show the values the API serves after a WebSocket update",
          .enabled(if: chromiumPath != nil, "chromium is not installed here (CI installs Debian's chromium): browser test skipped"))
    func cardsFollowWebSocket() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let profile = try temporaryDirectory("sentio-chromium")
        // Chromium loads the page, connects the WebSocket, and dumps the DOM when --timeout expires.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromiumPath!)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--timeout=8000", "--dump-dom", h.base + "/",
        ]
        let output = profile.appendingPathComponent("dom.html")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Wait until the page's WebSocket is connected (the server's gauge), then ingest one step.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let metrics = try await h.request("/metrics").body
            if metrics.split(separator: "\n").contains(where: { $0.hasPrefix("sentio_websocket_clients ") && !$0.hasSuffix(" 0") && !$0.hasSuffix(" 0.0") }) { break }
            guard ContinuousClock.now < deadline, process.isRunning else {
                process.terminate()
                Issue.record("the page never opened its WebSocket")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let step = try sampleSteps()[480]
        _ = try await h.ingest(step)
        let served = try Strict.decode(StrictSignalsResponse.self, try await h.request("/api/v1/signals").body)
        process.waitUntilExit()
        let dom = try String(contentsOf: output, encoding: .utf8)
        #expect(dom.contains("data-updates"), "no WebSocket update reached the page")
        for signal in served.signals {
            // Each card carries the served timestamp and raw values (data-value = JavaScript's String(number)).
            let stamp = iso8601(epochSeconds: Int64(signal.timestamp.timeIntervalSince1970))
            #expect(dom.contains(#"data-symbol="\#(signal.symbol)" data-timestamp="\#(stamp)""#), "\(signal.symbol) card not at \(stamp)")
            #expect(dom.contains(#"data-field="price" data-value="\#(javaScriptNumber(signal.price))""#), "\(signal.symbol) price")
            #expect(dom.contains(#"data-field="rsi" data-value="\#(javaScriptNumber(signal.rsi))""#), "\(signal.symbol) rsi")
        }
    }
}

/// JavaScript's `String(x)` for the numbers the API writes (shortest round-trip form; integers without `.0`).
func javaScriptNumber(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 1e21 { return String(Int64(x)) }
    return "\(x)"
}
