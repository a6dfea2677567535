import ArgumentParser
import Foundation
import Sentio
import SentioAPI
import SentioServer
import SentioStore

/// `sentio users`: the LP portal's accounts in a store (the same rules as the server's, from SentioServer's
/// `AccountService`).
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the LP portal's accounts in a Sentio store: add, invite, list, grant, revoke, remove.",
        discussion: """
            Accounts live in the store that `sentio serve --db FILE` serves. An email is unique (compared without \
            regard to case); a password has at least 10 characters, at most 72 bytes, and is not the email; it is \
            stored as a bcrypt hash only. Roles: USER sees the funds granted to it, ADMIN and DATA_MANAGER see \
            every fund (ADMIN also invites, DATA_MANAGER and ADMIN upload fund events). Fund ids are the events \
            file's ids (e.g. NVP-III).
            An invitation is a random 256-bit token, stored as its SHA-256, valid once for 7 days: the person \
            registers with it in the app (`onelpm://register?token=…`) and chooses their own password.
            """,
        subcommands: [Add.self, Invite.self, List.self, Grant.self, Revoke.self, Remove.self],
        defaultSubcommand: List.self
    )

    static func role(_ text: String) throws -> AccountRole {
        guard let role = AccountRole(rawValue: text.uppercased()) else {
            throw ValidationError("--role must be USER, ADMIN or DATA_MANAGER, got '\(text)'")
        }
        return role
    }

    static func funds(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The account named by an email or an id.
    static func account(_ who: String, in database: SentioDatabase) throws -> StoredUser {
        if let user = try database.user(email: who) ?? database.user(id: who) { return user }
        throw AccountStoreError.noSuchUser("'\(who)' in \(database.path) (see `sentio users list --db \(database.path)`)")
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account with a password read from standard input (for ADMIN and service accounts; people are better invited).")
        @Argument(help: "The account's email.")
        var email: String
        @Option(help: ArgumentHelp("USER, ADMIN or DATA_MANAGER.", valueName: "ROLE"))
        var role: String
        @Option(help: ArgumentHelp("Fund ids the account may see, comma-separated (USER accounts).", valueName: "ID,..."))
        var funds: String?
        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (one line; required: passwords never go on the command line).")
        var passwordStdin = false
        @Option(name: .customLong("first-name"), help: "First name.")
        var firstName: String?
        @Option(name: .customLong("last-name"), help: "Last name.")
        var lastName: String?
        @OptionGroup var store: StoreOptions

        func validate() throws {
            _ = try UsersCommand.role(role)
            guard passwordStdin else { throw ValidationError("give the password on standard input with --password-stdin") }
        }

        func run() throws {
            var input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            if input.hasSuffix("\n") { input.removeLast() }
            if input.hasSuffix("\r") { input.removeLast() }
            let database = try store.open(mode: .createIfMissing)
            let service = AccountService(database: database, secret: nil)
            let user = try service.addUser(
                email: email, role: try UsersCommand.role(role), funds: UsersCommand.funds(funds), password: input,
                firstName: firstName, lastName: lastName)
            print("created \(user.role.rawValue) account \(user.email) (id \(user.id)) in \(database.path)")
        }
    }

    struct Invite: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite an email: prints the token (shown once) and the app's registration link.")
        @Argument(help: "The email the invitation is for (registration must use it).")
        var email: String
        @Option(help: ArgumentHelp("USER, ADMIN or DATA_MANAGER.", valueName: "ROLE"))
        var role: String
        @Option(help: ArgumentHelp("Fund ids the account will see, comma-separated.", valueName: "ID,..."))
        var funds: String?
        @OptionGroup var store: StoreOptions

        func validate() throws { _ = try UsersCommand.role(role) }

        func run() throws {
            let database = try store.open(mode: .createIfMissing)
            let service = AccountService(database: database, secret: nil)
            let made = try service.invite(email: email, role: try UsersCommand.role(role), funds: UsersCommand.funds(funds))
            print("token: \(made.token)")
            print("link: \(made.link)")
            printError("invitation for \(made.invitation.email) (\(made.invitation.role.rawValue)) valid until \(APITimestamp(epochSeconds: made.invitation.expiresAt).description); only its hash is stored")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts: email, role, name, funds, creation time.")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let database = try store.open(mode: .readOnly)
            let users = try database.users()
            if users.isEmpty { print("no account in \(database.path)"); return }
            var rows = [["EMAIL", "ROLE", "NAME", "FUNDS", "CREATED"]]
            for u in users {
                let funds = u.role == .user ? try database.funds(ofUser: u.id).joined(separator: ",") : "(all)"
                rows.append([u.email, u.role.rawValue, u.name ?? "-", funds.isEmpty ? "-" : funds, APITimestamp(epochSeconds: u.createdAt).description])
            }
            let widths = (0..<5).map { c in rows.map { $0[c].count }.max()! }
            for row in rows {
                print(row.enumerated().map { c, cell in c == 4 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                    .joined(separator: "  "))
            }
        }
    }

    /// What `grant` and `revoke` take: an account, the funds whose access changes, and the store.
    struct FundAccessOptions: ParsableArguments {
        @Argument(help: "The account's email or id.")
        var account: String
        @Option(help: ArgumentHelp("Fund ids, comma-separated.", valueName: "ID,..."))
        var funds: String
        @OptionGroup var store: StoreOptions

        /// Opens the store, applies `change` to the account's id and the funds, and returns the account's email and
        /// the funds it sees now.
        func apply(_ change: (SentioDatabase, String, [String]) throws -> Void) throws -> (email: String, funds: [String]) {
            let database = try store.open(mode: .existingOnly)
            let user = try UsersCommand.account(account, in: database)
            try change(database, user.id, UsersCommand.funds(funds))
            return (user.email, try database.funds(ofUser: user.id))
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let an account see more funds.")
        @OptionGroup var options: FundAccessOptions

        func run() throws {
            let (email, funds) = try options.apply { try $0.grant(userID: $1, funds: $2) }
            print("\(email) now sees: \(funds.joined(separator: ","))")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take funds away from an account.")
        @OptionGroup var options: FundAccessOptions

        func run() throws {
            let (email, left) = try options.apply { try $0.revoke(userID: $1, funds: $2) }
            print("\(email) now sees: \(left.isEmpty ? "no fund" : left.joined(separator: ","))")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an account (its tokens stop working at once).")
        @Argument(help: "The account's email or id.")
        var account: String
        @OptionGroup var store: StoreOptions

        func run() throws {
            let database = try store.open(mode: .existingOnly)
            let user = try UsersCommand.account(account, in: database)
            try database.removeUser(id: user.id)
            print("removed \(user.email)")
        }
    }
}
