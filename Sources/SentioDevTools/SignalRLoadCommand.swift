import ArgumentParser
import Foundation
import Sentio
import SentioBench

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio-dev signalr-load`: the SignalR variant of `ws-load`, for the allowance app's hub `/hubs/family`.
///
/// Registers `--families` families through the API (a parent and `--children` children each), spreads `--clients`
/// hub connections over the families' members (several connections per member, as devices), completes each
/// connection's JSON-protocol handshake, then per round POSTs one transaction (a credit) for a child of the next
/// family and records when each of that family's connections received its `TransactionCreated`. Prints p50/p99/max of
/// the time from just before the POST to the family's *last* connection's update (over rounds) and to each delivery,
/// the updates that reached another family's connection (must be 0), and the server's RSS.
struct SignalRLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signalr-load",
        abstract: "SignalR load client: N hub connections over families' members; time from POSTing a transaction to the family's last TransactionCreated.",
        discussion: "The server needs SENTIO_JWT_SECRET (accounts on). Each round waits at most 10 s for its updates; a round some connection missed is reported.")

    @OptionGroup var load: LoadOptions

    @Option(help: "Families to register; the connections are spread over their members.")
    var families = 10

    @Option(help: "Children per family (each family also has its parent).")
    var children = 4

    var url: String { load.url }
    var clients: Int { load.clients }
    var steps: Int { load.steps }
    var pid: Int32? { load.pid }
    var interval: Double { load.interval }

    func validate() throws {
        guard families >= 1 && families <= clients else { throw ValidationError("--families must be in 1...clients, got \(families)") }
        guard children >= 1 && children <= 20 else { throw ValidationError("--children must be in 1...20, got \(children)") }
    }

    func json(_ body: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw ValidationError("not a JSON object: \(body.prefix(200))")
        }
        return object
    }

    func post(_ endpoint: Endpoint, _ path: String, _ body: String, token: String? = nil) throws -> [String: Any] {
        var headers = ["Content-Type: application/json"]
        if let token { headers.append("Authorization: Bearer \(token)") }
        let (status, text) = try endpoint.http("POST", path, body: body, headers: headers)
        guard status == 200 || status == 201 else { throw ValidationError("POST \(path): \(status) \(text)") }
        return try json(text)
    }

    func run() throws {
        let endpoint = try Endpoint(url)
        let run = UInt32.random(in: 0...UInt32.max)
        let password = "signalr load password"
        // Each family: its parent's token, its first child's id, every member's token.
        var members: [[String]] = [], parents: [String] = [], firstChild: [String] = []
        for f in 0..<families {
            let parent = try post(endpoint, "/api/v1/auth/register", """
                {"email":"bench-\(run)-f\(f)@example.com","password":"\(password)","firstName":"P\(f)","lastName":"Bench","familyName":"Bench \(f)"}
                """)
            guard let token = parent["token"] as? String else { throw ValidationError("register: no token") }
            var tokens = [token]
            for c in 0..<children {
                let email = "bench-\(run)-f\(f)-c\(c)@example.com"
                let child = try post(endpoint, "/api/v1/children", """
                    {"firstName":"C\(c)","lastName":"Bench","email":"\(email)","password":"\(password)","weeklyAllowance":1}
                    """, token: token)
                if c == 0, let id = child["childId"] as? String { firstChild.append(id) }
                let login = try post(endpoint, "/api/v1/auth/login", #"{"email":"\#(email)","password":"\#(password)"}"#)
                guard let childToken = login["token"] as? String else { throw ValidationError("login: no token") }
                tokens.append(childToken)
            }
            parents.append(token)
            members.append(tokens)
        }
        let rssBefore = WSLoadCommand.rss(pid: pid)
        // Connection k: family k % families, member (k / families) % members.
        let familyOf = (0..<clients).map { $0 % families }
        let paths = (0..<clients).map { k in "/hubs/family?access_token=" + members[k % families][(k / families) % (children + 1)] }
        let reader = try FanoutReader(endpoint: endpoint, paths: paths, hello: "{\"protocol\":\"json\",\"version\":1}\u{1E}")
        let readerThread = Thread { reader.loop() }
        readerThread.start()
        defer { reader.stop() }
        let handshakeDeadline = monotonicNanoseconds() + 60_000_000_000
        while reader.messagesEach() < 1 {
            guard monotonicNanoseconds() < handshakeDeadline else { throw ValidationError("the handshakes were not all answered within 60 s") }
            usleep(10_000)
        }
        let rssWith = WSLoadCommand.rss(pid: pid)

        var rounds: [Double] = [], deliveries: [Double] = []
        for k in 1...steps {
            let f = k % families
            let marker = "bench-\(run)-round-\(k)"
            let family = Set((0..<clients).filter { familyOf[$0] == f })
            reader.arm(target: marker, symbol: "TransactionCreated", only: family)
            let start = monotonicNanoseconds()
            _ = try post(endpoint, "/api/v1/transactions", """
                {"childId":"\(firstChild[f])","amount":1.25,"type":"Credit","description":"\(marker)","category":"Chores"}
                """, token: parents[f])
            let arrivals = reader.wait(until: start + 10_000_000_000)
            if arrivals.count < family.count { print("round \(k): only \(arrivals.count) of \(family.count) connections got the update within 10 s") }
            if let last = arrivals.max() { rounds.append(Double(last - start) / 1e6) }
            deliveries += arrivals.map { Double($0 - start) / 1e6 }
            if interval > 0 { usleep(UInt32(interval * 1_000_000)) }
        }
        func percentile(_ xs: [Double], _ p: Double) -> Double { nearestRankPercentile(xs.sorted(), p / 100) ?? .nan }
        func ms(_ x: Double) -> String { String(format: "%.2f", x) }
        print("== \(clients) hub connections, \(families) families of \(children + 1) members, \(rounds.count) rounds; closed by the server: \(reader.closedCount())")
        print("== POST transaction → the family's last TransactionCreated (ms): p50 \(ms(percentile(rounds, 50)))  p99 \(ms(percentile(rounds, 99)))  max \(ms(rounds.max() ?? .nan))")
        print("== POST transaction → each delivery, \(deliveries.count) deliveries (ms): p50 \(ms(percentile(deliveries, 50)))  p99 \(ms(percentile(deliveries, 99)))")
        print("== updates at another family's connections: \(reader.strayCount())")
        if let rssBefore, let rssWith {
            print("== server RSS: \(rssBefore / 1024) MB before the connections, \(rssWith / 1024) MB with \(clients) connected")
        }
    }
}
