import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import SentioAPI
import SentioContractDecoders
import SentioCore
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// An access token minted by jwt-kit (an implementation independent of the server's), with every claim chosen.
func mintedAccessToken(
    sub: String, role: String = "USER", iat: Date = Date(), nbf: Date = Date(), exp: Date = Date().addingTimeInterval(3600),
    ver: Int = 0, secret: String = ServerHarness.jwtSecret
) async throws -> String {
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var role: String
        var iat: IssuedAtClaim
        var nbf: NotBeforeClaim
        var exp: ExpirationClaim
        var ver: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
    let keys = JWTKeyCollection()
    await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    return try await keys.sign(Claims(
        sub: SubjectClaim(value: sub), role: role, iat: IssuedAtClaim(value: iat), nbf: NotBeforeClaim(value: nbf),
        exp: ExpirationClaim(value: exp), ver: ver))
}

/// The claims of a server-issued token, read back by jwt-kit with the server's secret (the signature verified).
struct IssuedClaims: JWTPayload {
    var sub: SubjectClaim
    var role: String
    var iat: IssuedAtClaim
    var nbf: NotBeforeClaim
    var exp: ExpirationClaim
    var ver: Int
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

let nvp = ContractID.make("fund", "NVP-III"), aeg = ContractID.make("fund", "AEG-VII")

@Suite("LP portal: accounts, the app's flow, the auth matrix, rate limits", .serialized)
struct PortalTests {
    @Test("invite → validate → register → login → dashboard → fund → documents → profile → reset → login with the new password; the old token refused")
    func fullFlow() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        try h.addAccount("admin@example.com", role: .admin)
        let admin = try await h.login("admin@example.com")

        // Invite (ADMIN, through the API).
        let invited = try await h.request("/api/admin/invitations", method: .POST, headers: bearer(admin),
                                          body: #"{"email":"LP@Example.com","role":"USER","funds":["NVP-III"]}"#)
        #expect(invited.status == 201, "\(invited.body)")
        let invitation = try jsonObject(invited.body)
        let token = try #require(invitation["token"] as? String)
        #expect(token.count == 43)  // 256 bits, base64url
        #expect(invitation["link"] as? String == "onelpm://register?token=\(token)")
        #expect(invitation["email"] as? String == "lp@example.com")
        let expiresText = try #require(invitation["expiresAt"] as? String)
        let expires = try #require(Strict.parseTimestamp(expiresText))
        #expect(expires.timeIntervalSince1970 == h.clock.withLockedValue { $0 }.timeIntervalSince1970.rounded(.down) + 7 * 86_400)
        // Only the hash is stored.
        let stored = try #require(try h.database.openInvitation(tokenHash: SecretToken.hash(token), now: Int64(Date().timeIntervalSince1970)))
        #expect(stored.tokenHash != token && stored.funds == ["NVP-III"])

        // Validate.
        let valid = try Spec.decode(SpecInvitationValidation.self, try await h.request("/api/invitations/validate?token=\(token)").body)
        #expect(valid.valid && valid.email == "lp@example.com")
        let bogus = try await h.request("/api/invitations/validate?token=\(SecretToken.generate())")
        #expect(try jsonObject(bogus.body).keys.sorted() == ["valid"] && bogus.body.contains("false"))

        // Register: wrong email, weak passwords, then right.
        func register(_ email: String, _ password: String, token: String = token) async throws -> ServerHarness.Reply {
            try await h.request("/api/register", method: .POST, body: """
                {"token":"\(token)","email":"\(email)","password":"\(password)","firstName":"Lena","lastName":"Partner"}
                """)
        }
        let wrongEmail = try await register("other@example.com", "a long enough password")
        #expect(wrongEmail.status == 400 && wrongEmail.body.contains("not the invitation's"))
        let short = try await register("lp@example.com", "123456789")
        #expect(short.status == 400 && short.body.contains("at least 10 characters"))
        let itself = try await register("lp@example.com", "LP@example.com")
        #expect(itself.status == 400 && itself.body.contains("must not be the email"))
        let registered = try await register("lp@example.com", "first password 1")
        #expect(registered.status == 200, "\(registered.body)")
        let reg = try Spec.decode(SpecRegisterResponse.self, registered.body)
        #expect(reg.message == "Registration successful" && reg.user.email == "lp@example.com" && reg.user.name == "Lena Partner")
        // Single use.
        #expect(try await register("lp@example.com", "first password 1").status == 400)
        #expect(try Spec.decode(SpecInvitationValidation.self, try await h.request("/api/invitations/validate?token=\(token)").body).valid == false)

        // Login: wrong password and unknown email give the same answer.
        let wrong = try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"lp@example.com","password":"nope nope nope"}"#)
        let unknown = try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"who@example.com","password":"nope nope nope"}"#)
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.body == unknown.body)
        #expect(try Spec.decode(SpecErrorResponse.self, wrong.body).error == "Invalid credentials")
        let loginReply = try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"Lp@example.com","password":"first password 1"}"#)
        let login = try Spec.decode(SpecLoginResponse.self, loginReply.body)
        #expect(login.user.id == reg.user.id && login.user.role == .USER && login.user.name == "Lena Partner")
        // The token, read by jwt-kit: HS256 with the server's secret, sub = id, exp 30 days after iat, nbf = iat.
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: ServerHarness.jwtSecret), digestAlgorithm: .sha256)
        let claims = try await keys.verify(login.token, as: IssuedClaims.self)
        #expect(claims.sub.value == reg.user.id && claims.role == "USER")
        #expect(claims.exp.value.timeIntervalSince(claims.iat.value) == 30 * 86_400 && claims.nbf.value == claims.iat.value)
        let oldToken = login.token

        // Dashboard, funds, fund, documents: the granted fund only.
        let dashboard = try Spec.decode(SpecDashboard.self, try await h.request("/api/dashboard", headers: bearer(oldToken)).body)
        #expect(dashboard.funds.map(\.id) == [nvp])
        #expect(dashboard.portfolioSummary.totalCommitment == dashboard.funds[0].commitment)
        let funds = try Spec.decode(SpecFundsResponse.self, try await h.request("/api/funds", headers: bearer(oldToken)).body)
        #expect(funds.funds.map(\.id) == [nvp])
        let fund = try Spec.decode(SpecFundResponse.self, try await h.request("/api/funds/\(nvp)", headers: bearer(oldToken)).body)
        let documents = try Spec.decode(SpecDocumentsResponse.self, try await h.request("/api/funds/\(nvp)/documents", headers: bearer(oldToken)).body)
        let fundDocuments = try #require(fund.fund.documents)
        #expect(!documents.documents.isEmpty && documents.documents.map(\.id) == fundDocuments.map(\.id))
        // Also by the events file's id, and strictly (every field present).
        _ = try Strict.decode(StrictFundDetail.self, try jsonText(try jsonObject(try await h.request("/api/funds/NVP-III", headers: bearer(oldToken)).body)["fund"]))
        _ = try Spec.decode(SpecCryptoResponse.self, try await h.request("/api/crypto", headers: bearer(oldToken)).body)

        // Profile.
        let profile = try Spec.decode(SpecProfileResponse.self, try await h.request("/api/user/profile", headers: bearer(oldToken)).body)
        #expect(profile.user.id == reg.user.id && profile.user.email == "lp@example.com" && profile.user.firstName == "Lena")
        #expect(profile.user.lastName == "Partner" && profile.user.name == "Lena Partner" && profile.user.role == .USER)
        #expect(profile.user.createdAt.timeIntervalSince1970 == h.clock.withLockedValue { $0 }.timeIntervalSince1970.rounded(.down))

        // Reset: the same answer for a known and an unknown email; one mail, for the known one.
        for email in ["lp@example.com", "nobody@example.com"] {
            let r = try await h.request("/api/auth/request-password-reset", method: .POST, body: #"{"email":"\#(email)"}"#)
            #expect(r.status == 200)
            #expect(try Spec.decode(SpecMessageResponse.self, r.body).message == "Password reset email sent")
        }
        let mails = try FileManager.default.contentsOfDirectory(atPath: h.mailDirectory.path)
        #expect(mails.count == 1 && mails[0].hasSuffix(".eml"))
        let mail = try String(contentsOf: h.mailDirectory.appendingPathComponent(mails[0]), encoding: .utf8)
        let (headers, body) = try parseRFC5322(mail)
        #expect(headers["To"] == "<lp@example.com>" && headers["Subject"] != nil && headers["Message-ID"] != nil)
        #expect(headers["Date"].flatMap(rfc5322Date) != nil)
        let linkLine = try #require(body.split(separator: "\r\n").first { $0.contains("/reset-password?token=") })
        #expect(linkLine.hasPrefix(h.base + "/reset-password?token="))
        let resetToken = String(linkLine.split(separator: "=").last!)
        // The page of the link.
        let page = try await h.request("/reset-password?token=\(resetToken)")
        #expect(page.status == 200 && page.headers["Content-Type"].first?.hasPrefix("text/html") == true)
        #expect(page.body.contains("/api/auth/reset-password") && page.body.contains("type=\"password\""))
        // Weak, then right, then used.
        let weak = try await h.request("/api/auth/reset-password", method: .POST, body: #"{"token":"\#(resetToken)","password":"short"}"#)
        #expect(weak.status == 400)
        let done = try await h.request("/api/auth/reset-password", method: .POST, body: #"{"token":"\#(resetToken)","password":"second password 2"}"#)
        #expect(done.status == 200, "\(done.body)")
        #expect(try await h.request("/api/auth/reset-password", method: .POST, body: #"{"token":"\#(resetToken)","password":"third password 3"}"#).status == 400)

        // The old token is refused; the old password too; the new one works.
        #expect(try await h.request("/api/dashboard", headers: bearer(oldToken)).status == 401)
        #expect(try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"lp@example.com","password":"first password 1"}"#).status == 401)
        let newToken = try await h.login("lp@example.com", password: "second password 2")
        #expect(try await h.request("/api/dashboard", headers: bearer(newToken)).status == 200)
    }

    @Test("auth matrix: no token, garbage, expired, nbf in the future, wrong key, alg none, removed user → 401; another investor's fund 404; roles")
    func authMatrix() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        let alice = try h.addAccount("alice@example.com", funds: ["NVP-III"])
        try h.addAccount("bob@example.com", funds: ["AEG-VII"])
        try h.addAccount("root@example.com", role: .admin)
        let carol = try h.addAccount("carol@example.com", funds: ["NVP-III"])
        let now = h.clock.withLockedValue { $0 }  // the server's (injected) clock
        // A jwt-kit token with every claim right is accepted: each bad one below differs from it in one thing.
        let control = try await mintedAccessToken(sub: alice.id, iat: now, nbf: now, exp: now.addingTimeInterval(3600))
        let expired = try await mintedAccessToken(sub: alice.id, iat: now.addingTimeInterval(-7200), nbf: now.addingTimeInterval(-7200), exp: now.addingTimeInterval(-60))
        let notYet = try await mintedAccessToken(sub: alice.id, iat: now, nbf: now.addingTimeInterval(3600), exp: now.addingTimeInterval(7200))
        let wrongKey = try await mintedAccessToken(sub: alice.id, iat: now, nbf: now, exp: now.addingTimeInterval(3600), secret: "another-secret-entirely-but-32-bytes-long")
        let oldVersion = try await mintedAccessToken(sub: alice.id, iat: now, nbf: now, exp: now.addingTimeInterval(3600), ver: 1)
        let unknownUser = try await mintedAccessToken(sub: "no-such-account", role: "ADMIN", iat: now, nbf: now, exp: now.addingTimeInterval(3600))
        let payload = #"{"sub":"\#(alice.id)","role":"ADMIN","iat":\#(Int(now.timeIntervalSince1970)),"nbf":\#(Int(now.timeIntervalSince1970)),"exp":\#(Int(now.timeIntervalSince1970) + 3600),"ver":0}"#
        let none = unsignedJWT(payload: payload)
        let carolToken = try await h.login("carol@example.com")
        #expect(try await h.request("/api/dashboard", headers: bearer(carolToken)).status == 200)
        try h.database.removeUser(id: carol.id)

        let paths = ["/api/dashboard", "/api/funds", "/api/funds/\(nvp)", "/api/funds/\(nvp)/documents", "/api/crypto", "/api/user/profile"]
        for path in paths {
            #expect(try await h.request(path, headers: bearer(control)).status == 200, "\(path) with a valid jwt-kit token")
            let missing = try await h.request(path)
            #expect(missing.status == 401 && missing.headers["WWW-Authenticate"].first == "Bearer", "\(path) without token")
            for (name, token) in [("garbage", "garbage"), ("expired", expired), ("nbf in the future", notYet), ("wrong key", wrongKey),
                                  ("alg none", none), ("removed user", carolToken), ("older token version", oldVersion),
                                  ("unknown account", unknownUser)] {
                #expect(try await h.request(path, headers: bearer(token)).status == 401, "\(path): \(name)")
            }
        }
        // Another investor's fund is exactly like a missing one.
        let a = bearer(control)
        let other = try await h.request("/api/funds/\(aeg)", headers: a)
        let missing = try await h.request("/api/funds/\(ContractID.make("fund", "NO-SUCH"))", headers: a)
        #expect(other.status == 404 && missing.status == 404)
        #expect(try await h.request("/api/funds/\(aeg)/documents", headers: a).status == 404)
        #expect(try await h.request("/api/funds/AEG-VII", headers: a).status == 404)
        // ADMIN sees every fund; a USER may not invite or upload.
        let root = try await h.login("root@example.com")
        let all = try Spec.decode(SpecFundsResponse.self, try await h.request("/api/funds", headers: bearer(root)).body)
        #expect(all.funds.count == (try ServerHarness.samplePortal()).events.fundIDs.count)
        #expect(try await h.request("/api/funds/\(aeg)", headers: bearer(root)).status == 200)
        #expect(try await h.request("/api/admin/invitations", method: .POST, headers: a, body: #"{"email":"x@example.com","role":"USER"}"#).status == 403)
        #expect(try await h.request("/api/admin/funds/NVP-III/events", method: .POST, headers: a, body: "fund_id,date,type,amount\n").status == 403)
        // A token expires 30 days after it is issued (the clock moved, not waited for).
        let issued = try await h.login("alice@example.com")
        h.advance(30 * 86_400 - 5)
        #expect(try await h.request("/api/dashboard", headers: bearer(issued)).status == 200)
        h.advance(10)
        #expect(try await h.request("/api/dashboard", headers: bearer(issued)).status == 401)
    }

    @Test("an investor with no accessible fund: a 200 dashboard with empty lists that the spec's model decodes (portfolioTvpi 0.0, portfolioTvpiDefined false)")
    func emptyDashboard() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        try h.addAccount("dave@example.com")
        let t = try await h.login("dave@example.com")
        let reply = try await h.request("/api/dashboard", headers: bearer(t))
        #expect(reply.status == 200, "\(reply.body)")
        // The app's own model: `portfolioTvpi: Double`, not optional.
        let dashboard = try Spec.decode(SpecDashboard.self, reply.body)
        #expect(dashboard.funds.isEmpty && dashboard.cryptoHoldings.isEmpty)
        #expect(dashboard.portfolioSummary.totalCommitment == 0 && dashboard.portfolioSummary.totalNav == 0)
        #expect(dashboard.portfolioSummary.activeCapitalCalls == 0)
        #expect(dashboard.portfolioSummary.portfolioTvpi == 0)
        let strict = try Strict.decode(StrictDashboard.self, reply.body)
        #expect(strict.portfolioSummary.portfolioTvpi == 0 && !strict.portfolioSummary.portfolioTvpiDefined)
        let summary = try #require(try jsonObject(reply.body)["portfolioSummary"] as? [String: Any])
        #expect(!(summary["portfolioTvpi"] is NSNull) && summary["portfolioTvpi"] != nil)
        #expect(try Spec.decode(SpecFundsResponse.self, try await h.request("/api/funds", headers: bearer(t)).body).funds.isEmpty)
    }

    @Test("an investor with funds: the true portfolio TVPI (paid-in-weighted fund TVPIs of its funds) and portfolioTvpiDefined true")
    func fundedDashboardTvpi() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        try h.addAccount("fay@example.com", funds: ["NVP-III", "AEG-VII"])
        let t = try await h.login("fay@example.com")
        let reply = try await h.request("/api/dashboard", headers: bearer(t))
        #expect(reply.status == 200, "\(reply.body)")
        let dashboard = try Spec.decode(SpecDashboard.self, reply.body)
        let strict = try Strict.decode(StrictDashboard.self, reply.body)
        #expect(strict.portfolioSummary.portfolioTvpiDefined)
        #expect(dashboard.funds.count == 2)
        // (Σ distributions + Σ NAV) / Σ paid-in, from the funds' own figures: TVPI_i × paid-in_i summed over paid-in.
        let paidIn = dashboard.funds.map(\.paidIn).reduce(0, +)
        let expected = dashboard.funds.map { $0.tvpi * $0.paidIn }.reduce(0, +) / paidIn
        #expect(paidIn > 0)
        #expect(abs(dashboard.portfolioSummary.portfolioTvpi - expected) <= 1e-12 * expected,
                "\(dashboard.portfolioSummary.portfolioTvpi) vs \(expected)")
        #expect(dashboard.portfolioSummary.portfolioTvpi == strict.portfolioSummary.portfolioTvpi)
    }

    @Test("rate limits over HTTP: 5 failed logins → 429 with Retry-After, even with the right password; free again after 15 minutes of the clock; reset requests too")
    func rateLimitsOverHTTP() async throws {
        let h = try await ServerHarness()
        defer { Task { try? await h.stop() } }
        try h.addAccount("erin@example.com")
        func attempt(_ password: String) async throws -> ServerHarness.Reply {
            try await h.request("/api/auth/callback/credentials", method: .POST, body: #"{"email":"erin@example.com","password":"\#(password)"}"#)
        }
        for _ in 0..<5 { #expect(try await attempt("wrong password!").status == 401) }
        let limited = try await attempt("correct horse battery")
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"].first == "900")
        h.advance(899)
        #expect(try await attempt("correct horse battery").headers["Retry-After"].first == "1")
        h.advance(1)
        #expect(try await attempt("correct horse battery").status == 200)

        for k in 0..<5 {
            #expect(try await h.request("/api/auth/request-password-reset", method: .POST, body: #"{"email":"r\#(k)@example.com"}"#).status == 200)
        }
        let resetLimited = try await h.request("/api/auth/request-password-reset", method: .POST, body: #"{"email":"erin@example.com"}"#)
        #expect(resetLimited.status == 429 && resetLimited.headers["Retry-After"].first != nil)
    }

    @Test("rate limits per account across IPs and per IP across accounts (the service, clock injected)")
    func rateLimitsPerAccountAndIP() throws {
        let directory = try temporaryDirectory("sentio-accounts")
        let database = try SentioDatabase(path: directory.appendingPathComponent("s.sqlite").path)
        let clock = ManualClock()
        let service = AccountService(database: database, secret: ServerHarness.jwtSecret, hasher: ServerHarness.hasher, clock: clock.read)
        _ = try service.addUser(email: "f@example.com", role: .user, funds: [], password: "right password 1")
        // Per account: five IPs, one failure each; a sixth IP with the right password is refused.
        for k in 0..<5 {
            #expect(throws: AccountError.invalidCredentials) { try service.login(email: "f@example.com", password: "wrong password", client: "10.0.0.\(k)") }
        }
        #expect(throws: AccountError.rateLimited(retryAfter: 900)) { try service.login(email: "F@example.com", password: "right password 1", client: "10.0.0.9") }
        clock.advance(900)
        #expect(try service.login(email: "f@example.com", password: "right password 1", client: "10.0.0.9").user.email == "f@example.com")
        // Per IP: one IP, five different (unknown) accounts; then a known account from that IP is refused.
        for k in 0..<5 {
            #expect(throws: AccountError.invalidCredentials) { try service.login(email: "u\(k)@example.com", password: "whatever 123", client: "10.1.1.1") }
        }
        #expect(throws: AccountError.rateLimited(retryAfter: 900)) { try service.login(email: "f@example.com", password: "right password 1", client: "10.1.1.1") }
    }

    @Test("the failure limiter equals a naive sliding-window count on seeded random schedules")
    func limiterMatchesNaiveModel() {
        var rng = SplitMix64(seed: 0x5e_47_10)
        for _ in 0..<200 {
            let limit = Int.random(in: 1...6, using: &rng)
            let window = Double(Int.random(in: 5...60, using: &rng))
            let limiter = FailureLimiter(limit: limit, window: window, maximumKeys: 1_000)
            var failures: [String: [Double]] = [:]
            var t = 1_000_000.0
            for _ in 0..<80 {
                t += Double(Int.random(in: 0...8, using: &rng))
                let key = ["a", "b", "c"][Int.random(in: 0...2, using: &rng)]
                let now = Date(timeIntervalSince1970: t)
                // Naive: blocked while `limit` failures lie in (t - window, t]; free when the limit-th newest leaves.
                let recent = (failures[key] ?? []).filter { $0 > t - window }.sorted()
                let expected: Int? = recent.count >= limit ? max(1, Int((recent[recent.count - limit] + window - t).rounded(.up))) : nil
                #expect(limiter.retryAfter([key], now: now) == expected)
                if expected == nil, Bool.random(using: &rng) {
                    limiter.record([key], now: now)
                    failures[key, default: []].append(t)
                }
            }
        }
        // Bounded: at most maximumKeys keys are kept.
        let small = FailureLimiter(limit: 5, window: 900, maximumKeys: 10)
        for k in 0..<100 {
            small.record(["ip:\(k)"], now: Date(timeIntervalSince1970: 1_000 + Double(k)))
            #expect(small.trackedKeys <= 10)
        }
        // The newest keys are the ones kept.
        for _ in 0..<4 { small.record(["ip:99"], now: Date(timeIntervalSince1970: 1_100)) }
        #expect(small.retryAfter(["ip:99"], now: Date(timeIntervalSince1970: 1_100)) == 899)
    }

    @Test("events upload (DATA_MANAGER): a bad CSV is 400 naming the line and changes nothing; a good one replaces the fund's events in the store and every answer is recomputed")
    func eventsUpload() async throws {
        let h = try await ServerHarness(portalFromStore: true)
        defer { Task { try? await h.stop() } }
        try h.addAccount("dm@example.com", role: .dataManager)
        try h.addAccount("lp@example.com", funds: ["NVP-III"])
        let dm = try await h.login("dm@example.com"), lp = try await h.login("lp@example.com")
        let before = try await h.request("/api/funds/\(nvp)", headers: bearer(lp))
        let dashboardBefore = try await h.request("/api/dashboard", headers: bearer(lp))
        let events = try String(contentsOf: repositoryRoot.appendingPathComponent("Data/funds/events.csv"), encoding: .utf8)
        let lines = events.split(separator: "\n").map(String.init)
        let header = lines[0]
        let rows = lines.dropFirst().filter { $0.hasPrefix("NVP-III,") }
        func upload(_ body: String, token: String) async throws -> ServerHarness.Reply {
            try await h.request("/api/admin/funds/NVP-III/events", method: .POST, headers: bearer(token), body: body)
        }
        // A bad amount on line 3: 400 naming it; nothing changed.
        var bad = [header] + rows
        bad[2] = bad[2].replacingOccurrences(of: ",call,", with: ",call,12x,").replacingOccurrences(of: ",12x,686828.41", with: ",12x")
        let refused = try await upload(bad.joined(separator: "\n") + "\n", token: dm)
        #expect(refused.status == 400 && refused.body.contains("line 3"), "\(refused.body)")
        let other = try await upload(([header] + lines.dropFirst().filter { $0.hasPrefix("AEG-VII,") }).joined(separator: "\n") + "\n", token: dm)
        #expect(other.status == 400)
        #expect(try await h.request("/api/funds/\(nvp)", headers: bearer(lp)).body == before.body)
        #expect(try h.database.loadFundEvents(fundIDs: ["NVP-III"]).isEmpty)
        // A USER may not upload.
        #expect(try await upload(([header] + rows).joined(separator: "\n"), token: lp).status == 403)
        // The events without the last NAV report: the fund's NAV is the one before; the store holds the rows.
        let trimmed = [header] + rows.dropLast()
        let accepted = try await upload(trimmed.joined(separator: "\n") + "\n", token: dm)
        #expect(accepted.status == 200, "\(accepted.body)")
        #expect(try h.database.loadFundEvents(fundIDs: ["NVP-III"]).count == rows.count - 1)
        let after = try Spec.decode(SpecFundResponse.self, try await h.request("/api/funds/\(nvp)", headers: bearer(lp)).body)
        let lastNAV = try #require(rows.dropLast().last { $0.contains(",nav,") }).split(separator: ",")[3]
        #expect(after.fund.nav == Double(lastNAV)!)
        #expect(after.fund.nav != (try Spec.decode(SpecFundResponse.self, before.body)).fund.nav)
        #expect(try await h.request("/api/dashboard", headers: bearer(lp)).body != dashboardBefore.body)

        // Serving --funds FILE (not the store): uploads are refused, not kept in memory only.
        let fromFile = try await ServerHarness()
        defer { Task { try? await fromFile.stop() } }
        try fromFile.addAccount("dm@example.com", role: .dataManager)
        let token = try await fromFile.login("dm@example.com")
        #expect(try await fromFile.request("/api/admin/funds/NVP-III/events", method: .POST, headers: bearer(token), body: trimmed.joined(separator: "\n")).status == 409)
    }

    @Test("tokens: issued and verified by the one codec; jwt-kit agrees; tampered payloads and other algorithms refused")
    func tokenCodec() async throws {
        let codec = AccessTokenCodec(secret: ServerHarness.jwtSecret)
        let user = StoredUser(id: "u1", email: "u@example.com", firstName: nil, lastName: nil, role: .dataManager, passwordHash: "x", tokenVersion: 3, createdAt: 0)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = codec.issue(for: user, now: now)
        let claims = try codec.verify(token, now: now)
        #expect(claims == AccessClaims(sub: "u1", role: .dataManager, iat: 1_800_000_000, nbf: 1_800_000_000, exp: 1_800_000_000 + 30 * 86_400, ver: 3))
        #expect(throws: AccessTokenError.expired) { try codec.verify(token, now: now.addingTimeInterval(30 * 86_400)) }
        #expect(throws: AccessTokenError.notYetValid) { try codec.verify(token, now: now.addingTimeInterval(-1)) }
        // A changed payload (role raised) with the old signature.
        let parts = token.split(separator: ".").map(String.init)
        let forged = Data(#"{"exp":1802592000,"iat":1800000000,"nbf":1800000000,"role":"ADMIN","sub":"u1","ver":3}"#.utf8)
            .base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(throws: AccessTokenError.badSignature) { try codec.verify(parts[0] + "." + forged + "." + parts[2], now: now) }
        // HS512 signed with the same secret (jwt-kit): refused for its algorithm.
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: ServerHarness.jwtSecret + ServerHarness.jwtSecret), digestAlgorithm: .sha512)
        struct P: JWTPayload { var sub: SubjectClaim; func verify(using algorithm: some JWTAlgorithm) async throws {} }
        let hs512 = try await keys.sign(P(sub: SubjectClaim(value: "u1")))
        #expect(throws: AccessTokenError.unsupportedAlgorithm) { try codec.verify(hs512, now: now) }
    }
}

/// A clock a test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = Date(timeIntervalSince1970: 1_800_000_000)
    var read: @Sendable () -> Date { { [self] in lock.lock(); defer { lock.unlock() }; return now } }
    func advance(_ seconds: TimeInterval) { lock.lock(); now += seconds; lock.unlock() }
}

/// The JSON text of a value from `JSONSerialization`.
func jsonText(_ value: Any?) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: try #require(value)), as: UTF8.self)
}

/// Headers (unfolded, by name) and body of an RFC 5322 message; every line must end in CRLF.
func parseRFC5322(_ text: String) throws -> (headers: [String: String], body: String) {
    let bytes = Array(text.utf8)
    for (i, b) in bytes.enumerated() where b == 0x0A { #expect(i > 0 && bytes[i - 1] == 0x0D, "a bare LF at byte \(i)") }
    let split = try #require(text.range(of: "\r\n\r\n"))
    var headers: [String: String] = [:]
    for line in text[..<split.lowerBound].components(separatedBy: "\r\n") {
        let colon = try #require(line.firstIndex(of: ":"))
        headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (headers, String(text[split.upperBound...]))
}

/// An RFC 5322 date-time (`Fri, 27 Nov 2026 18:30:00 +0000`).
func rfc5322Date(_ text: String) -> Date? {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    return f.date(from: text)
}
