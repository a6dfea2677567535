import SentioContractDecoders
import Foundation
import NIOConcurrencyHelpers
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
        let preload = 400
        let h = try await ServerHarness(preload: preload)
        defer { Task { try? await h.stop() } }
        let steps = try sampleSteps()
        let lastPreloaded = steps[preload - 1][0].bar.timestamp

        // What the API serves, per (symbol, timestamp): price and RSI.
        let served = NIOLockedValueBox<[String: (price: Double, rsi: Double)]>([:])
        @Sendable func record() async throws {
            let response = try Strict.decode(StrictSignalsResponse.self, try await h.request("/api/v1/signals").body)
            served.withLockedValue { s in
                for signal in response.signals {
                    s["\(signal.symbol)@\(iso8601(epochSeconds: Int64(signal.timestamp.timeIntervalSince1970)))"] = (signal.price, signal.rsi)
                }
            }
        }
        try await record()

        let profile = try temporaryDirectory("sentio-chromium")
        let output = profile.appendingPathComponent("dom.html")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromiumPath!)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--virtual-time-budget=10000", "--dump-dom", h.base + "/",
        ]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()

        // While the page is open, bars keep arriving; each ingest is followed by a record of what the API serves.
        var k = preload
        while process.isRunning, k < steps.count {
            _ = try await h.ingest(steps[k])
            try await record()
            k += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        await exited(process)
        let dom = try String(contentsOf: output, encoding: .utf8)
        let cards = parseCards(dom)
        #expect(!cards.isEmpty, "no signal card in the page")
        #expect(cards.contains { $0.timestamp > iso8601(epochSeconds: lastPreloaded) },
                "no card shows a bar ingested while the page was open (no WebSocket update reached it)")
        let table = served.withLockedValue { $0 }
        for card in cards {
            let api = try #require(table["\(card.symbol)@\(card.timestamp)"], "\(card.symbol) at \(card.timestamp) was never served")
            #expect(card.price == api.price, "\(card.symbol) price")
            #expect(card.rsi == api.rsi, "\(card.symbol) rsi")
        }
    }
}

/// The cards of the dumped DOM: symbol, timestamp, and the raw price and RSI values (`data-value`).
func parseCards(_ dom: String) -> [(symbol: String, timestamp: String, price: Double?, rsi: Double?)] {
    func attribute(_ name: String, in text: Substring) -> String? {
        guard let r = text.range(of: name + "=\"") else { return nil }
        return String(text[r.upperBound...].prefix { $0 != "\"" })
    }
    func value(_ field: String, in text: Substring) -> Double? {
        guard let r = text.range(of: "data-field=\"\(field)\" data-value=\"") else { return nil }
        return Double(String(text[r.upperBound...].prefix { $0 != "\"" }))
    }
    var cards: [(String, String, Double?, Double?)] = []
    for chunk in dom.components(separatedBy: "<article class=\"card\"").dropFirst() {
        let text = Substring(chunk.components(separatedBy: "</article>")[0])
        guard let symbol = attribute("data-symbol", in: text), let timestamp = attribute("data-timestamp", in: text) else { continue }
        cards.append((symbol, timestamp, value("price", in: text), value("rsi", in: text)))
    }
    return cards
}
