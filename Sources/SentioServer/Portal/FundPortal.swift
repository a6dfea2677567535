import Foundation
import SentioAPI
import SentioCore
import SentioCSV
import SentioFunds
import SentioStore

/// The LP portal's data: fund events (and metadata) and the crypto holdings.
///
/// Who sees which fund is in the store (`user_funds`, see ``AccountService``): a `USER` sees exactly the funds
/// granted to their account, and their dashboard and summary are computed over those funds only; `ADMIN` and
/// `DATA_MANAGER` see every fund. A fund the caller may not see answers 404, exactly like a fund that does not
/// exist. The access file of earlier versions (`--fund-access FILE`, CSV `investor,fund`) is now an import into
/// that table (``readAccess(text:file:events:)``).
public struct FundPortal: Sendable {
    public var events: FundEventFile
    public var metadata: FundMetadataFile?
    public var crypto: CryptoHoldingsResponse
    public var asOf: CivilDate?

    public init(
        events: FundEventFile, metadata: FundMetadataFile?,
        crypto: CryptoHoldingsResponse = CryptoHoldingsResponse(holdings: [], totalValue: 0), asOf: CivilDate? = nil
    ) {
        self.events = events
        self.metadata = metadata
        self.crypto = crypto
        self.asOf = asOf
    }

    /// Reads `investor,fund` rows (RFC 4180 through the one CSV tokenizer; a header naming the two columns, any
    /// case and order; blank lines skipped; cells trimmed of spaces and tabs).
    /// - Throws: `FundInputError` naming the file, line and field for a quoting error, a missing or unknown
    ///   column, a row with another cell count than the header, an empty cell or a fund not in `events`.
    public static func readAccess(text: String, file: String, events: FundEventFile) throws -> [String: Set<String>] {
        let records: [CSVRecords.Record]
        do throws(CSVRecords.Failure) {
            records = try CSVRecords(text: text).records
        } catch {
            throw FundInputError(file: file, line: error.line, field: error.field, message: error.error.message)
        }
        guard let header = records.first else {
            throw FundInputError(file: file, line: nil, field: nil, message: "empty file: expected a header investor,fund")
        }
        let columns: [String: Int]
        do throws(CSVRecords.ColumnError) {
            columns = try CSVRecords.columns(of: header, required: ["investor", "fund"], optional: [])
        } catch {
            throw FundInputError(file: file, line: header.line, field: error.field, message: error.message)
        }
        let investorColumn = columns["investor"]!, fundColumn = columns["fund"]!
        let known = Set(events.fundIDs)
        var out: [String: Set<String>] = [:]
        for record in records.dropFirst() {
            guard record.cells.count == header.cells.count else {
                throw FundInputError(file: file, line: record.line, field: nil,
                    message: "expected \(header.cells.count) cells like the header, found \(record.cells.count)")
            }
            let investor = record.cells[investorColumn].trimmingCharacters(in: .whitespaces)
            let fund = record.cells[fundColumn].trimmingCharacters(in: .whitespaces)
            guard !investor.isEmpty else { throw FundInputError(file: file, line: record.line, field: "investor", message: "is empty") }
            guard known.contains(fund) else {
                throw FundInputError(file: file, line: record.line, field: "fund", message: "'\(fund)' is not a fund of \(events.file)")
            }
            out[investor, default: []].insert(fund)
        }
        return out
    }

    /// The fund ids `role` with the `granted` funds may see, in the events file's order.
    func visibleFunds(role: AccountRole, granted: Set<String>) -> [String] {
        if role != .user { return events.fundIDs }
        return events.fundIDs.filter { granted.contains($0) }
    }

    func report(for funds: [String]) throws -> FundReport {
        var file = events
        file.fundIDs = funds
        file.eventsByFund = events.eventsByFund.filter { funds.contains($0.key) }
        var meta = metadata
        if var m = meta {
            m.funds = m.funds.filter { funds.contains($0.key) }
            meta = m
        }
        return try FundReport(events: file, metadata: meta, asOf: asOf)
    }

    /// The events file's fund id whose contract id (`ContractID.make("fund", id)`) or own id is `id`.
    func fundID(matching id: String, among funds: [String]) -> String? {
        funds.first { $0 == id || ContractID.make("fund", $0) == id }
    }
}

