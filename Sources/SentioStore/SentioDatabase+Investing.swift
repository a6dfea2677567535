import Foundation
import GRDB
import SentioCore

// The investing app's paper brokerage (SentioLive's `PaperBrokerage`): investors (Apple sign-in users), their
// deposits, DCA schedules and orders, and the feed's marks (each symbol's last bar) and daily GBPUSD rates.
//
// Every change of one operation (a sign-in, a deposit, a schedule, one ingestion batch) is written by
// ``SentioDatabase/saveInvesting(_:)`` in one transaction: a process killed mid-way (SIGKILL) leaves the store
// before or after the whole batch, and a restart replays the bars after each symbol's mark.

/// An investor as stored: the identity token's `sub`, its email and the name given at the first sign-in.
public struct StoredInvestor: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_users"
    public var id: String
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    /// The paper account's status (`ACTIVE`).
    public var status: String
    /// UTC epoch seconds.
    public var createdAt: Int64

    public init(id: String, email: String?, firstName: String?, lastName: String?, status: String, createdAt: Int64) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.status = status
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, firstName = "first_name", lastName = "last_name", status, createdAt = "created_at"
    }
}

/// A transfer into (or out of) a paper account, in its currency.
public struct StoredPaperTransfer: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_transfers"
    public var id: String
    public var userID: String
    /// `INCOMING` or `OUTGOING`.
    public var direction: String
    public var amount: Double
    public var currency: String
    /// `COMPLETE`, `PENDING` (a withdrawal waiting for the next bar) or `FAILED`.
    public var status: String
    public var createdAt: Int64
    /// Order of creation (the cash history's order).
    public var sequence: Int64
    /// Why a withdrawal failed (migration `v9-investing-transfers`).
    public var reason: String?
    /// The time of the bar a withdrawal was settled (completed or failed) at.
    public var resolvedAt: Int64?

    public init(id: String, userID: String, direction: String, amount: Double, currency: String, status: String, createdAt: Int64, sequence: Int64,
                reason: String? = nil, resolvedAt: Int64? = nil) {
        self.id = id
        self.userID = userID
        self.direction = direction
        self.amount = amount
        self.currency = currency
        self.status = status
        self.createdAt = createdAt
        self.sequence = sequence
        self.reason = reason
        self.resolvedAt = resolvedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", direction, amount, currency, status, createdAt = "created_at", sequence, reason
        case resolvedAt = "resolved_at"
    }
}

/// A DCA schedule: buy `amountGBP` of `symbol` every week or month from `start`.
public struct StoredDCASchedule: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_schedules"
    public var id: String
    public var userID: String
    public var symbol: String
    public var amountGBP: Double
    /// `week` or `month` (SentioBacktest's `ContributionPeriod`).
    public var every: String
    /// UTC epoch seconds: the first bar at or after it is the first execution's.
    public var start: Int64
    /// The period key of the last execution (`ContributionPeriod.periodKey`); `nil` before the first.
    public var lastPeriod: Int?
    public var active: Bool
    public var createdAt: Int64

    public init(id: String, userID: String, symbol: String, amountGBP: Double, every: String, start: Int64, lastPeriod: Int?, active: Bool, createdAt: Int64) {
        self.id = id
        self.userID = userID
        self.symbol = symbol
        self.amountGBP = amountGBP
        self.every = every
        self.start = start
        self.lastPeriod = lastPeriod
        self.active = active
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", symbol, amountGBP = "amount_gbp", every, start, lastPeriod = "last_period", active
        case createdAt = "created_at"
    }
}

/// A paper order — a DCA purchase, or a market sale closing (part of) a position — placed at one bar (a sale:
/// between bars) and filled or rejected at a later one (a purchase at the close timing: the same).
public struct StoredPaperOrder: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_orders"
    public var id: String
    public var userID: String
    public var scheduleID: String?
    public var symbol: String
    /// `buy` or `sell`.
    public var side: String
    /// The investor-currency budget of a purchase; 0 for a sale.
    public var amountGBP: Double
    /// `new`, `filled` or `rejected`.
    public var status: String
    /// Why it was rejected.
    public var reason: String?
    /// The time of the bar it was placed at.
    public var placedAt: Int64
    /// The time of the bar it was filled or rejected at.
    public var resolvedAt: Int64?
    public var quantity: Double
    /// Fill price after slippage, in GBP and in USD (`GBP × rate`).
    public var fillPriceGBP: Double
    public var fillPriceUSD: Double
    /// The reference price (open or close) in USD.
    public var priceUSD: Double
    public var fxRate: Double
    public var commissionGBP: Double
    public var sequence: Int64
    /// The shares a sale asked for; `nil`: the whole position at the fill (migration `v9-investing-transfers`).
    public var requestedQuantity: Double?

    public init(id: String, userID: String, scheduleID: String?, symbol: String, side: String, amountGBP: Double, status: String,
                reason: String? = nil, placedAt: Int64, resolvedAt: Int64? = nil, quantity: Double = 0, fillPriceGBP: Double = 0,
                fillPriceUSD: Double = 0, priceUSD: Double = 0, fxRate: Double = 0, commissionGBP: Double = 0, sequence: Int64,
                requestedQuantity: Double? = nil) {
        self.requestedQuantity = requestedQuantity
        self.id = id
        self.userID = userID
        self.scheduleID = scheduleID
        self.symbol = symbol
        self.side = side
        self.amountGBP = amountGBP
        self.status = status
        self.reason = reason
        self.placedAt = placedAt
        self.resolvedAt = resolvedAt
        self.quantity = quantity
        self.fillPriceGBP = fillPriceGBP
        self.fillPriceUSD = fillPriceUSD
        self.priceUSD = priceUSD
        self.fxRate = fxRate
        self.commissionGBP = commissionGBP
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", scheduleID = "schedule_id", symbol, side, amountGBP = "amount_gbp", status, reason
        case placedAt = "placed_at", resolvedAt = "resolved_at", quantity, fillPriceGBP = "fill_price_gbp"
        case fillPriceUSD = "fill_price_usd", priceUSD = "price_usd", fxRate = "fx_rate", commissionGBP = "commission_gbp"
        case sequence, requestedQuantity = "requested_qty"
    }
}

/// A symbol's last bar seen by the brokerage (bars at or before it are duplicates) and the close before it.
public struct StoredFeedMark: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_marks"
    public var symbol: String
    public var time: Int64
    public var open: Double
    public var close: Double
    public var previousClose: Double?

    public init(symbol: String, time: Int64, open: Double, close: Double, previousClose: Double?) {
        self.symbol = symbol
        self.time = time
        self.open = open
        self.close = close
        self.previousClose = previousClose
    }

    enum CodingKeys: String, CodingKey { case symbol, time, open, close, previousClose = "previous_close" }
}

/// The GBPUSD rate of one UTC day (the day's last bar close).
public struct StoredFXDay: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_fx"
    /// Days since 1970-01-01 (UTC).
    public var day: Int
    public var rate: Double

    public init(day: Int, rate: Double) {
        self.day = day
        self.rate = rate
    }
}

/// An investor's GBP cash after the latest change (migration `v9-investing-transfers`): stored with every change,
/// so a restart reads the balance the running brokerage had, to the last bit (summing the history again in another
/// order could round differently).
public struct StoredCashBalance: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "investing_balances"
    public var userID: String
    public var cashGBP: Double

    public init(userID: String, cashGBP: Double) {
        self.userID = userID
        self.cashGBP = cashGBP
    }

    enum CodingKeys: String, CodingKey { case userID = "user_id", cashGBP = "cash_gbp" }
}

/// Rows of the paper brokerage, written (upserted) together: one operation's changes, or everything stored.
public struct InvestingRows: Sendable, Equatable {
    public var investors: [StoredInvestor] = []
    public var transfers: [StoredPaperTransfer] = []
    public var schedules: [StoredDCASchedule] = []
    public var orders: [StoredPaperOrder] = []
    public var marks: [StoredFeedMark] = []
    public var fx: [StoredFXDay] = []
    public var balances: [StoredCashBalance] = []

    public init() {}

    public var isEmpty: Bool {
        investors.isEmpty && transfers.isEmpty && schedules.isEmpty && orders.isEmpty && marks.isEmpty && fx.isEmpty && balances.isEmpty
    }
}

extension SentioDatabase {
    /// Migration "v8-investing".
    static let investingSchema = """
        CREATE TABLE investing_users (
            id         TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            email      TEXT,
            first_name TEXT,
            last_name  TEXT,
            status     TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE investing_transfers (
            id         TEXT PRIMARY KEY NOT NULL,
            user_id    TEXT NOT NULL REFERENCES investing_users(id) ON DELETE CASCADE,
            direction  TEXT NOT NULL CHECK (direction IN ('INCOMING', 'OUTGOING')),
            amount     REAL NOT NULL CHECK (amount > 0),
            currency   TEXT NOT NULL,
            status     TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            sequence   INTEGER NOT NULL
        );
        CREATE TABLE investing_schedules (
            id          TEXT PRIMARY KEY NOT NULL,
            user_id     TEXT NOT NULL REFERENCES investing_users(id) ON DELETE CASCADE,
            symbol      TEXT NOT NULL,
            amount_gbp  REAL NOT NULL CHECK (amount_gbp > 0),
            every       TEXT NOT NULL CHECK (every IN ('week', 'month')),
            start       INTEGER NOT NULL,
            last_period INTEGER,
            active      INTEGER NOT NULL,
            created_at  INTEGER NOT NULL
        );
        CREATE TABLE investing_orders (
            id             TEXT PRIMARY KEY NOT NULL,
            user_id        TEXT NOT NULL REFERENCES investing_users(id) ON DELETE CASCADE,
            schedule_id    TEXT,
            symbol         TEXT NOT NULL,
            side           TEXT NOT NULL,
            amount_gbp     REAL NOT NULL,
            status         TEXT NOT NULL,
            reason         TEXT,
            placed_at      INTEGER NOT NULL,
            resolved_at    INTEGER,
            quantity       REAL NOT NULL,
            fill_price_gbp REAL NOT NULL,
            fill_price_usd REAL NOT NULL,
            price_usd      REAL NOT NULL,
            fx_rate        REAL NOT NULL,
            commission_gbp REAL NOT NULL,
            sequence       INTEGER NOT NULL
        );
        CREATE TABLE investing_marks (
            symbol         TEXT PRIMARY KEY NOT NULL,
            time           INTEGER NOT NULL,
            open           REAL NOT NULL,
            close          REAL NOT NULL,
            previous_close REAL
        );
        CREATE TABLE investing_fx (
            day  INTEGER PRIMARY KEY NOT NULL,
            rate REAL NOT NULL CHECK (rate > 0)
        );
        """

    /// Migration "v9-investing-transfers": withdrawals settled at a later bar (their failure reason and settlement
    /// time), sales of a number of shares, and each investor's stored cash balance.
    static let investingTransfersSchema = """
        ALTER TABLE investing_transfers ADD COLUMN reason TEXT;
        ALTER TABLE investing_transfers ADD COLUMN resolved_at INTEGER;
        ALTER TABLE investing_orders ADD COLUMN requested_qty REAL;
        CREATE TABLE investing_balances (
            user_id  TEXT PRIMARY KEY NOT NULL REFERENCES investing_users(id) ON DELETE CASCADE,
            cash_gbp REAL NOT NULL
        );
        """

    /// Writes `rows` (inserting or replacing each by its key) in one transaction.
    /// - Throws: `StoreError`.
    public func saveInvesting(_ rows: InvestingRows) throws {
        guard !rows.isEmpty else { return }
        try withStoreErrors {
            try pool.write { db in try Self.writeInvesting(rows, in: db) }
        }
    }

    /// Upserts `rows` in the caller's transaction (``saveInvesting(_:)``, or the live journal's commit of the same
    /// batch: `LiveJournal.commit(_:alongside:)`).
    static func writeInvesting(_ rows: InvestingRows, in db: Database) throws {
        for r in rows.investors { try r.upsert(db) }
        for r in rows.transfers { try r.upsert(db) }
        for r in rows.schedules { try r.upsert(db) }
        for r in rows.orders { try r.upsert(db) }
        for r in rows.marks { try r.upsert(db) }
        for r in rows.fx { try r.upsert(db) }
        for r in rows.balances { try r.upsert(db) }
    }

    /// Every stored row of the paper brokerage (transfers and orders in sequence order).
    /// - Throws: `StoreError`.
    public func loadInvesting() throws -> InvestingRows {
        try withStoreErrors {
            try pool.read { db in
                var rows = InvestingRows()
                rows.investors = try StoredInvestor.fetchAll(db)
                rows.transfers = try StoredPaperTransfer.order(Column("sequence")).fetchAll(db)
                rows.schedules = try StoredDCASchedule.order(Column("created_at"), Column("id")).fetchAll(db)
                rows.orders = try StoredPaperOrder.order(Column("sequence")).fetchAll(db)
                rows.marks = try StoredFeedMark.fetchAll(db)
                rows.fx = try StoredFXDay.order(Column("day")).fetchAll(db)
                rows.balances = try StoredCashBalance.order(Column("user_id")).fetchAll(db)
                return rows
            }
        }
    }
}
