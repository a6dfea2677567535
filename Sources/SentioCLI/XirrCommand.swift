import ArgumentParser
import Foundation
import Sentio

/// Day-count names accepted on the command line.
enum DayCountOption: String, ExpressibleByArgument, CaseIterable {
    case act365f, act360, actact
    case thirty360 = "30-360"
    case thirty360Bond = "30-360-bond"

    var dayCount: DayCount {
        switch self {
        case .act365f: return .actual365Fixed
        case .act360: return .actual360
        case .actact: return .actualActualISDA
        case .thirty360: return .thirty360US
        case .thirty360Bond: return .thirty360BondBasis
        }
    }
}

/// Reads a whole UTF-8 text file (`TextFile.read`): a missing, unreadable, directory or non-UTF-8 file is a user
/// error (exit 2) naming the file and the problem in words (`role` names the file's purpose in the message).
func readTextFile(_ path: String, role: String) throws -> String {
    do {
        return try TextFile.read(path)
    } catch {
        throw UsageError("cannot read \(role) file \(error.description)")
    }
}

struct XirrCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xirr",
        abstract: "XIRR (or XNPV) of dated cash flows.",
        discussion: """
            FILE is a CSV with a header `date,amount`: ISO dates (YYYY-MM-DD) and signed decimal amounts \
            (negative = paid out). Order does not matter; the earliest date of a non-zero amount is t0, and \
            zero amounts are ignored wherever dated. Every rate printed leaves |XNPV| <= 1e-9 of the sum of \
            |amounts| (checked before printing); when no rate can be certified the error says why.
            Text output is the annual rate as a decimal fraction at full precision (0.15 = 15%); with \
            --npv-at, the XNPV at that rate instead. When the flows have several IRRs the one nearest the \
            guess is printed and the others are listed on standard error.
            """)

    @Argument(help: "CSV file with columns date,amount.")
    var file: String

    @Option(name: .customLong("day-count"),
        help: "Day count: act365f (Actual/365 Fixed, Excel's), act360, actact (Actual/Actual ISDA), 30-360 (30/360 US), 30-360-bond (30/360 Bond Basis).")
    var dayCount: DayCountOption = .act365f

    // `.unconditional`: a negative guess such as `--guess -0.5` is a value, not an option.
    @Option(parsing: .unconditional, help: "Starting guess for Newton and reference for choosing among several roots, as a decimal fraction (> -1).")
    var guess: Double = 0.1

    @Option(name: .customLong("npv-at"), parsing: .unconditional, help: "Print the XNPV at this annual rate (decimal fraction, > -1) instead of the XIRR. Default: none.")
    var npvAt: Double?

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    enum TextOrJSON: String, ExpressibleByArgument, CaseIterable { case text, json }

    func validate() throws {
        guard guess > -1, guess.isFinite else { throw ValidationError("--guess must be a finite rate greater than -1, got \(guess)") }
        if let npvAt, !(npvAt > -1 && npvAt.isFinite) {
            throw ValidationError("--npv-at must be a finite rate greater than -1, got \(npvAt)")
        }
    }

    func run() throws {
        let flows = try readCashFlows(text: try readTextFile(file, role: "cash-flow"), file: file)
        let convention = dayCount.dayCount
        do throws(XIRRError) {
            if let npvAt {
                let value = try xnpv(rate: npvAt, flows: flows, dayCount: convention)
                switch format {
                case .text: print(value)
                case .json:
                    print(jsonObject([
                        ("dayCount", quoted(convention.rawValue)), ("flows", String(flows.count)),
                        ("rate", "\(npvAt)"), ("xnpv", value.isFinite ? "\(value)" : "null"),
                    ]))
                }
                return
            }
            let result = try xirr(flows: flows, dayCount: convention, guess: guess)
            switch format {
            case .text:
                print(result.rate)
                if !result.otherRoots.isEmpty {
                    printError("note: the flows have other IRRs: \(result.otherRoots.map { "\($0)" }.joined(separator: ", ")); printed the one nearest the guess \(guess)")
                }
            case .json:
                // The flows the rate is of: zero-amount rows are dropped before solving (they are no terms of
                // the XNPV), so they count neither as flows nor for the first and last dates.
                let used = flows.filter { $0.amount != 0 }
                let dates = used.map(\.date)
                print(jsonObject([
                    ("xirr", "\(result.rate)"),
                    ("otherRoots", "[" + result.otherRoots.map { "\($0)" }.joined(separator: ", ") + "]"),
                    ("method", quoted(result.method.rawValue)),
                    ("iterations", String(result.iterations)),
                    ("dayCount", quoted(convention.rawValue)),
                    ("guess", "\(guess)"),
                    ("flows", String(used.count)),
                    ("firstDate", quoted(dates.min()!.description)),
                    ("lastDate", quoted(dates.max()!.description)),
                ]))
            }
        } catch {
            throw UsageError("\(file): \(error.description)")
        }
    }

    private func quoted(_ s: String) -> String { "\"\(s)\"" }

    private func jsonObject(_ fields: [(String, String)]) -> String {
        "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}"
    }
}
