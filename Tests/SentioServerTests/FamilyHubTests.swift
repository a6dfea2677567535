import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import SentioContractDecoders
import SentioServer
import SentioTestSupport
import Testing

/// The records of SignalR text messages (each JSON object without its 0x1E separator), pings left out.
func signalRRecords(_ texts: [String]) -> [String] {
    texts.flatMap { $0.split(separator: "\u{1E}").map(String.init) }.filter { $0 != "{\"type\":6}" }
}

/// A SignalR connection over a raw WebSocket (HummingbirdWSClient): sends `first` as its first message, records
/// every text message, and sends the close record `{"type":7}` once `closeAfter` records arrived.
func rawHubClient(_ url: String, first: String, closeAfter: Int) -> (NIOLockedValueBox<[String]>, Task<Void, Error>) {
    let texts = NIOLockedValueBox<[String]>([])
    let task = Task {
        var logger = Logger(label: "hub-client")
        logger.logLevel = .critical
        _ = try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
            try await outbound.write(.text(first))
            var closed = false
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                let count = texts.withLockedValue { $0.append(text); return signalRRecords($0).count }
                if count >= closeAfter, !closed {
                    closed = true
                    try await outbound.write(.text("{\"type\":7}\u{1E}"))
                }
            }
        }
    }
    return (texts, task)
}

/// The pinned PyPI SignalR client's virtual environment (`.build-signalr`, made on first use, like schemathesis.sh's).
func signalRPython() async throws -> URL {
    let venv = repositoryRoot.appendingPathComponent(".build-signalr")
    let python = venv.appendingPathComponent("bin/python")
    let marker = venv.appendingPathComponent("signalrcore-1.0.2.installed")
    if !FileManager.default.fileExists(atPath: marker.path) {
        for arguments in [["python3", "-m", "venv", venv.path], [python.path, "-m", "pip", "install", "--quiet", "signalrcore==1.0.2"]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = arguments
            try p.run()
            await exited(p)
            guard p.terminationStatus == 0 else { throw HarnessError("\(arguments.joined(separator: " ")) failed: \(p.terminationStatus)") }
        }
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
    }
    return python
}

/// One run of `signalr_family_client.py`: its process and the lines it printed so far.
struct PythonHubClient {
    let process: Process
    let output: URL

    init(python: URL, url: String, token: String, negotiate: Bool, count: Int, directory: URL) throws {
        output = directory.appendingPathComponent("client-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: Data())
        process = Process()
        process.executableURL = python
        process.arguments = [
            repositoryRoot.appendingPathComponent("Tests/SentioServerTests/signalr_family_client.py").path, url, token,
            negotiate ? "negotiate" : "skip", String(count),
        ]
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    var lines: [String] { ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }

    /// The invocations received (target, first argument as JSON text).
    var invocations: [(target: String, argument: String)] {
        lines.compactMap { line in
            guard line.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let target = object["target"] as? String, let arguments = object["arguments"] as? [Any], let first = arguments.first,
                  let data = try? JSONSerialization.data(withJSONObject: first)
            else { return nil }
            return (target, String(decoding: data, as: UTF8.self))
        }
    }
}

@Suite("Allowance app: the SignalR hub /hubs/family", .serialized)
struct FamilyHubTests {
    @Test("JSON hub protocol over a raw WebSocket: handshake, invocations after the commit to the family only, close; bad tokens and protocols refused")
    func rawProtocol() async throws {
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let (a, b, a1, _, b1, a1Token) = try await app.twoFamilies(allowance: "2.00")
        let ws = "ws://127.0.0.1:\(h.port)/hubs/family"

        // The child (token as the query parameter) and the other family's parent.
        let (child, childTask) = rawHubClient("\(ws)?access_token=\(a1Token)", first: "{\"protocol\":\"json\",\"version\":1}\u{1E}", closeAfter: 5)
        let (other, otherTask) = rawHubClient("\(ws)?access_token=\(b.token)", first: "{\"protocol\":\"json\",\"version\":1}\u{1E}", closeAfter: 3)
        try await pollUntil("both handshakes answered") {
            child.withLockedValue { $0 }.first == "{}\u{1E}" && other.withLockedValue { $0 }.first == "{}\u{1E}"
        }
        #expect(try await app.transaction(a.token, child: a1.childId, amount: "3.10", type: "Credit").status == 201)
        #expect(try await h.request("/api/v1/children/\(a1.childId.uuidString)/pay-allowance", method: .POST, headers: bearer(a.token)).status == 201)
        #expect(try await app.transaction(b.token, child: b1.childId, amount: "1.00", type: "Credit").status == 201)
        try await childTask.value
        try await otherTask.value

        let records = signalRRecords(child.withLockedValue { $0 })
        #expect(records.first == "{}")
        struct Invocation: Decodable { let type: Int; let target: String }
        let invocations = try records.dropFirst().map { try JSONDecoder().decode(Invocation.self, from: Data($0.utf8)) }
        #expect(invocations.map(\.target) == ["TransactionCreated", "BalanceUpdated", "AllowancePaid", "BalanceUpdated"])
        #expect(invocations.allSatisfy { $0.type == 1 })
        struct Args<T: Decodable>: Decodable { let arguments: [T] }
        let created = try AllowanceSpec.decode(Args<AllowanceSpecTransaction>.self, records[1]).arguments[0]
        #expect(created.amount == decimal("3.10") && created.childId == a1.childId && created.balanceAfter == decimal("3.10"))
        let balance = try AllowanceSpec.decode(Args<AllowanceSpecBalanceUpdate>.self, records[4]).arguments[0]
        #expect(balance == AllowanceSpecBalanceUpdate(childId: a1.childId, balance: decimal("5.10")))
        let paid = try AllowanceSpec.decode(Args<AllowanceSpecTransaction>.self, records[3]).arguments[0]
        #expect(paid.category == "Allowance" && paid.amount == 2)
        // The other family heard only its own transaction.
        let otherRecords = signalRRecords(other.withLockedValue { $0 })
        #expect(otherRecords.count == 3)
        let heard = try AllowanceSpec.decode(Args<AllowanceSpecTransaction>.self, otherRecords[1]).arguments[0]
        #expect(heard.childId == b1.childId)

        // Another protocol: an error record, then the server closes.
        let (wrong, wrongTask) = rawHubClient("\(ws)?access_token=\(a.token)", first: "{\"protocol\":\"messagepack\",\"version\":1}\u{1E}", closeAfter: 99)
        try await wrongTask.value
        let answer = try #require(signalRRecords(wrong.withLockedValue { $0 }).first)
        #expect(try jsonObject(answer)["error"] is String)
        // A version the server does not speak: an error record.
        let (v2, v2Task) = rawHubClient("\(ws)?access_token=\(a.token)", first: "{\"protocol\":\"json\",\"version\":2}\u{1E}", closeAfter: 99)
        try await v2Task.value
        #expect(try jsonObject(try #require(signalRRecords(v2.withLockedValue { $0 }).first))["error"] is String)
        // Negotiate version 1: the connection token opens one connection, once.
        let negotiated = try await h.request("/hubs/family/negotiate?negotiateVersion=1", method: .POST, headers: bearer(a.token))
        #expect(negotiated.status == 200)
        let negotiation = try jsonObject(negotiated.body)
        let connectionToken = try #require(negotiation["connectionToken"] as? String)
        #expect((negotiation["negotiateVersion"] as? NSNumber)?.intValue == 1 && negotiation["connectionId"] as? String != connectionToken)
        let (viaToken, viaTokenTask) = rawHubClient("\(ws)?id=\(connectionToken)&access_token=\(a.token)", first: "{\"protocol\":\"json\",\"version\":1}\u{1E}", closeAfter: 1)
        try await viaTokenTask.value
        #expect(signalRRecords(viaToken.withLockedValue { $0 }) == ["{}"])
        #expect(try await h.request("/hubs/family?id=\(connectionToken)", headers: bearer(a.token)).status == 404, "a token is used once")
        // No token, a bad token, an account of no family: no upgrade.
        for query in ["", "?access_token=bad", "?access_token=\(try await h.login(try h.addAccount("lp@example.com").email))"] {
            let (_, task) = rawHubClient(ws + query, first: "{\"protocol\":\"json\",\"version\":1}\u{1E}", closeAfter: 1)
            await #expect(throws: (any Error).self) { try await task.value }
        }
        #expect(try await h.request("/hubs/family/negotiate", method: .POST).status == 401)
        // A connection id that negotiate did not hand out.
        #expect(try await h.request("/hubs/family?id=made-up", headers: bearer(a.token)).status == 404)
    }

    @Test("signalrcore (PyPI) with and without negotiation: every family member's client gets the invocations, another family's does not")
    func thirdPartyClient() async throws {
        let python = try await signalRPython()
        let h = try await ServerHarness(preload: 0)
        defer { Task { try? await h.stop() } }
        let app = AllowanceClient(h: h)
        let (a, b, a1, _, b1, a1Token) = try await app.twoFamilies()
        let url = "http://127.0.0.1:\(h.port)/hubs/family"
        let clients = [
            try PythonHubClient(python: python, url: url, token: a.token, negotiate: true, count: 3, directory: h.directory),
            try PythonHubClient(python: python, url: url, token: a1Token, negotiate: false, count: 3, directory: h.directory),
            try PythonHubClient(python: python, url: url, token: b.token, negotiate: true, count: 2, directory: h.directory),
        ]
        defer { for c in clients where c.process.isRunning { c.process.terminate() } }
        try await pollUntil("the three clients are connected", seconds: 120,
                            failFast: { clients.first { !$0.process.isRunning }.map { "a client exited: \($0.lines)" } }) {
            clients.allSatisfy { $0.lines.contains("READY") }
        }
        #expect(try await app.transaction(a.token, child: a1.childId, amount: "4.00", type: "Credit").status == 201)
        #expect(try await h.request("/api/v1/goals", method: .POST, headers: bearer(a1Token),
                                    body: #"{"childId":"\#(a1.childId.uuidString)","name":"Ball","targetAmount":8}"#).status == 201)
        #expect(try await app.transaction(b.token, child: b1.childId, amount: "1.50", type: "Credit").status == 201)
        for c in clients { await exited(c.process) }
        for c in clients.prefix(2) {
            #expect(c.process.terminationStatus == 0, "\(c.lines)")
            #expect(c.invocations.map(\.target) == ["TransactionCreated", "BalanceUpdated", "GoalUpdated"])
            let tx = try AllowanceSpec.decode(AllowanceSpecTransaction.self, try #require(c.invocations.first).argument)
            #expect(tx.childId == a1.childId && tx.amount == 4)
            let goal = try AllowanceSpec.decode(AllowanceSpecGoal.self, c.invocations[2].argument)
            #expect(goal.name == "Ball" && goal.childId == a1.childId)
        }
        let other = clients[2]
        #expect(other.process.terminationStatus == 0, "\(other.lines)")
        #expect(other.invocations.map(\.target) == ["TransactionCreated", "BalanceUpdated"])
        let heard = try AllowanceSpec.decode(AllowanceSpecBalanceUpdate.self, other.invocations[1].argument)
        #expect(heard == AllowanceSpecBalanceUpdate(childId: b1.childId, balance: decimal("1.50")))
    }
}
