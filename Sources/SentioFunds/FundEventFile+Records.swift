import Foundation
import SentioCore

extension FundEventFile {
    /// Builds the events of several funds from records that did not come from a CSV file (for example a store),
    /// with the same checks as `init(text:file:)`: every fund has a commitment, nothing precedes it, no NAV before
    /// the first call.
    ///
    /// - Parameters:
    ///   - events: the events; a fund's events may be in any order (they are sorted by date, stably).
    ///   - fundOrder: the order of the funds in the report; `nil` keeps the order of first appearance in `events`.
    ///   - file: the name used in messages (for instance the store's path).
    /// - Throws: `FundInputError` when there is no event, or a fund breaks one of the rules above.
    public init(events: [FundEvent], fundOrder: [String]? = nil, file: String) throws(FundInputError) {
        var fundIDs: [String] = []
        var byFund: [String: [FundEvent]] = [:]
        for event in events {
            if byFund[event.fundID] == nil { fundIDs.append(event.fundID) }
            byFund[event.fundID, default: []].append(event)
        }
        guard !fundIDs.isEmpty else {
            throw FundInputError(file: file, line: nil, field: nil, message: "no fund events")
        }
        if let fundOrder {
            precondition(Set(fundOrder) == Set(fundIDs) && fundOrder.count == fundIDs.count, "fundOrder must list each fund once")
            fundIDs = fundOrder
        }
        self.file = file
        self.fundIDs = fundIDs
        self.eventsByFund = try Self.checkedAndSorted(fundIDs: fundIDs, eventsByFund: byFund, file: file)
    }
}

extension FundMetadataFile {
    /// Metadata given as values (for example from a store); a later entry with the same id replaces an earlier one.
    /// - Parameters:
    ///   - funds: the metadata entries.
    ///   - file: the name used in messages.
    public init(funds: [FundMetadata], file: String) {
        self.file = file
        var byID: [String: FundMetadata] = [:]
        for m in funds { byID[m.id] = m }
        self.funds = byID
    }
}
