import ArgumentParser
import Foundation
import Sentio
import SentioApplication

// `sentio fund` and the store: `FILE --save [--db DB]` saves the events, `--db DB` without FILE reads them back.

extension FundCommand {
    /// FILE or `--db` gives the events; FILE with `--db` only makes sense with `--save`.
    func validateDataSource() throws {
        if file == nil {
            if store.database == nil {
                throw ValidationError("give a fund events FILE, or --db DB to report on the fund events stored there")
            }
            if save { throw ValidationError("--save needs a fund events FILE to save") }
            if meta != nil { throw ValidationError("--meta applies to FILE input; with --db the stored metadata is used") }
        } else if store.database != nil && !save {
            throw ValidationError(
                "give either FILE or --db DB as the source of fund events, not both; with --save, FILE is saved into --db")
        }
    }

    /// The events and metadata from FILE and --meta, or from the store.
    func loadEventsAndMetadata() throws -> (FundEventFile, FundMetadataFile?) {
        guard let file else { return try loadStored() }
        let events = try FundEventFile(text: try readTextFile(file, role: "fund events"), file: file)
        let metadata = try meta.map { try FundMetadataFile(text: try readTextFile($0, role: "metadata"), file: $0) }
        return (events, metadata)
    }

    /// Every stored fund (see `SentioDatabase.storedFunds()` for the order and the metadata rule).
    func loadStored() throws -> (FundEventFile, FundMetadataFile?) {
        let database = try store.open(mode: .readOnly)
        guard let stored = try database.storedFunds() else {
            throw UsageError("the store \(database.path) holds no fund events (save some with `sentio fund FILE --save --db \(database.path)`)")
        }
        return (stored.events, stored.metadata)
    }

    /// Saves the events (each fund's stored events are replaced) and metadata in one transaction.
    func saveToStore(_ events: FundEventFile, metadata: FundMetadataFile?) throws {
        let database = try store.open(mode: .createIfMissing)
        let records = events.fundIDs.flatMap { events.eventsByFund[$0]!.map(StoredFundEvent.init) }
        let described = (metadata?.funds.values.sorted { $0.id < $1.id } ?? []).map(StoredFundMetadata.init)
        try database.saveFundEvents(records, metadata: described)
        printError("saved \(records.count) event(s) of \(events.fundIDs.count) fund(s) to \(database.path)")
    }
}

extension FundCommand {
    /// The stored bars of the holdings' symbols (matched without regard to case; a symbol the store lacks is
    /// left out, and the valuation names it). The store is `--db`.
    func loadStoredPrices(symbols: [String]) throws -> [OHLCVSeries] {
        let database = try store.open(mode: .readOnly)
        let stored = try database.instruments().filter { $0.barCount > 0 }.map(\.symbol)
        let wanted = symbols.compactMap { symbol in stored.first { $0.uppercased() == symbol.uppercased() } }
        guard !wanted.isEmpty else {
            throw UsageError("the store \(database.path) holds no bars of \(symbols.joined(separator: ", ")) "
                + "(import them with `sentio import PATH --db \(database.path)`, or give --prices)")
        }
        return try database.loadSeries(symbols: wanted, from: nil, to: nil)
    }
}
