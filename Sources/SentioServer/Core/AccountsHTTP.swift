import Hummingbird
import HummingbirdAuth
import SentioStore

/// The HTTP side of accounts, one code path for every app that has accounts: the bearer token of a request as its
/// account (401 otherwise), ``AccountService`` calls off the event loop, and each account error as its HTTP answer.
struct AccountsHTTP: Sendable {
    /// `nil`: accounts are off (authenticated routes answer 401, the others 503).
    let accounts: AccountService?

    /// Runs `work` with the account service on the thread pool; an account error becomes its HTTP answer.
    func call<T: Sendable>(_ work: @escaping @Sendable (AccountService) throws -> T) async throws -> T {
        guard let accounts else {
            throw ServerError(status: .serviceUnavailable, message: "the LP portal is off: no account store is configured")
        }
        do { return try await SentioHTTPServer.offload { try work(accounts) } } catch { throw Self.serverError(error) }
    }

    /// An account error as its HTTP answer.
    static func serverError(_ error: any Error) -> any Error {
        switch error {
        case let e as AccountError:
            switch e {
            case .invalidCredentials: return ServerError(status: .unauthorized, message: "Invalid credentials")
            case .unauthorized:
                return ServerError(status: .unauthorized, message: e.description, headers: [.wwwAuthenticate: "Bearer"])
            case .rateLimited(let wait):
                return ServerError(status: .tooManyRequests, message: e.description, headers: [.retryAfter: String(wait)])
            case .invalid(let reason): return ServerError(status: .badRequest, message: reason)
            case .forbidden: return ServerError(status: .forbidden, message: e.description)
            case .unavailable(let reason): return ServerError(status: .serviceUnavailable, message: reason)
            }
        case let e as AccountStoreError:
            if case .emailTaken = e { return ServerError(status: .conflict, message: e.description) }
            return ServerError(status: .badRequest, message: e.description)
        default: return error
        }
    }
}

/// What turns a bearer token into the identity of a request: the accounts of the LP portal and the allowance app
/// (``AccountsHTTP``, their HS256 tokens) or the investing app's Apple identity tokens (`AppleIdentityVerifier`). An
/// invalid token throws the verifier's HTTP answer (401).
protocol BearerTokenVerifier<Identity>: Sendable {
    associatedtype Identity: Sendable
    func identity(ofBearer token: String) async throws -> Identity
}

/// The one authentication path of the apps with accounts (hummingbird-auth's `AuthenticatorMiddleware`): a route
/// group behind it runs only for a request whose bearer token its verifier accepts, and its handlers read the
/// identity with `context.requireIdentity()`. A missing token is 401 with `WWW-Authenticate: Bearer`; an invalid,
/// expired or revoked one is the verifier's answer (401); accounts off is 401.
struct BearerAuthenticator<Context: AuthRequestContext, Verifier: BearerTokenVerifier>: AuthenticatorMiddleware
where Verifier.Identity == Context.Identity {
    let verifier: Verifier
    /// Whether a request without an `Authorization` header may give the token as the `access_token` query parameter
    /// (WebSocket clients in browsers cannot set headers; SignalR clients send it so): the SignalR hub's routes only.
    var queryToken = false

    func authenticate(request: Request, context: Context) async throws -> Context.Identity? {
        let given = SentioHTTPServer.bearer(request)
            ?? (queryToken ? request.uri.queryParameters.get("access_token").flatMap { $0.isEmpty ? nil : String($0) } : nil)
        guard let token = given else {
            throw ServerError(status: .unauthorized, message: "a bearer token is required", headers: [.wwwAuthenticate: "Bearer"])
        }
        return try await verifier.identity(ofBearer: token)
    }
}

/// The authenticator of the apps with accounts (the LP portal, the allowance app): accounts by their HS256 tokens.
typealias AccountAuthenticator = BearerAuthenticator<ServerContext, AccountsHTTP>

extension BearerAuthenticator where Verifier == AccountsHTTP {
    init(accounts: AccountsHTTP, queryToken: Bool = false) { self.init(verifier: accounts, queryToken: queryToken) }
}

extension AccountsHTTP: BearerTokenVerifier {
    func identity(ofBearer token: String) async throws -> StoredUser {
        guard let accounts else {
            throw ServerError(status: .unauthorized, message: "a bearer token is required", headers: [.wwwAuthenticate: "Bearer"])
        }
        do { return try await SentioHTTPServer.offload { try accounts.authenticate(token: token) } } catch { throw Self.serverError(error) }
    }
}

extension StoredUser {
    /// Passes when the account has one of `roles`; 403 otherwise.
    func require(_ roles: AccountRole...) throws {
        guard roles.contains(role) else { throw AccountsHTTP.serverError(AccountError.forbidden) }
    }
}
