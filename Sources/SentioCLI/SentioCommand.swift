import ArgumentParser
import Foundation
import Sentio

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sentio`: the command-line front end of the engine.
///
/// Exit codes: 0 success, 2 bad input or usage (the message names file, line and field), 1 internal error.
@main
struct SentioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentio",
        abstract: "Quant, fund and savings analytics: indicators, signals, backtests, XIRR, PME and allowance ledgers.",
        discussion: """
            Exit codes: 0 success; 2 bad input or usage; 1 internal error.
            Run `sentio help SUBCOMMAND` for the options of each command.
            """,
        version: "0.1.0",
        subcommands: [
            BacktestCommand.self,
            SweepCommand.self,
            SignalsCommand.self,
            EvaluateCommand.self,
            IndicatorsCommand.self,
            GenerateCommand.self,
            XirrCommand.self,
            FundCommand.self,
            AllowanceCommand.self,
            ImportCommand.self,
            RunsCommand.self,
            BenchCommand.self,
            LiveCommand.self,
            ServeCommand.self,
            UsersCommand.self,
        ],
        defaultSubcommand: BacktestCommand.self
    )

    static func main() {
        do {
            // Numeric options parse `.unconditional`ly: `--rsi-period -5` reaches the option, whose own check says what
            // is wrong with it ("--rsi-period must be at least 1, got -5").
            var command = try parseAsRoot(Array(CommandLine.arguments.dropFirst()))
            try command.run()
            // What `print` left in the C library's buffer: an output that cannot be written is an error.
            try StandardOutput.flushPrinted()
        } catch {
            exit(withSentioError: error)
        }
    }

    /// Prints `error` and exits with Sentio's exit code convention.
    static func exit(withSentioError error: Error) -> Never {
        if let userError = error as? UserInputError {
            printError("error: \(userError.description)")
            Glibc.exit(2)
        }
        if let exitCode = error as? ExitCode {
            Glibc.exit(exitCode.rawValue)
        }
        let code = exitCode(for: error)
        if code == .success {
            // --help, --version: let ArgumentParser print them.
            Self.exit(withError: error)
        }
        if code == .validationFailure {
            printError(fullMessage(for: error))
            Glibc.exit(2)
        }
        printError("internal error: \(fullMessage(for: error))")
        Glibc.exit(1)
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    var stream = StandardError()
    print(message, to: &stream)
}


/// An invalid combination of options or arguments found after parsing; exit code 2.
struct UsageError: UserInputError {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
