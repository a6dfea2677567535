import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SentioAPI
import SentioCore
import SentioData
import SentioBacktest
import SentioFunds
import SentioLive
import SentioServer
import SentioStore
import SentioTestSupport
import SentioContractDecoders

/// The sample universe the tests serve: two shipped symbols of Data/market (names known to InstrumentNames).
let testSymbols = ["TQQQ", "SQQQ"]

/// Data/market's bars of the test symbols, merged into steps (one timestamp each).
func sampleSteps() throws -> [[FeedBar]] {
    let series = try testSymbols.map { try OHLCVReader.read(path: repositoryRoot.appendingPathComponent("Data/market/\($0).csv").path) }
    return ReplayFeed(series: series, stepsPerSecond: nil).steps
}

/// A real server on 127.0.0.1, port 0, in this process, with a fresh store. The first `preload` steps of the
/// sample are ingested before it listens.
final class ServerHarness: @unchecked Sendable {
    let server: SentioHTTPServer
    let port: Int
    let directory: URL
    let runTask: Task<Void, Error>
    var base: String { "http://127.0.0.1:\(port)" }

    static let ingestToken = "test-ingest-token"
    static let jwtSecret = "test-jwt-secret-0123456789abcdef"

    /// What a `--follow` feed reported (notices, bad rows, rejected bars), in order.
    let reports: NIOLockedValueBox<[String]>
    /// The portal's accounts (bcrypt cost 10, the test clock, mail into `mailDirectory`).
    let accounts: AccountService
    let database: SentioDatabase
    let mailDirectory: URL
    /// The accounts' clock: starts at the real time; tests move it (`advance`) instead of waiting.
    let clock: NIOLockedValueBox<Date>

    func advance(_ seconds: TimeInterval) { clock.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }

    init(
        preload: Int = 480, configure: (inout ServerOptions) -> Void = { _ in }, portal: FundPortal? = nil,
        portalFromStore: Bool = false, follow: URL? = nil, hasher: PasswordHasher = ServerHarness.hasher, marketData: Bool = true,
        investing: ((SentioDatabase) async throws -> InvestingService)? = nil
    ) async throws {
        directory = try temporaryDirectory("sentio-serve-tests")
        let database = try SentioDatabase(path: directory.appendingPathComponent("store.sqlite").path)
        self.database = database
        mailDirectory = directory.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: mailDirectory, withIntermediateDirectories: true)
        let setup = LiveSessionSetup(
            configuration: LiveConfiguration(strategy: .sentio, backtest: BacktestConfiguration()), universe: testSymbols)
        let backend: any LiveBackend
        if marketData {
            let journaled = try JournaledLiveBackend(database: database, setup: setup, stepTimeout: 0)
            let steps = try sampleSteps()
            _ = try journaled.ingest(Array(steps.prefix(preload).joined()))
            backend = journaled
        } else {
            backend = NoMarketBackend()
        }
        var options = ServerOptions()
        options.port = 0
        options.rateLimit = 0
        options.ingestToken = Self.ingestToken
        options.jwtSecret = Self.jwtSecret
        configure(&options)
        var logger = Logger(label: "sentio.serve.tests")
        logger.logLevel = .critical
        let chosenPortal = try portal ?? Self.samplePortal()
        let reports = NIOLockedValueBox<[String]>([])
        self.reports = reports
        let followFeed = try follow.map { directory in
            FollowFeed(
                directory: try FollowedDirectory(directory: directory.path, universe: testSymbols), pollInterval: 0.02,
                report: { line in reports.withLockedValue { $0.append(line) } })
        }
        let clock = NIOLockedValueBox(Date())
        self.clock = clock
        accounts = AccountService(
            database: database, secret: options.jwtSecret, hasher: hasher, outbox: MailOutbox(directory: mailDirectory.path),
            clock: { clock.withLockedValue { $0 } })
        let server = SentioHTTPServer(
            options: options, backend: backend, portal: chosenPortal, accounts: accounts, portalFromStore: portalFromStore,
            follow: followFeed, investing: try await investing?(database), logger: logger)
        self.server = server
        let (ready, continuation) = AsyncStream<Int>.makeStream()
        runTask = Task {
            // Finish the stream however run() ends, so that a server that never listens fails the test, not hangs it.
            defer { continuation.finish() }
            try await server.run(gracefulShutdownSignals: []) { port in continuation.yield(port) }
        }
        var it = ready.makeAsyncIterator()
        guard let port = await it.next() else { throw HarnessError("the server never became ready") }
        self.port = port
    }

    /// One hasher for every harness (bcrypt cost 10, the lowest Sentio accepts: its dummy hash is made once).
    static let hasher = PasswordHasher(cost: 10)

    /// The sample funds (Data/funds); who sees which is in the accounts (see `addAccount`).
    static func samplePortal() throws -> FundPortal {
        let eventsPath = repositoryRoot.appendingPathComponent("Data/funds/events.csv").path
        let events = try FundEventFile(text: try String(contentsOfFile: eventsPath, encoding: .utf8), file: eventsPath)
        let metaPath = repositoryRoot.appendingPathComponent("Data/funds/funds.csv").path
        let metadata = try FundMetadataFile(text: try String(contentsOfFile: metaPath, encoding: .utf8), file: metaPath)
        return FundPortal(events: events, metadata: metadata)
    }

    /// Creates an account directly in the store (as `sentio users add` does).
    @discardableResult
    func addAccount(_ email: String, role: AccountRole = .user, funds: [String] = [], password: String = "correct horse battery") throws -> StoredUser {
        try accounts.addUser(email: email, role: role, funds: funds, password: password, firstName: "Test", lastName: email)
    }

    /// Logs in through the API; the token.
    func login(_ email: String, password: String = "correct horse battery") async throws -> String {
        let reply = try await request("/api/auth/callback/credentials", method: .POST,
                                      body: #"{"email":"\#(email)","password":"\#(password)"}"#)
        guard reply.status == 200 else { throw HarnessError("login of \(email): \(reply.status) \(reply.body)") }
        return try Spec.decode(SpecLoginResponse.self, reply.body).token
    }

    func stop() async throws {
        await server.shutdown()
        try await runTask.value
    }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    func request(
        _ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))  // a hang guard (see pollUntil)
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// A value of the Prometheus text at `/metrics` (the first sample of `name`).
    func metric(_ name: String) async throws -> Double? {
        let text = try await request("/metrics").body
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }

    func ingest(_ bars: [FeedBar]) async throws -> Reply {
        try await request("/api/v1/bars", method: .POST, headers: [("Authorization", "Bearer \(Self.ingestToken)")],
                          body: ndjson(bars))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

func ndjson(_ bars: [FeedBar]) -> String {
    var writer = ByteWriter()
    for b in bars { NDJSONBars.append(symbol: b.symbol, bar: b.bar, to: &writer) }
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// An HS256 token signed with `secret` by jwt-kit.
func signedJWT(sub: String, exp: Date, role: String? = nil, secret: String) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var role: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
    return try await keys.sign(Claims(sub: SubjectClaim(value: sub), exp: ExpirationClaim(value: exp), role: role))
}

/// An unsigned token (`alg: none`), built by hand.
func unsignedJWT(payload: String) -> String {
    func b64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(payload) + "."
}
