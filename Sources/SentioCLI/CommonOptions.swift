import ArgumentParser
import Foundation
import Sentio
import SentioApplication

// Options every command spells the same way: one `--symbols` (always a comma-separated list of symbols) and one
// output-format enum. A command accepts the formats it can write and says which in its help line.

/// `--symbols LIST`: a comma-separated list of symbols, matched without regard to case, in the order given.
///
/// The one selection rule for CSV input (symbols come from file names) and stored bars: an empty list, a repeated
/// symbol or an unknown symbol is a usage error (exit 2) that names what the data has.
struct SymbolSelectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Comma-separated symbols to use, in this order (default: every symbol of the data).", valueName: "LIST"))
    var symbols: String?

    func validate() throws {
        // ArgumentParser maps only ValidationError thrown from validate() to a usage error (exit 2).
        do { _ = try list() } catch { throw ValidationError("\(error)") }
    }

    /// The parsed list, or `nil` when `--symbols` was not given.
    func list() throws -> [String]? { try symbols.map(parseSymbolList) }

    /// The elements of `available` named by `--symbols`, in its order (all of them when it was not given).
    ///
    /// - Parameters:
    ///   - symbol: the symbol of an element.
    ///   - source: what holds the data, for the error message ("the data", "the store s.sqlite").
    func select<Element>(_ available: [Element], symbol: (Element) -> String, source: String = "the data") throws -> [Element] {
        try SymbolSelection.select(try list(), from: available, symbol: symbol, source: source)
    }
}

/// The one output-format enum (`--format`). Each command lists the formats it accepts in its help line and
/// rejects the others with `require(_:option:)`. Deliberately not `CaseIterable`, so that help does not list
/// formats a command cannot write.
enum OutputFormat: String, ExpressibleByArgument, Sendable {
    /// Aligned columns for a terminal.
    case table
    /// Plain text lines.
    case text
    /// One JSON document, encoded through the contract layer.
    case json
    /// RFC 4180 CSV with a header row.
    case csv
    /// One JSON object per line.
    case ndjson

    /// Throws a validation error unless the format is one of `allowed`.
    func require(_ allowed: [OutputFormat], option: String = "--format") throws {
        guard allowed.contains(self) else {
            throw ValidationError("\(option) \(rawValue) is not available here; use one of \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
    }
}
