import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Sentio
import SentioAPI
import SentioApplication
import SentioCore
import SentioFunds
import SentioStore

// The LP portal's routes: thin (parse, call AccountService or FundPortal off the event loop, encode).

extension SentioHTTPServer {
    /// Adds the LP portal's routes: accounts (`/api/auth/…`, `/api/invitations/validate`, `/api/register`,
    /// `/api/user/profile`, `/api/admin/invitations`), fund data (`/api/dashboard`, `/api/funds`, `/api/funds/{id}`,
    /// `/api/funds/{id}/documents`, `/api/crypto`), event uploads (`/api/admin/funds/{id}/events`) and the
    /// password-reset page (`/reset-password`).
    func addPortalRoutes(to routes: RouteTable) {
        let portalState = self.portalState, portalCache = self.portalCache
        let maxBody = options.maxBody, uploadLock = self.uploadLock, portalFromStore = self.portalFromStore
        let accounts = AccountsHTTP(accounts: self.accounts)
        @Sendable func call<T: Sendable>(_ work: @escaping @Sendable (AccountService) throws -> T) async throws -> T {
            try await accounts.call(work)
        }
        @Sendable func client(_ context: ServerContext) -> String { context.remoteAddress?.ipAddress ?? "unknown" }

        let resetPage = CachedBody(WebAssets.resetPage, contentType: "text/html; charset=utf-8")
        routes.get("/reset-password") { request, _ in Self.conditional(request, resetPage) }
        let lp = routes.group("api")
        // The routes of signed-in accounts: behind the one authenticator, each reads `context.requireIdentity()`.
        let member = lp.group().add(middleware: AccountAuthenticator(accounts: accounts))

        // Accounts.
        lp.post("auth/callback/credentials") { request, context in
            let body = try await Self.jsonBody(request, as: LoginRequest.self, maxBody: maxBody)
            let ip = client(context)
            let (user, token) = try await call { try $0.login(email: body.email, password: body.password, client: ip) }
            return try Self.encoded(LoginResponse(
                user: LoginUser(id: user.id, email: user.email, name: user.name, role: user.role), token: token))
        }
        lp.get("invitations/validate") { request, _ in
            guard let token = request.uri.queryParameters.get("token"), !token.isEmpty else {
                return try Self.encoded(InvitationValidation(valid: false, email: nil))
            }
            let email = try await call { try $0.validateInvitation(token: token) }
            return try Self.encoded(InvitationValidation(valid: email != nil, email: email))
        }
        lp.post("register") { request, _ in
            let body = try await Self.jsonBody(request, as: RegisterRequest.self, maxBody: maxBody)
            let user = try await call {
                try $0.register(token: body.token, email: body.email, password: body.password, firstName: body.firstName, lastName: body.lastName)
            }
            return try Self.encoded(RegisterResponse(
                message: "Registration successful", user: RegisteredUser(id: user.id, email: user.email, name: user.name)))
        }
        member.get("user/profile") { _, context in
            let user = try context.requireIdentity()
            return try Self.encoded(ProfileResponse(user: ProfileUser(user)))
        }
        lp.post("auth/request-password-reset") { request, context in
            let body = try await Self.jsonBody(request, as: PasswordResetRequest.self, maxBody: maxBody)
            let ip = client(context)
            try await call { try $0.requestPasswordReset(email: body.email, client: ip) }
            return try Self.encoded(MessageResponse(message: "Password reset email sent"))
        }
        lp.post("auth/reset-password") { request, context in
            let body = try await Self.jsonBody(request, as: PasswordResetCompletion.self, maxBody: maxBody)
            let ip = client(context)
            try await call { try $0.resetPassword(token: body.token, password: body.password, client: ip) }
            return try Self.encoded(MessageResponse(message: "Password reset successful"))
        }
        member.post("admin/invitations") { request, context in
            try context.requireIdentity().require(.admin)
            let body = try await Self.jsonBody(request, as: InvitationRequest.self, maxBody: maxBody)
            let made = try await call { try $0.invite(email: body.email, role: body.role, funds: body.funds ?? []) }
            return try Self.encoded(InvitationResponse(
                email: made.invitation.email, role: made.invitation.role, funds: made.invitation.funds, token: made.token,
                link: made.link, expiresAt: APITimestamp(epochSeconds: made.invitation.expiresAt)), status: .created)
        }

        // Fund data.
        @Sendable func portalBody(_ user: StoredUser, _ key: String, _ make: @escaping @Sendable (FundPortal, [String]) throws -> String) async throws -> CachedBody {
            guard let portal = portalState.withLockedValue({ $0 }) else {
                throw ServerError(status: .notFound, message: "no fund data is loaded (--funds, or fund events saved in --db)")
            }
            var granted: Set<String> = []
            if user.role == .user { granted = Set(try await call { try $0.database.funds(ofUser: user.id) }) }
            let visible = portal.visibleFunds(role: user.role, granted: granted)
            let cacheKey = "\(visible.joined(separator: ",")):\(key)"
            if let hit = portalCache.withLockedValue({ $0[cacheKey] }) { return hit }
            let body: CachedBody = try await Self.offload {
                do { return CachedBody(try make(portal, visible)) }
                catch let e as APIContractError { throw ServerError(status: .notFound, message: e.description) }
            }
            portalCache.withLockedValue { $0[cacheKey] = body }
            return body
        }
        member.get("dashboard") { request, context in
            let user = try context.requireIdentity()
            return Self.conditional(request, try await portalBody(user, "dashboard") { portal, funds in
                try APIJSON.encode(try FundContracts.dashboard(try portal.report(for: funds), crypto: portal.crypto))
            })
        }
        member.get("funds") { request, context in
            let user = try context.requireIdentity()
            return Self.conditional(request, try await portalBody(user, "funds") { portal, funds in
                try APIJSON.encode(FundsResponse(funds: try FundContracts.funds(try portal.report(for: funds))))
            })
        }
        for documentsOnly in [false, true] {
            member.get(documentsOnly ? "funds/{id}/documents" : "funds/{id}") { request, context in
                let user = try context.requireIdentity()
                let id = try context.parameters.require("id")
                return Self.conditional(request, try await portalBody(user, "fund:\(id):\(documentsOnly)") { portal, funds in
                    guard let fundID = portal.fundID(matching: id, among: funds),
                          let entry = try portal.report(for: [fundID]).funds.first
                    else { throw ServerError(status: .notFound, message: "no such fund: \(id)") }
                    if documentsOnly { return try APIJSON.encode(DocumentsResponse(documents: FundContracts.documents(entry.metrics))) }
                    return try APIJSON.encode(FundDetailResponse(fund: try FundContracts.fundDetail(entry.metrics, metadata: entry.metadata)))
                })
            }
        }
        member.get("crypto") { request, context in
            let user = try context.requireIdentity()
            return Self.conditional(request, try await portalBody(user, "crypto") { portal, _ in try APIJSON.encode(portal.crypto) })
        }

        // Uploads: a fund's events CSV replaces its stored events (all or nothing), then everything is recomputed.
        member.post("admin/funds/{id}/events") { request, context in
            try context.requireIdentity().require(.admin, .dataManager)
            let id = try context.parameters.require("id")
            let bytes = try await Self.rawBody(request, maxBody: maxBody)
            let text = String(decoding: bytes.readableBytesView, as: UTF8.self)
            guard portalFromStore, let accounts = accounts.accounts else {
                throw ServerError(status: .conflict, message: "the portal serves fund events from --funds FILE: uploads are saved only when the portal reads its events from the store (--db, without --funds)")
            }
            let count: Int = try await Self.offload {
                try uploadLock.withLock {
                    try Self.replaceFundEvents(id: id, csv: text, portalState: portalState, database: accounts.database)
                }
            }
            portalCache.withLockedValue { $0.removeAll() }
            return try Self.encoded(MessageResponse(message: "saved \(count) event(s) of fund \(id); metrics and documents recomputed"))
        }
    }

    /// Reads `csv` with the one fund events reader (line-numbered errors), checks every row is fund `id` (an
    /// existing fund by its id or contract id, or a new fund id), checks the whole portal still reports, saves the
    /// fund's events in one transaction (replacing its stored ones) and swaps the portal's data.
    static func replaceFundEvents(id: String, csv: String, portalState: NIOLockedValueBox<FundPortal?>, database: SentioDatabase) throws -> Int {
        let upload: FundEventFile
        do { upload = try FundEventFile(text: csv, file: "body") } catch {
            throw ServerError(status: .badRequest, message: error.description)
        }
        var portal = portalState.withLockedValue { $0 } ?? FundPortal(events: upload, metadata: nil)
        let fundID = portal.fundID(matching: id, among: portal.events.fundIDs) ?? id
        guard upload.fundIDs == [fundID] else {
            throw ServerError(status: .badRequest, message: "body: every row must be of fund \(fundID); found \(upload.fundIDs.joined(separator: ", "))")
        }
        let events = upload.eventsByFund[fundID] ?? []
        if portalState.withLockedValue({ $0 }) != nil {
            portal.events.eventsByFund[fundID] = events
            if !portal.events.fundIDs.contains(fundID) { portal.events.fundIDs.append(fundID) }
        }
        do { _ = try portal.report(for: portal.events.fundIDs) } catch {
            throw ServerError(status: .badRequest, message: "body: the fund's events do not report: \(error)")
        }
        try database.saveFundEvents(events.map(StoredFundEvent.init))
        portalState.withLockedValue { $0 = portal }
        return events.count
    }
}
