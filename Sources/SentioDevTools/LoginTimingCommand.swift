import ArgumentParser
import Foundation
import Sentio
import SentioBench
import SentioServer
import SentioStore

/// `sentio-dev login-timing`: the time of a failed login for an unknown email versus a wrong password (and of a
/// successful one), through the server's one login path (`AccountService.login`) on a temporary store.
///
/// The cases are interleaved round by round (unknown, wrong, right), so that drift in the machine's load falls on
/// all of them alike; each attempt comes from its own client address and the failure limit is lifted, so no attempt
/// is cut short by a rate limit. Prints the median, the 10th and 90th percentiles and the median of the per-round
/// differences (unknown − wrong). A measurement, not a test: the tests count the bcrypt work instead
/// (`LoginWorkTests`).
struct LoginTimingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-timing",
        abstract: "Median login time: unknown email vs wrong password vs right password (bcrypt, one code path).")

    @Option(help: "bcrypt cost of the account and of the server's hasher (10...16).")
    var cost: UInt8 = 12

    @Option(help: "Rounds; each times the three cases once.")
    var rounds = 30

    func validate() throws {
        guard (10...16).contains(cost) else { throw ValidationError("--cost must be in 10...16, got \(cost)") }
        guard rounds >= 1 && rounds <= 10_000 else { throw ValidationError("--rounds must be in 1...10000, got \(rounds)") }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-login-timing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SentioDatabase(path: directory.appendingPathComponent("store.sqlite").path)
        let service = AccountService(
            database: database, secret: SecretToken.generate(), hasher: PasswordHasher(cost: cost),
            limiter: FailureLimiter(limit: Int.max))
        let email = "timing@example.com", password = "correct horse battery"
        _ = try service.addUser(email: email, role: .user, funds: [], password: password)

        func time(_ email: String, _ password: String, client: String) -> Double {
            let start = monotonicNanoseconds()
            _ = try? service.login(email: email, password: password, client: client)
            return Double(monotonicNanoseconds() &- start) / 1e9
        }
        var unknown: [Double] = [], wrong: [Double] = [], right: [Double] = []
        for k in 0..<rounds {
            unknown.append(time("nobody-\(k)@example.com", password, client: "u\(k)"))
            wrong.append(time(email, "wrong horse battery", client: "w\(k)"))
            right.append(time(email, password, client: "r\(k)"))
        }
        // SentioBench's definitions: the median, and nearest-rank percentiles (measured samples, not interpolated).
        func quantile(_ xs: [Double], _ q: Double) -> Double {
            q == 0.5 ? median(sorted: xs.sorted())! : nearestRankPercentile(xs.sorted(), q)!
        }
        func ms(_ x: Double) -> String { String(format: "%.2f ms", x * 1000) }
        print("bcrypt cost \(cost), \(rounds) rounds (interleaved), AccountService.login")
        for (name, xs) in [("unknown email", unknown), ("wrong password", wrong), ("right password", right)] {
            print("\(name): median \(ms(quantile(xs, 0.5))), p10 \(ms(quantile(xs, 0.1))), p90 \(ms(quantile(xs, 0.9)))")
        }
        let differences = zip(unknown, wrong).map { $0 - $1 }
        print("unknown − wrong, per round: median \(ms(quantile(differences, 0.5))) "
              + "(\(String(format: "%.2f", 100 * quantile(differences, 0.5) / quantile(wrong, 0.5))) % of the wrong-password median)")
    }
}
