import Foundation
import SentioCore

/// A ledger row accepted into a child's account, with the balance after it.
public struct LedgerPosting: Sendable, Hashable {
    public var entry: LedgerEntry
    /// The child's balance after this row (never negative).
    public var balanceAfter: Decimal
}

/// The accepted rows of a ledger, per child in time order, with running balances.
///
/// Rules:
/// - Each child's rows are applied in time order (timestamp, then file line for equal timestamps); the file
///   need not be sorted.
/// - A credit adds its amount, a debit subtracts it. A debit larger than the balance at that moment is rejected
///   ("insufficient funds"): balances never go negative.
/// - A row whose `child_id` is not in the children file, or whose `id` repeats an earlier row's, is rejected.
/// - Strict (default): the first rejected row, in time order for insufficient funds and in line order
///   otherwise, is an error naming file, line and field. Lenient: rejected rows are skipped, listed in
///   ``skipped`` (line order), and later rows see the balance without them.
public struct AllowanceLedger: Sendable {
    public var file: String
    /// Accepted rows per child id, in the order applied.
    public var postings: [String: [LedgerPosting]]
    /// Rows skipped with `lenient`, in line order (always empty otherwise).
    public var skipped: [SavingsInputError]

    /// Parses LEDGER.csv text (``LedgerEntry/entries(text:file:lenient:)``) and applies it.
    /// - Throws: ``SavingsInputError`` (see the rules above and the row rules of ``LedgerEntry``).
    public init(text: String, file: String, children: [AllowanceChild], lenient: Bool = false) throws(SavingsInputError) {
        let (entries, skipped) = try LedgerEntry.entries(text: text, file: file, lenient: lenient)
        try self.init(entries: entries, children: children, file: file, lenient: lenient)
        self.skipped = (skipped + self.skipped).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
    }

    /// Applies `entries` (in file order) to the children's accounts.
    /// - Throws: ``SavingsInputError`` (see the rules above).
    public init(entries: [LedgerEntry], children: [AllowanceChild], file: String, lenient: Bool = false) throws(SavingsInputError) {
        self.file = file
        var skipped: [SavingsInputError] = []
        func reject(_ error: SavingsInputError) throws(SavingsInputError) {
            guard lenient else { throw error }
            skipped.append(error)
        }
        func lineOf(_ e: LedgerEntry) -> Int? { e.line > 0 ? e.line : nil }
        let known = Set(children.map(\.id))
        var seen: [String: Int] = [:]
        var candidates: [(entry: LedgerEntry, order: Int)] = []
        candidates.reserveCapacity(entries.count)
        for (k, e) in entries.enumerated() {
            guard known.contains(e.childID) else {
                try reject(SavingsInputError(file: file, line: lineOf(e), field: "child_id",
                    message: "child \(EchoedText.quoted(e.childID)) is not in the children file"))
                continue
            }
            if let previous = seen[e.id] {
                try reject(SavingsInputError(file: file, line: lineOf(e), field: "id",
                    message: "transaction id \(EchoedText.quoted(e.id)) repeats line \(previous)"))
                continue
            }
            seen[e.id] = e.line
            candidates.append((e, k))
        }
        candidates.sort { ($0.entry.timestamp, $0.order) < ($1.entry.timestamp, $1.order) }
        var balances: [String: Decimal] = [:]
        var postings: [String: [LedgerPosting]] = [:]
        for (e, _) in candidates {
            let before = balances[e.childID] ?? 0
            let after = before + e.signedAmount
            if after < 0 {
                try reject(SavingsInputError(file: file, line: lineOf(e), field: "amount",
                    message: "insufficient funds: a debit of \(SavingsMoney.text(e.amount)) at \(iso8601(epochSeconds: e.timestamp)) "
                        + "would take child \(EchoedText.quoted(e.childID))'s balance from \(SavingsMoney.text(before)) to "
                        + "\(SavingsMoney.text(after)) (balances never go negative)"))
                continue
            }
            balances[e.childID] = after
            postings[e.childID, default: []].append(LedgerPosting(entry: e, balanceAfter: after))
        }
        self.postings = postings
        self.skipped = skipped.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
    }

    /// A child's accepted rows dated on or before `date` (UTC calendar date), in the order applied.
    public func postings(of childID: String, through date: CivilDate) -> ArraySlice<LedgerPosting> {
        let all = postings[childID] ?? []
        let limit = Int64(date.daysSinceEpoch + 1) * 86_400
        // Postings are in timestamp order: binary search for the first one after the day.
        var lo = 0, hi = all.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if all[mid].entry.timestamp < limit { lo = mid + 1 } else { hi = mid }
        }
        return all[..<lo]
    }

    /// A child's balance at the end of `date` (0 before its first row).
    public func balance(of childID: String, through date: CivilDate) -> Decimal {
        postings(of: childID, through: date).last?.balanceAfter ?? 0
    }

    /// The date of the latest accepted row, if any.
    public var lastDate: CivilDate? {
        postings.values.compactMap { $0.last?.entry.timestamp }.max().map { CivilDate(epochSeconds: $0) }
    }
}
