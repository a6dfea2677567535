import ArgumentParser
import Dispatch
import Foundation
import Logging
import Sentio
import SentioAPI
import SentioApplication
import SentioData
import SentioFunds
import SentioLive
import SentioServer
import SentioStore

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the signals app, the LP portal and the investing app over HTTP and WebSocket from the live engine.",
        discussion: """
            When ready, prints one line to standard error: `sentio serve: listening on http://HOST:PORT`.
            SIGTERM/SIGINT shut down gracefully (WebSockets closed with 1001, requests in flight finished, last commit).
            POST /api/v1/bars needs SENTIO_INGEST_TOKEN in the environment; the LP portal needs SENTIO_JWT_SECRET \
            (at least 32 bytes) and accounts in --db (`sentio users add|invite`); password-reset mail is written \
            to --mail-dir DIR as .eml files. The investing app (Growfolio) needs --apple-jwks FILE and --apple-audience ID.
            The endpoints are described at GET /openapi.json; the dashboard is at /.
            The family allowance app (/api/v1/auth, /children, /transactions, /dashboard, /goals, /analytics and the \
            SignalR hub /hubs/family) needs SENTIO_JWT_SECRET; its data is in --db (`sentio allowance export`). With \
            SENTIO_JWT_SECRET and no symbols (no --replay, --follow, --symbols or stored session), the apps' accounts \
            are served without market data: the market endpoints answer 503.
            Bars arrive through POST /api/v1/bars, from --replay DIR (CSV files fed at --speed), or from --follow DIR \
            (SYMBOL.csv files whose appended rows are read every --poll-interval seconds; a last line without its \
            line feed waits until it is complete; a truncated or replaced file is read again from its start, its \
            rows already ingested being duplicates; rows that are not bars are reported on standard error).
            Market files: --replay reads whole files as `sentio signals` does (--adjust auto by default: total with an \
            adjusted close column; with --actions, prices split-adjusted by the actions and dividends credited in \
            cash; --date-format, --timezone). --follow and POST /api/v1/bars get bars one at a time, as `sentio live`: \
            --adjust auto (the split check, bar by bar) or none, --actions applied to holdings at each ex-date.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port.")
    var port = 8080

    @Option(help: ArgumentHelp("Feed the per-symbol CSV files of DIR through the live session while serving.", valueName: "DIR"))
    var replay: String?

    @Option(help: ArgumentHelp("Replay speed in steps (timestamps) per second, or `max`.", valueName: "N|max"))
    var speed = "10"

    @Option(help: ArgumentHelp("Follow the per-symbol CSV files in DIR while serving: rows appended by any downloader are ingested (not with --replay).", valueName: "DIR"))
    var follow: String?

    @Option(name: .customLong("poll-interval"), parsing: .unconditional, help: ArgumentHelp("With --follow: seconds between looks at the files.", valueName: "SECONDS"))
    var pollInterval: Double = 0.5

    @OptionGroup var selection: SymbolSelectionOptions

    @OptionGroup var live: StrategyOptions

    @Flag(help: "Start the live session over with these options (journaled events and snapshots deleted, bars kept and replayed).")
    var reset = false

    @Option(name: .customLong("step-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds after a step's first bar after which it completes without the symbols still missing (0 = never).", valueName: "SECONDS"))
    var stepTimeout: Double = 10

    @Option(name: .customLong("cors-origin"), help: "Access-Control-Allow-Origin of every response.")
    var corsOrigin = "*"

    @Option(name: .customLong("rate-limit"), help: "Requests per client IP per minute on /api/v1 GETs; 0 = off.")
    var rateLimit = 100

    @Option(name: .customLong("max-body"), help: ArgumentHelp("Largest request body in bytes.", valueName: "BYTES"))
    var maxBody = 1 << 20

    @Option(name: .customLong("ws-buffer"), help: "Messages a WebSocket client may fall behind before it is closed.")
    var webSocketBuffer = 256

    @Option(help: ArgumentHelp("Fund events CSV for the LP portal (default: the fund events stored in --db, if any).", valueName: "FILE"))
    var funds: String?

    @Option(name: .customLong("fund-metadata"), help: ArgumentHelp("Fund metadata CSV (names, manager, domicile, vintage).", valueName: "FILE"))
    var fundMetadata: String?

    @Option(name: .customLong("fund-access"), help: ArgumentHelp("Import CSV `investor,fund` into the accounts of --db before serving: each investor (an account's email or id) is granted the listed funds.", valueName: "FILE"))
    var fundAccess: String?

    @Option(name: .customLong("mail-dir"), help: ArgumentHelp("Directory where password-reset mail is written, one RFC 5322 .eml file per message (default: none; reset requests are then 503).", valueName: "DIR"))
    var mailDirectory: String?

    @Option(name: .customLong("public-url"), help: ArgumentHelp("The server's public base URL, the start of password-reset links (default: http://HOST:PORT).", valueName: "URL"))
    var publicURL: String?

    @OptionGroup(title: "Market files") var marketFile: MarketFileOptions

    @Option(help: ArgumentHelp("Crypto holdings CSV (symbol,name,amount) for GET /api/crypto and the dashboard, valued at the funds' latest as-of date; needs --funds and --prices (default: none, no holdings).", valueName: "FILE"))
    var holdings: String?

    @Option(help: ArgumentHelp("With --holdings: OHLCV CSV files or directories with the holdings' prices, comma-separated.", valueName: "PATHS"))
    var prices: String?

    @OptionGroup(title: "Investing app (Growfolio)") var investing: InvestingOptions

    func validate() throws {
        try investing.validate()
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535, got \(port)") }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be ≥ 0, got \(rateLimit)") }
        guard maxBody >= 1 else { throw ValidationError("--max-body must be ≥ 1, got \(maxBody)") }
        guard webSocketBuffer >= 1 else { throw ValidationError("--ws-buffer must be ≥ 1, got \(webSocketBuffer)") }
        if speed != "max" {
            guard let s = Double(speed), s > 0, s.isFinite else {
                throw ValidationError("--speed must be a positive number of steps per second or `max`, got '\(speed)'")
            }
        }
        if replay != nil && follow != nil {
            throw ValidationError("--follow and --replay are mutually exclusive: bars come from a replay of DIR or from following DIR's files, not both")
        }
        // --replay reads whole files (every --adjust mode, as `sentio signals`); other bars arrive one at a time.
        if replay == nil { try marketFile.validateBarByBar(followed: follow != nil) }
        if !(pollInterval > 0 && pollInterval <= 3600) { throw ValidationError("--poll-interval must be in (0, 3600] seconds, got \(pollInterval)") }
        if !(stepTimeout >= 0 && stepTimeout.isFinite) { throw ValidationError("--step-timeout must be a number of seconds >= 0, got \(stepTimeout)") }
        if fundMetadata != nil && funds == nil { throw ValidationError("--fund-metadata needs --funds") }
        if holdings != nil && prices == nil { throw ValidationError("--holdings needs --prices PATHS (OHLCV CSV files or directories)") }
        if prices != nil && holdings == nil { throw ValidationError("--prices needs --holdings FILE") }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url must start with http:// or https://, got '\(publicURL)'")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var options = ServerOptions()
        options.host = host
        options.port = port
        options.corsOrigin = corsOrigin
        options.rateLimit = rateLimit
        options.maxBody = maxBody
        options.webSocketBuffer = webSocketBuffer
        options.ingestToken = environment["SENTIO_INGEST_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        options.jwtSecret = environment["SENTIO_JWT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        options.publicURL = publicURL
        if let secret = options.jwtSecret, secret.utf8.count < 32 {
            throw UsageError("SENTIO_JWT_SECRET must be at least 32 bytes for HS256, got \(secret.utf8.count)")
        }

        // --replay: whole files, read as `sentio signals` reads them (with --actions and --adjust auto, prices
        // split-adjusted by the actions and the dividends credited per adjusted share).
        let actions = try marketFile.loadActions()
        let replayed = try replay.map { directory in
            try OHLCVReader.readAllWithReports(paths: [directory], options: try marketFile.analysisReadOptions(actions: actions))
        }
        if let replayed { MarketFileOptions.printNotesAndStatement(replayed) }
        let feed = replayed.map { ReplayFeed(series: $0.map(\.series), stepsPerSecond: speed == "max" ? nil : Double(speed)) }
        let database = try store.open(mode: .createIfMissing)
        if let follow { _ = try FollowedDirectory(directory: follow, universe: []) }  // a missing directory is exit 2 now
        // The universe: --symbols, else the replay's symbols, else the stored session's, else the followed files'.
        var universe = try selection.list()
        if universe == nil, let feed { universe = feed.symbols }
        if universe == nil { universe = try JournaledLiveSession.storedSetup(in: database)?.universe }
        if universe == nil, let follow { universe = try FollowedDirectory.symbols(in: follow) }
        if let mailDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: mailDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("--mail-dir \(mailDirectory): no such directory")
            }
        }
        let backend: any LiveBackend
        if let universe, !universe.isEmpty {
            backend = try marketBackend(database: database, universe: universe, replayed: replayed, actions: actions)
        } else {
            // The apps' account services only (no market data): the market endpoints answer 503.
            guard options.jwtSecret != nil else {
                throw UsageError("nothing to serve: give --replay DIR, --follow DIR (with CSV files) or --symbols LIST to start a session in \(database.path), or set SENTIO_JWT_SECRET to serve the apps' accounts without market data")
            }
            FileHandle.standardError.write(Data("sentio serve: no symbols: serving the apps' accounts without market data (market endpoints answer 503)\n".utf8))
            backend = NoMarketBackend()
        }
        let (portal, portalFromStore) = try loadPortal(database: database)
        let accounts = AccountService(
            database: database, secret: options.jwtSecret, outbox: mailDirectory.map { MailOutbox(directory: $0) })

        var logger = Logger(label: "sentio.serve")
        logger.logLevel = .warning
        let followFeed = try follow.map { directory in
            FollowFeed(
                directory: try marketFile.followedDirectory(directory, universe: backend.universe), pollInterval: pollInterval,
                report: { FileHandle.standardError.write(Data("sentio serve: --follow: \($0)\n".utf8)) })
        }
        let server = SentioHTTPServer(
            options: options, backend: backend, portal: portal, accounts: accounts, portalFromStore: portalFromStore,
            replay: feed, follow: followFeed, investing: try investing.service(database: database, request: try live.request), logger: logger)
        let host = self.host
        let done = DispatchSemaphore(value: 0)
        let failure = LockedError()
        Task {
            do {
                try await server.run { port in
                    FileHandle.standardError.write(Data("sentio serve: listening on http://\(host):\(port)\n".utf8))
                }
            } catch {
                failure.set(error)
            }
            done.signal()
        }
        done.wait()
        if let error = failure.get() { throw error }
    }

    /// The journaled live session of `universe` (with the replay's corporate actions when replaying).
    func marketBackend(
        database: SentioDatabase, universe: [String], replayed: [ReadResult]?, actions: CorporateActions?
    ) throws -> any LiveBackend {
        let request = try live.request
        var configuration = LiveConfiguration(request: request, symbolCount: universe.count)
        if let replayed {
            configuration.corporateActions = MarketFileOptions.holdingAdjustments(replayed, actions: actions)
            configuration.splitCheck = marketFile.adjust != .none
            if let file = actions?.file {
                try MarketFileOptions.refusePriceStrategyOnSplits(
                    configuration.corporateActions, strategy: request.strategy, actionsFile: file,
                    pricesState: "--adjust \(marketFile.adjust.rawValue)",
                    advice: "use --adjust auto or splits with --actions \(file) (dividends still credited in cash)")
            }
        } else {
            configuration = try marketFile.liveConfiguration(configuration, universe: universe, strategy: request.strategy)
        }
        let setup = LiveSessionSetup(configuration: configuration, universe: universe)
        return try JournaledLiveBackend(database: database, setup: setup, reset: reset, stepTimeout: stepTimeout)
    }

    /// The LP portal's data: `--funds` (with `--fund-metadata`), else the fund events stored in `database` (saved
    /// with `sentio fund FILE --save --db`), else none (the portal answers 404 for every fund); and whether it came
    /// from the store. `--fund-access FILE` is imported into the store's accounts here.
    func loadPortal(database: SentioDatabase) throws -> (FundPortal?, fromStore: Bool) {
        let events: FundEventFile, metadata: FundMetadataFile?, source: String
        if let funds {
            events = try FundEventFile(text: try readTextFile(funds, role: "fund events"), file: funds)
            metadata = try fundMetadata.map { try FundMetadataFile(text: try readTextFile($0, role: "metadata"), file: $0) }
            source = funds
        } else if let stored = try database.storedFunds() {
            (events, metadata) = stored
            source = database.path
        } else {
            if fundAccess != nil || holdings != nil {
                throw UsageError("--fund-access and --holdings need fund events: --funds FILE, or events saved in \(database.path) with `sentio fund FILE --save --db \(database.path)`")
            }
            return (nil, false)
        }
        if let fundAccess {
            let access = try FundPortal.readAccess(text: try readTextFile(fundAccess, role: "fund access"), file: fundAccess, events: events)
            for investor in access.keys.sorted() {
                guard let user = try database.user(email: investor) ?? database.user(id: investor) else {
                    throw UsageError("\(fundAccess): investor '\(investor)' has no account in \(database.path) (create it with `sentio users add` or `sentio users invite`)")
                }
                try database.grant(userID: user.id, funds: access[investor]!.sorted())
            }
        }
        var crypto = CryptoHoldingsResponse(holdings: [], totalValue: 0)
        if let holdings {
            // Valued once, at the latest as-of date of the funds (the date the dashboard's figures are as of).
            guard let valuationDate = try FundReport(events: events, metadata: metadata, asOf: nil).asOf else {
                throw UsageError("no as-of date to value the holdings at: \(source) has no events")
            }
            crypto = try CryptoInputs.holdings(path: holdings, prices: prices, valuationDate: valuationDate) { _ in
                throw UsageError("--holdings needs --prices PATHS")
            }
        }
        return (FundPortal(events: events, metadata: metadata, crypto: crypto), funds == nil)
    }
}

/// The server task's error, handed to the blocked main thread.
final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: Error?
    func set(_ e: Error) { lock.lock(); error = e; lock.unlock() }
    func get() -> Error? { lock.lock(); defer { lock.unlock() }; return error }
}

/// `sentio serve`'s options of the investing app: the Apple identity tokens' key set and audience, the WebSocket's
/// limits and timings, the synthetic quote spread, and the FX rates of a replay. The paper brokerage's costs and
/// fill timing are the strategy options' (`--commission`, `--fee`, `--slippage-bps`, `--fill`), as in
/// `backtest --strategy dca --currency GBP`.
struct InvestingOptions: ParsableArguments {
    @Option(name: .customLong("apple-jwks"), help: ArgumentHelp("JSON Web Key Set of the Sign in with Apple keys (RS256): turns the investing app on.", valueName: "FILE"))
    var appleJWKS: String?

    @Option(name: .customLong("apple-audience"), help: ArgumentHelp("The `aud` every identity token must carry (the app's bundle id).", valueName: "ID"))
    var appleAudience: String?

    @Option(name: .customLong("ws-max-connections"), help: ArgumentHelp("Investing WebSocket connections at once; one more is closed with 4005.", valueName: "N"))
    var maxConnections = 10_000

    @Option(name: .customLong("ws-heartbeat"), help: ArgumentHelp("Seconds between the investing WebSocket's heartbeats.", valueName: "SECONDS"))
    var heartbeat = 30

    @Option(name: .customLong("ws-pong-grace"), parsing: .unconditional, help: ArgumentHelp("Seconds after a heartbeat interval without a pong before the socket is closed (1008).", valueName: "SECONDS"))
    var pongGrace = 10.0

    @Option(name: .customLong("quote-spread-bps"), parsing: .unconditional, help: ArgumentHelp("Synthetic half-spread of quote_updated in basis points: bid = price × (1 − bps/10⁴), ask = price × (1 + bps/10⁴).", valueName: "BPS"))
    var quoteSpread = 5.0

    @Option(name: .customLong("fx"), help: ArgumentHelp("GBPUSD rates for the paper brokerage (as `backtest --fx`); GBPUSD bars of the feed override them day by day.", valueName: "FILE"))
    var fx: String?

    func validate() throws {
        if (appleJWKS == nil) != (appleAudience == nil) { throw ValidationError("--apple-jwks and --apple-audience go together") }
        guard maxConnections >= 1 else { throw ValidationError("--ws-max-connections must be ≥ 1, got \(maxConnections)") }
        guard heartbeat >= 1 else { throw ValidationError("--ws-heartbeat must be ≥ 1 second, got \(heartbeat)") }
        guard pongGrace >= 0, pongGrace.isFinite else { throw ValidationError("--ws-pong-grace must be ≥ 0, got \(pongGrace)") }
        guard quoteSpread >= 0, quoteSpread < 10_000 else { throw ValidationError("--quote-spread-bps must be in [0, 10000), got \(quoteSpread)") }
        if fx != nil && appleJWKS == nil { throw ValidationError("--fx needs the investing app (--apple-jwks FILE --apple-audience ID)") }
    }

    /// The investing service: the paper brokerage in `database` with the request's costs and fill timing, and the
    /// key set's verifier; `nil` when the app is off.
    func service(database: SentioDatabase, request: BacktestRequest) throws -> InvestingService? {
        guard let appleJWKS, let appleAudience else { return nil }
        let configuration = PaperBrokerage.Configuration(
            costs: TradingCosts(commissionRate: request.commissionRate, feePerOrder: request.feePerOrder, slippageBasisPoints: request.slippageBasisPoints),
            fill: request.fill, rates: try fx.map { try BacktestCommand.exchangeRates(file: $0) })
        let brokerage = try PaperBrokerage(database: database, configuration: configuration)
        let jwks = try readTextFile(appleJWKS, role: "JWKS")
        // The key collection is an actor: build it on a task and wait (the server has not started yet).
        let made = LockedVerifier(), done = DispatchSemaphore(value: 0)
        Task {
            do { made.set(.success(try await AppleIdentityVerifier(jwks: jwks, audience: appleAudience))) } catch { made.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        let verifier: AppleIdentityVerifier
        switch made.get() {
        case .success(let v): verifier = v
        case .failure(let e): throw UsageError("--apple-jwks \(appleJWKS): \(e)")
        case nil: throw UsageError("--apple-jwks \(appleJWKS): not read")
        }
        var options = InvestingService.Options()
        options.maxConnections = maxConnections
        options.heartbeatSeconds = heartbeat
        options.pongGraceSeconds = pongGrace
        options.quoteSpreadBasisPoints = quoteSpread
        return InvestingService(brokerage: brokerage, verifier: verifier, options: options)
    }
}

/// The verifier built on a task, handed to the blocked main thread.
final class LockedVerifier: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<AppleIdentityVerifier, any Error>?
    func set(_ r: Result<AppleIdentityVerifier, any Error>) { lock.lock(); result = r; lock.unlock() }
    func get() -> Result<AppleIdentityVerifier, any Error>? { lock.lock(); defer { lock.unlock() }; return result }
}
