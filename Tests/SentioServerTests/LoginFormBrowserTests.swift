import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import SentioContractDecoders
import SentioServer
import SentioTestSupport
import Testing

/// A headless Chromium driven over the DevTools protocol (its WebSocket, `--remote-debugging-port=0`): one page.
final class HeadlessChromium: @unchecked Sendable {
    let process: Process
    let profile: URL
    /// The page target's DevTools WebSocket.
    let pageSocket: String

    init() async throws {
        profile = try temporaryDirectory("sentio-chromium-cdp")
        process = Process()
        process.executableURL = URL(fileURLWithPath: chromiumPath!)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--remote-debugging-port=0", "--remote-allow-origins=*", "about:blank",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Chromium writes the port it chose to DevToolsActivePort in the profile (first line).
        let portFile = profile.appendingPathComponent("DevToolsActivePort")
        var port: Int?
        let process = self.process
        try await pollUntil("chromium's DevToolsActivePort", seconds: 60, interval: .milliseconds(50),
                            failFast: { process.isRunning ? nil : "chromium exited (status \(process.terminationStatus))" }) {
            port = (try? String(contentsOf: portFile, encoding: .utf8))?.split(separator: "\n").first.flatMap { Int($0) }
            return port != nil
        }
        var socket: String?
        try await pollUntil("chromium's page target", seconds: 60, interval: .milliseconds(50)) {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port!)/json/list"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            let targets = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]] ?? []
            socket = targets.first { $0["type"] as? String == "page" }?["webSocketDebuggerUrl"] as? String
            return socket != nil
        }
        pageSocket = socket!
    }

    func stop() async {
        if process.isRunning { process.terminate() }
        await exited(process)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Connects to the page and runs `body` with a function that sends one DevTools command and returns its `result`.
    func withPage(_ body: @escaping @Sendable (_ send: (String, [String: Any]) async throws -> [String: Any]) async throws -> Void) async throws {
        var logger = Logger(label: "cdp-client")
        logger.logLevel = .critical
        let failure = NIOLockedValueBox<(any Error)?>(nil)
        try await WebSocketClient.connect(
            url: pageSocket, configuration: .init(maxFrameSize: 1 << 24), logger: logger
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
            var nextID = 0
            func send(_ method: String, _ params: [String: Any]) async throws -> [String: Any] {
                nextID += 1
                let id = nextID
                let data = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
                try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
                while let message = try await messages.next() {
                    guard case .text(let text) = message,
                          let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                          object["id"] as? Int == id
                    else { continue }  // events, other answers
                    if let error = object["error"] { throw HarnessError("DevTools \(method): \(error)") }
                    return object["result"] as? [String: Any] ?? [:]
                }
                throw HarnessError("DevTools closed the connection during \(method)")
            }
            do { try await body(send) } catch { failure.withLockedValue { $0 = error } }
        }
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }
}

/// The value of a JavaScript expression in the page (`Runtime.evaluate`, by value, promises awaited).
func evaluate(_ send: (String, [String: Any]) async throws -> [String: Any], _ expression: String) async throws -> Any? {
    let result = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
    if let exception = result["exceptionDetails"] { throw HarnessError("page script failed: \(expression): \(exception)") }
    return (result["result"] as? [String: Any])?["value"]
}

@Suite("sentio serve: the LP login form in headless Chromium (DevTools protocol)", .serialized)
struct LoginFormBrowserTests {
    @Test("typing email and password into the page's login form and clicking Log in: 'Invalid credentials' for a wrong password or an unknown email; the dashboard for the right one",
          .enabled(if: chromiumPath != nil, "chromium is not installed here (CI installs Debian's chromium): browser test skipped"))
    func loginForm() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        try h.addAccount("ivy@example.com", funds: ["NVP-III"])
        let browser = try await HeadlessChromium()
        let base = h.base
        // What the page showed in each case: (state, message, signed-in user, TVPI text, fund lines, stored token).
        let shown = NIOLockedValueBox<[String: [String: String]]>([:])
        do {
            try await browser.withPage { send in
                func submit(_ email: String, _ password: String) async throws -> [String: String] {
                    _ = try await send("Page.navigate", ["url": base + "/"])
                    try await pollUntil("the login form", seconds: 60, interval: .milliseconds(50)) {
                        try await evaluate(send, "document.readyState === 'complete' && document.getElementById('login-email') !== null") as? Bool == true
                    }
                    // As a user: focus each field and type into it, then click the submit button.
                    for (field, text) in [("login-email", email), ("login-password", password)] {
                        _ = try await evaluate(send, "document.getElementById('\(field)').focus()")
                        _ = try await send("Input.insertText", ["text": text])
                    }
                    _ = try await evaluate(send, "document.querySelector('#login button[type=submit]').click()")
                    try await pollUntil("the page's answer to the login", seconds: 60, interval: .milliseconds(50)) {
                        let state = try await evaluate(send, "document.body.dataset.lp || ''") as? String
                        return state == "error" || state == "dashboard"
                    }
                    let read = """
                        JSON.stringify({
                          state: document.body.dataset.lp,
                          message: document.getElementById('login-message').textContent,
                          formHidden: String(document.getElementById('login').hidden),
                          dashboardHidden: String(document.getElementById('lp-dashboard').hidden),
                          user: document.getElementById('lp-user').textContent,
                          tvpi: document.getElementById('lp-tvpi').textContent,
                          funds: Array.from(document.querySelectorAll('#lp-funds li')).map((li) => li.textContent).join('\\n'),
                          token: sessionStorage.getItem('lpToken') || ''
                        })
                        """
                    let json = try #require(try await evaluate(send, read) as? String)
                    return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
                }
                let wrong = try await submit("ivy@example.com", "wrong horse battery")
                let unknown = try await submit("nobody@example.com", "correct horse battery")
                let right = try await submit("ivy@example.com", "correct horse battery")
                shown.withLockedValue { $0 = ["wrong": wrong, "unknown": unknown, "right": right] }
            }
        } catch {
            await browser.stop()
            throw error
        }
        await browser.stop()

        let pages = shown.withLockedValue { $0 }
        for name in ["wrong", "unknown"] {
            let page = try #require(pages[name], "\(name)")
            #expect(page["state"] == "error", "\(name): \(page)")
            #expect(page["message"] == "Invalid credentials", "\(name): \(page)")
            #expect(page["formHidden"] == "false" && page["dashboardHidden"] == "true" && page["token"] == "", "\(name): \(page)")
        }
        let page = try #require(pages["right"])
        #expect(page["state"] == "dashboard", "\(page)")
        #expect(page["formHidden"] == "true" && page["dashboardHidden"] == "false", "\(page)")
        #expect(page["user"] == "ivy@example.com")
        // The page shows what the API serves to the token it keeps.
        let token = try #require(page["token"].flatMap { $0.isEmpty ? nil : $0 })
        let profile = try Spec.decode(SpecProfileResponse.self, try await h.request("/api/user/profile", headers: bearer(token)).body)
        #expect(profile.user.email == "ivy@example.com")
        let dashboard = try Spec.decode(SpecDashboard.self, try await h.request("/api/dashboard", headers: bearer(token)).body)
        #expect(page["tvpi"] == String(format: "%.2fx", dashboard.portfolioSummary.portfolioTvpi), "\(page)")
        let lines = (page["funds"] ?? "").split(separator: "\n").map(String.init)
        #expect(lines.count == dashboard.funds.count && dashboard.funds.count == 1, "\(lines)")
        for (line, fund) in zip(lines, dashboard.funds) { #expect(line.hasPrefix(fund.name + " · NAV "), "\(line)") }
    }
}
