import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SentioCore
import SentioContractDecoders
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// `sentio allowance --format json`'s fields this test compares.
struct CLIAllowanceReport: Decodable {
    struct Child: Decodable {
        struct Row: Decodable { let id: String; let balanceAfter: Decimal }
        let childId: String
        let currentBalance: Decimal
        let lastAllowanceDate: String?
        let nextAllowanceDate: String
        let transactions: [Row]
    }
    let children: [Child]
}

@Suite("Allowance app: the sentio process (no market data, SIGKILL during POSTs, export to sentio allowance)", .serialized)
struct AllowanceProcessTests {
    @Test("sentio serve without symbols serves the allowance app (market endpoints 503); a seeded SIGKILL during POST /api/v1/transactions leaves the ledger consistent and the retry with the same Idempotency-Key books once; the export gives sentio allowance the server's balances")
    func killDuringTransactionsAndExportParity() async throws {
        let directory = try temporaryDirectory("sentio-allowance-kill")
        let db = directory.appendingPathComponent("store.sqlite").path
        var environment = ProcessInfo.processInfo.environment
        environment["SENTIO_JWT_SECRET"] = "kill-test-secret-0123456789abcdef"

        func start() async throws -> (Process, Int) {
            let serve = try await startServe(["serve", "--db", db, "--port", "0"], environment: environment)
            #expect(serve.startupText.contains("without market data"))
            return (serve.process, serve.port)
        }
        @Sendable func call(_ port: Int, _ path: String, method: HTTPMethod = .POST, token: String? = nil, key: String? = nil, _ body: String? = nil) async throws -> (Int, String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = method
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let key { request.headers.add(name: "Idempotency-Key", value: key) }
            if let body { request.body = .bytes(ByteBuffer(string: body)) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))  // a hang guard
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), String(buffer: bytes))
        }

        // Set up: a parent and a child, through the API of a server without market data.
        var (process, port) = try await start()
        #expect(try await call(port, "/api/v1/signals", method: .GET).0 == 503)
        let (status, body) = try await call(port, "/api/v1/auth/register", #"{"email":"p@example.com","password":"correct horse battery","firstName":"P","lastName":"Q","familyName":"K"}"#)
        #expect(status == 201, "\(body)")
        let token = try AllowanceSpec.decode(AllowanceSpecAuthResponse.self, body).token
        let (childStatus, childBody) = try await call(port, "/api/v1/children", token: token, #"{"firstName":"C","lastName":"Q","email":"c@example.com","password":"correct horse battery","weeklyAllowance":4}"#)
        #expect(childStatus == 201, "\(childBody)")
        let child = try AllowanceSpec.decode(AllowanceSpecChild.self, childBody).childId.uuidString.lowercased()
        #expect(try await call(port, "/api/v1/transactions", token: token, #"{"childId":"\#(child)","amount":50,"type":"Credit","description":"start","category":"Gift"}"#).0 == 201)
        kill(process.processIdentifier, SIGKILL)
        await exited(process)

        var rng = SplitMix64(seed: 31)
        var outcomes = (booked: 0, notBooked: 0)
        for round in 0..<5 {
            (process, port) = try await start()
            let debit = Bool.random(using: &rng)
            let amount = String(format: "%d.%02d", Int.random(in: 0...9, using: &rng), Int.random(in: 1...99, using: &rng))
            let request = #"{"childId":"\#(child)","amount":\#(amount),"type":"\#(debit ? "Debit" : "Credit")","description":"round \#(round)","category":"Toys"}"#
            let key = "kill-\(round)"
            let target = port
            let pending = Task { try? await call(target, "/api/v1/transactions", token: token, key: key, request) }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...30_000, using: &rng)))
            kill(process.processIdentifier, SIGKILL)
            await exited(process)
            _ = await pending.value
            do {
                let store = try SentioDatabase(path: db)
                #expect(try store.integrityCheck() == ["ok"])
                let rows = try store.allowanceTransactions(childID: child)
                var balance: Int64 = 0
                for row in rows {
                    balance += row.type == "Credit" ? row.amountCents : -row.amountCents
                    #expect(balance == row.balanceAfterCents && balance >= 0, "round \(round): the running balance")
                }
                let booked = rows.filter { $0.idempotencyKey == key }.count
                #expect(booked <= 1)
                if booked == 1 { outcomes.booked += 1 } else { outcomes.notBooked += 1 }
            }
            // The app retries its queued POST: it is booked exactly once, whichever side the kill landed on.
            (process, port) = try await start()
            let (retryStatus, _) = try await call(port, "/api/v1/transactions", token: token, key: key, request)
            #expect(retryStatus == 201 || retryStatus == 400, "round \(round)")
            kill(process.processIdentifier, SIGTERM)
            await exited(process)
            let rows = try SentioDatabase(path: db).allowanceTransactions(childID: child)
            #expect(rows.filter { $0.idempotencyKey == key }.count == (retryStatus == 201 ? 1 : 0), "round \(round)")
        }
        print("AllowanceProcessTests: booked before the kill \(outcomes.booked), not \(outcomes.notBooked)")

        // Export → `sentio allowance` gives the balances the server shows.
        (process, port) = try await start()
        let (dashStatus, dashBody) = try await call(port, "/api/v1/dashboard/child?childId=\(child)", method: .GET, token: token)
        #expect(dashStatus == 200, "\(dashBody)")
        let dashboard = try AllowanceSpec.decode(AllowanceSpecChildDashboard.self, dashBody)
        let (pageStatus, pageBody) = try await call(port, "/api/v1/transactions/children/\(child)?pageSize=100", method: .GET, token: token)
        #expect(pageStatus == 200)
        let page = try AllowanceSpec.decode(AllowanceSpecPage.self, pageBody)
        kill(process.processIdentifier, SIGTERM)
        await exited(process)
        let out = directory.appendingPathComponent("export")
        let export = try await runSentio(["allowance", "export", "--db", db, "--out", out.path])
        #expect(export.status == 0, "\(export.stderr)")
        let today = CivilDate(epochSeconds: Int64(Date().timeIntervalSince1970))
        let report = try await runSentio([
            "allowance", out.appendingPathComponent("ledger.csv").path, "--children", out.appendingPathComponent("children.csv").path,
            "--goals", out.appendingPathComponent("goals.csv").path, "--as-of", today.description, "--format", "json",
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let cli = try JSONDecoder().decode(CLIAllowanceReport.self, from: Data(report.stdout.utf8))
        let row = try #require(cli.children.first { $0.childId == child })
        #expect(row.currentBalance == dashboard.child.currentBalance)
        #expect(row.transactions.reversed().map(\.balanceAfter) == page.items.map(\.balanceAfter))
        #expect(row.transactions.reversed().map(\.id) == page.items.map { $0.id.uuidString.lowercased() })
        #expect(row.lastAllowanceDate == nil && dashboard.child.lastAllowanceDate == nil)
    }
}
