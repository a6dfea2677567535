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
            var command = try parseAllowingNegativeValues(Array(CommandLine.arguments.dropFirst()))
            try command.run()
            // What `print` left in the C library's buffer: an output that cannot be written is an error.
            try StandardOutput.flushPrinted()
        } catch {
            exit(withSentioError: error)
        }
    }

    /// Parses `arguments`; when that fails, parses them again with every `--option -NUMBER` written as
    /// `--option=-NUMBER`.
    ///
    /// ArgumentParser reads a token starting with `-` as an option name, so `--rsi-period -5` failed with
    /// "Missing value for '--rsi-period'". Joined, the value reaches the option and its own check says what is wrong
    /// with it ("--rsi-period must be at least 1, got -5"); options that accept negative values (`xirr --guess`,
    /// `--sell-score-threshold`) then work with the spaced form too. The first parse is tried unchanged so that a
    /// negative number meant as a positional argument after a flag is never glued to the flag.
    static func parseAllowingNegativeValues(_ arguments: [String]) throws -> ParsableCommand {
        do {
            return try parseAsRoot(arguments)
        } catch {
            var failure = error
            let joined = joiningNegativeValues(arguments)
            if joined != arguments {
                do { return try parseAsRoot(joined) } catch { failure = error }
            }
            throw explainingNegativeUnsigned(failure, arguments: joined)
        }
    }

    /// ArgumentParser's "The value '-5' is invalid for '--seed'" for an unsigned option (one that parses the same
    /// value without its sign) as "--seed must not be negative (it is an unsigned integer), got -5"; any other
    /// error unchanged (a Bool or enum option keeps its own message).
    static func explainingNegativeUnsigned(_ error: any Error, arguments: [String]) -> any Error {
        let text = message(for: error)
        guard let match = text.firstMatch(of: /The value '(-[^']*)' is invalid for '(--[A-Za-z0-9-]+)/) else { return error }
        let option = String(match.2), value = String(match.1)
        let unsigned = arguments.map { $0 == "\(option)=\(value)" ? "\(option)=\(value.dropFirst())" : $0 }
        guard unsigned != arguments, (try? parseAsRoot(unsigned)) != nil else { return error }
        return ValidationError("\(option) must not be negative (it is an unsigned integer), got \(value)")
    }

    /// `arguments` with each `--name` followed by a negative number (`-5`, `-0.25`, `-1e3`, `-.5`, `-inf`, `-nan`)
    /// joined into `--name=VALUE`; nothing after a `--` terminator changes.
    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        func isNegativeNumber(_ text: String) -> Bool {
            guard text.count > 1, text.hasPrefix("-") else { return false }
            let body = text.dropFirst()
            if ["inf", "infinity", "nan"].contains(body.lowercased()) { return true }
            return Double(String(body)) != nil && (body.first?.isNumber == true || body.first == ".")
        }
        var result: [String] = []
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" {
                result += arguments[i...]
                break
            }
            if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="), i + 1 < arguments.count,
                isNegativeNumber(arguments[i + 1])
            {
                result.append(argument + "=" + arguments[i + 1])
                i += 2
                continue
            }
            result.append(argument)
            i += 1
        }
        return result
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
