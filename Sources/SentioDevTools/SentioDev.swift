import ArgumentParser
import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio-dev`: benchmark and test machinery that is not part of the user's `sentio` (allocation counting
/// through glibc's malloc hooks, synthetic store writers for crash tests, the live engine's and the server's
/// load measurements; the clock and percentile are SentioBench's).
///
/// Exit codes as `sentio`: 0 success, 2 bad input or usage, 1 internal error.
@main
struct SentioDevCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentio-dev",
        abstract: "Sentio's benchmark and test helpers (not for everyday use; see `sentio` for the engine).",
        discussion: "Exit codes: 0 success; 2 bad input or usage; 1 internal error.",
        subcommands: [
            AllocationsCommand.self, WriteSyntheticCommand.self, CeilingCommand.self, WSLoadCommand.self, LiveBenchCommand.self,
            LoginTimingCommand.self, SignalRLoadCommand.self, TABenchCommand.self,
        ]
    )

    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as UserInputError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            Glibc.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success { Self.exit(withError: error) }
            let prefix = code == .validationFailure ? "" : "internal error: "
            FileHandle.standardError.write(Data((prefix + fullMessage(for: error) + "\n").utf8))
            Glibc.exit(code == .validationFailure ? 2 : 1)
        }
    }
}

/// A usage problem found after parsing (exit code 2).
struct DevUsageError: UserInputError {
    var description: String
    init(_ description: String) { self.description = description }
}
