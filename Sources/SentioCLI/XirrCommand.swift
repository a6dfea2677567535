import ArgumentParser
import Foundation
import Sentio
import SentioAPI

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
            zero amounts are ignored wherever dated. Every rate printed is certified before printing: |XNPV| plus \
            its evaluation error bound is <= 1e-9 of the sum of |amounts|, or (where the discounted flows are too \
            large for that) the XNPV has proven opposite signs at two rates within 1e-12 of it (json: \
            "certificate"); when no rate can be certified the error says why.
            Text output is the annual rate as a decimal fraction at full precision (0.15 = 15%); with \
            --npv-at, the XNPV at that rate instead. When the flows have several IRRs the one nearest the \
            guess is printed and the others are listed on standard error.
            """)

    @Argument(help: "CSV file with columns date,amount.")
    var file: String

    @Option(name: .customLong("day-count"),
        help: "Day count: act365f (Actual/365 Fixed, Excel's), act360, actact (Actual/Actual ISDA), 30-360 (30/360 US), 30-360-bond (30/360 Bond Basis).")
    var dayCount: DayCount = .actual365Fixed

    // `.unconditional`: a negative guess such as `--guess -0.5` is a value, not an option.
    @Option(parsing: .unconditional, help: "Starting guess for Newton and reference for choosing among several roots (fraction, 0.1 = 10%; > -1).")
    var guess: Double = 0.1

    @Option(name: .customLong("npv-at"), parsing: .unconditional, help: "Print the XNPV at this annual rate (fraction, 0.05 = 5%; > -1) instead of the XIRR (default: none).")
    var npvAt: Double?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        try format.require([.text, .json])
        guard guess > -1, guess.isFinite else { throw ValidationError("--guess must be a finite rate greater than -1, got \(guess)") }
        if let npvAt, !(npvAt > -1 && npvAt.isFinite) {
            throw ValidationError("--npv-at must be a finite rate greater than -1, got \(npvAt)")
        }
    }

    func run() throws {
        let flows = try readCashFlows(text: try readTextFile(file, role: "cash-flow"), file: file)
        if let npvAt {
            let value = try solved { () throws(XIRRError) in try xnpv(rate: npvAt, flows: flows, dayCount: dayCount) }
            guard value.isFinite else {
                throw UsageError("\(file): the XNPV at \(npvAt) is not a finite number (\(value)): the discount factors overflow")
            }
            switch format {
            case .json:
                print(try APIJSON.encode(XNPVResponse(dayCount: dayCount, flows: flows.count, rate: npvAt, xnpv: value)), terminator: "")
            default: print(value)
            }
            return
        }
        let result = try solved { () throws(XIRRError) in try xirr(flows: flows, dayCount: dayCount, guess: guess) }
        switch format {
        case .json:
            print(try APIJSON.encode(XIRRResponse(result, flows: flows, dayCount: dayCount, guess: guess)), terminator: "")
        default:
            print(result.rate)
            if case .signChange(let lower, let upper) = result.certificate {
                printError("note: certified by a sign change: the XNPV has proven opposite signs at \(lower) and \(upper) (its size there is below the precision of the discounted flows, so |XNPV| <= 1e-9 of the flows cannot be shown)")
            }
            if !result.otherRoots.isEmpty {
                printError("note: the flows have other IRRs: \(result.otherRoots.map { "\($0)" }.joined(separator: ", ")); printed the one nearest the guess \(guess)")
            }
        }
    }

    /// `body`'s value; its error as a usage error naming the file.
    private func solved<T>(_ body: () throws(XIRRError) -> T) throws -> T {
        do throws(XIRRError) {
            return try body()
        } catch {
            throw UsageError("\(file): \(error.description)")
        }
    }
}
