import Foundation
import Sentio
import SentioStore
import SentioTestSupport
import Testing

// `sentio users` end to end through the built executable: the same account rules as the server.

@Suite("sentio users: add, invite, list, grant, revoke, remove")
struct UsersCLITests {
    @Test("accounts made, listed, granted, revoked and removed; bad input exit 2 with the reason; only hashes stored")
    func lifecycle() async throws {
        let directory = try temporaryDirectory("sentio-users")
        let db = directory.appendingPathComponent("store.sqlite").path
        func stdin(_ text: String) throws -> URL {
            let url = directory.appendingPathComponent(UUID().uuidString)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        let weak = try await runSentio(["users", "add", "a@example.com", "--role", "USER", "--password-stdin", "--db", db], stdin: try stdin("short\n"))
        #expect(weak.status == 2 && weak.stderr.contains("at least 10 characters"))
        let noStdin = try await runSentio(["users", "add", "a@example.com", "--role", "USER", "--db", db])
        #expect(noStdin.status == 2 && noStdin.stderr.contains("--password-stdin"))
        let badRole = try await runSentio(["users", "add", "a@example.com", "--role", "OWNER", "--password-stdin", "--db", db], stdin: try stdin("long enough password\n"))
        #expect(badRole.status == 2 && badRole.stderr.contains("USER, ADMIN or DATA_MANAGER"))
        let added = try await runSentio(["users", "add", "A@Example.com", "--role", "user", "--funds", "NVP-III,AEG-VII", "--first-name", "Ann",
                                         "--password-stdin", "--db", db], stdin: try stdin("long enough password\n"))
        #expect(added.status == 0, "\(added.stderr)")
        let again = try await runSentio(["users", "add", "a@EXAMPLE.com", "--role", "ADMIN", "--password-stdin", "--db", db], stdin: try stdin("another password 1\n"))
        #expect(again.status == 2 && again.stderr.contains("already exists"))

        let invite = try await runSentio(["users", "invite", "b@example.com", "--role", "DATA_MANAGER", "--db", db])
        #expect(invite.status == 0)
        let lines = invite.stdout.split(separator: "\n")
        let token = try #require(lines.first { $0.hasPrefix("token: ") }).dropFirst(7)
        #expect(lines.contains { $0 == "link: onelpm://register?token=\(token)" })
        #expect(token.count == 43)
        #expect(try await runSentio(["users", "invite", "a@example.com", "--role", "USER", "--db", db]).status == 2)

        // The store holds the bcrypt hash (not the password) and the token's SHA-256 (not the token).
        let store = try SentioDatabase(path: db)
        let user = try #require(try store.user(email: "a@example.com"))
        #expect(user.passwordHash.hasPrefix("$2b$12$") && !user.passwordHash.contains("long enough"))
        #expect(try store.openInvitation(tokenHash: String(token), now: Int64(Date().timeIntervalSince1970)) == nil)
        #expect(try store.openInvitation(tokenHash: SentioServerTokenHash.sha256Hex(String(token)), now: Int64(Date().timeIntervalSince1970))?.role == .dataManager)

        let list = try await runSentio(["users", "list", "--db", db])
        #expect(list.status == 0 && list.stdout.contains("a@example.com") && list.stdout.contains("AEG-VII,NVP-III") && list.stdout.contains("Ann"))
        #expect(try await runSentio(["users", "revoke", "a@example.com", "--funds", "AEG-VII", "--db", db]).status == 0)
        #expect(try store.funds(ofUser: user.id) == ["NVP-III"])
        #expect(try await runSentio(["users", "grant", user.id, "--funds", "KST-II", "--db", db]).status == 0)
        #expect(try store.funds(ofUser: user.id) == ["KST-II", "NVP-III"])
        let remove = try await runSentio(["users", "remove", "a@example.com", "--db", db])
        #expect(remove.status == 0)
        #expect(try store.user(email: "a@example.com") == nil && (try store.funds(ofUser: user.id)).isEmpty)
        let missing = try await runSentio(["users", "remove", "a@example.com", "--db", db])
        #expect(missing.status == 2 && missing.stderr.contains("no account"))
    }
}

/// SHA-256 hex written independently of the server (CryptoKit is not here; `sha256sum` is): the stored form of a token.
enum SentioServerTokenHash {
    static func sha256Hex(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
