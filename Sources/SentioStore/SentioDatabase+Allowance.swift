import Foundation
import GRDB
import SentioCore

// The family allowance app's data: families, their members (accounts of `users` with the role Parent or Child),
// children's allowance settings, the ledger, and savings goals.
//
// Money is stored as whole cents (INTEGER), exact; the rules (balances, insufficient funds, weeks) are SentioSavings'
// and the server's, the store only keeps rows and runs each change in one transaction. A ledger row is appended by
// ``SentioDatabase/appendAllowanceTransaction(childID:idempotencyKey:allowanceWeek:make:)``: the check of the balance
// and the insert are one write transaction, so concurrent debits are serialized and a process killed mid-way leaves
// the row either wholly there or not at all. `balance_after_cents >= 0` is also a table constraint.

/// A family as stored.
public struct StoredFamily: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "families"
    /// A random UUID, lowercased.
    public var id: String
    public var name: String
    /// UTC epoch seconds.
    public var createdAt: Int64

    public init(id: String, name: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey { case id, name, createdAt = "created_at" }
}

/// The role of an account in its family (the allowance app spec's `UserRole`).
public enum FamilyRole: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case parent = "Parent", child = "Child"
}

/// An account's membership of a family (an account belongs to at most one family).
public struct StoredFamilyMember: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "family_members"
    public var userID: String
    public var familyID: String
    public var role: FamilyRole

    public init(userID: String, familyID: String, role: FamilyRole) {
        self.userID = userID
        self.familyID = familyID
        self.role = role
    }

    enum CodingKeys: String, CodingKey { case userID = "user_id", familyID = "family_id", role }
    public enum Columns {
        public static let familyID = Column(CodingKeys.familyID)
        public static let role = Column(CodingKeys.role)
    }
}

/// A child's allowance account.
public struct StoredAllowanceChild: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "allowance_children"
    /// The child id (a random UUID, lowercased; not the account id).
    public var id: String
    /// The child's account (`users.id`).
    public var userID: String
    public var familyID: String
    /// The weekly allowance in cents (≥ 0).
    public var weeklyAllowanceCents: Int64
    /// `monday` … `sunday`.
    public var allowanceDay: String
    /// UTC epoch seconds.
    public var createdAt: Int64

    public init(id: String, userID: String, familyID: String, weeklyAllowanceCents: Int64, allowanceDay: String, createdAt: Int64) {
        self.id = id
        self.userID = userID
        self.familyID = familyID
        self.weeklyAllowanceCents = weeklyAllowanceCents
        self.allowanceDay = allowanceDay
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", familyID = "family_id", weeklyAllowanceCents = "weekly_allowance_cents"
        case allowanceDay = "allowance_day", createdAt = "created_at"
    }
    public enum Columns {
        public static let userID = Column(CodingKeys.userID)
        public static let familyID = Column(CodingKeys.familyID)
        public static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// One ledger row as stored.
public struct StoredAllowanceTransaction: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "allowance_transactions"
    /// The order rows were booked in (assigned by the store; `nil` before insertion).
    public var seq: Int64?
    /// A random UUID, lowercased.
    public var id: String
    public var childID: String
    /// `Credit` or `Debit`.
    public var type: String
    /// > 0, in cents.
    public var amountCents: Int64
    /// The child's balance after this row, in cents (≥ 0).
    public var balanceAfterCents: Int64
    public var description: String
    public var category: String
    /// The account that booked it (the nil UUID for the server's weekly allowance).
    public var createdBy: String
    public var createdByName: String
    /// UTC epoch seconds; never earlier than the child's previous row.
    public var createdAt: Int64
    /// For an allowance payment: the allowance day it pays (days since 1970-01-01), unique per child.
    public var allowanceWeek: Int64?
    /// The `Idempotency-Key` of the request that booked it, unique per `createdBy`.
    public var idempotencyKey: String?

    public init(
        id: String, childID: String, type: String, amountCents: Int64, balanceAfterCents: Int64, description: String,
        category: String, createdBy: String, createdByName: String, createdAt: Int64, allowanceWeek: Int64? = nil,
        idempotencyKey: String? = nil
    ) {
        self.id = id
        self.childID = childID
        self.type = type
        self.amountCents = amountCents
        self.balanceAfterCents = balanceAfterCents
        self.description = description
        self.category = category
        self.createdBy = createdBy
        self.createdByName = createdByName
        self.createdAt = createdAt
        self.allowanceWeek = allowanceWeek
        self.idempotencyKey = idempotencyKey
    }

    enum CodingKeys: String, CodingKey {
        case seq, id, childID = "child_id", type, amountCents = "amount_cents", balanceAfterCents = "balance_after_cents"
        case description, category, createdBy = "created_by", createdByName = "created_by_name", createdAt = "created_at"
        case allowanceWeek = "allowance_week", idempotencyKey = "idempotency_key"
    }
    public enum Columns {
        public static let seq = Column(CodingKeys.seq)
        public static let childID = Column(CodingKeys.childID)
        public static let category = Column(CodingKeys.category)
        public static let createdBy = Column(CodingKeys.createdBy)
        public static let allowanceWeek = Column(CodingKeys.allowanceWeek)
        public static let idempotencyKey = Column(CodingKeys.idempotencyKey)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { seq = inserted.rowID }
}

/// A savings goal as stored.
public struct StoredAllowanceGoal: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "allowance_goals"
    public var id: String
    public var childID: String
    public var name: String
    /// > 0, in cents.
    public var targetCents: Int64
    /// The amount set aside (`PUT …/progress`), in cents.
    public var currentCents: Int64
    /// UTC epoch seconds.
    public var createdAt: Int64

    public init(id: String, childID: String, name: String, targetCents: Int64, currentCents: Int64 = 0, createdAt: Int64) {
        self.id = id
        self.childID = childID
        self.name = name
        self.targetCents = targetCents
        self.currentCents = currentCents
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, childID = "child_id", name, targetCents = "target_cents", currentCents = "current_cents", createdAt = "created_at"
    }
    public enum Columns {
        public static let childID = Column(CodingKeys.childID)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let currentCents = Column(CodingKeys.currentCents)
    }
}

/// What ``SentioDatabase/appendAllowanceTransaction(childID:idempotencyKey:allowanceWeek:make:)`` did.
public enum AllowanceAppend: Sendable, Equatable {
    /// The row was inserted.
    case created(StoredAllowanceTransaction)
    /// A row with the same idempotency key (of the same account) or the same allowance week was already there:
    /// nothing was inserted; this is the earlier row.
    case existing(StoredAllowanceTransaction)

    public var row: StoredAllowanceTransaction {
        switch self { case .created(let r), .existing(let r): r }
    }
}

extension SentioDatabase {
    /// Migration "v7-allowance".
    static let allowanceSchema = """
        CREATE TABLE families (
            id         TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            name       TEXT NOT NULL CHECK (length(name) > 0),
            created_at INTEGER NOT NULL
        );
        CREATE TABLE family_members (
            user_id   TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            family_id TEXT NOT NULL REFERENCES families(id) ON DELETE CASCADE,
            role      TEXT NOT NULL CHECK (role IN ('Parent', 'Child'))
        ) WITHOUT ROWID;
        CREATE INDEX family_members_by_family ON family_members(family_id);
        CREATE TABLE allowance_children (
            id                     TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            user_id                TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
            family_id              TEXT NOT NULL REFERENCES families(id) ON DELETE CASCADE,
            weekly_allowance_cents INTEGER NOT NULL CHECK (weekly_allowance_cents >= 0),
            allowance_day          TEXT NOT NULL CHECK (allowance_day IN ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')),
            created_at             INTEGER NOT NULL
        );
        CREATE INDEX allowance_children_by_family ON allowance_children(family_id);
        CREATE TABLE allowance_transactions (
            seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
            id                  TEXT NOT NULL UNIQUE CHECK (length(id) > 0),
            child_id            TEXT NOT NULL REFERENCES allowance_children(id) ON DELETE CASCADE,
            type                TEXT NOT NULL CHECK (type IN ('Credit', 'Debit')),
            amount_cents        INTEGER NOT NULL CHECK (amount_cents > 0),
            balance_after_cents INTEGER NOT NULL CHECK (balance_after_cents >= 0),
            description         TEXT NOT NULL,
            category            TEXT NOT NULL,
            created_by          TEXT NOT NULL,
            created_by_name     TEXT NOT NULL,
            created_at          INTEGER NOT NULL,
            allowance_week      INTEGER,
            idempotency_key     TEXT
        );
        CREATE INDEX allowance_transactions_by_child ON allowance_transactions(child_id, seq);
        CREATE UNIQUE INDEX allowance_transactions_week ON allowance_transactions(child_id, allowance_week)
            WHERE allowance_week IS NOT NULL;
        CREATE UNIQUE INDEX allowance_transactions_idempotency ON allowance_transactions(created_by, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        CREATE TABLE allowance_goals (
            id            TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            child_id      TEXT NOT NULL REFERENCES allowance_children(id) ON DELETE CASCADE,
            name          TEXT NOT NULL CHECK (length(name) > 0),
            target_cents  INTEGER NOT NULL CHECK (target_cents > 0),
            current_cents INTEGER NOT NULL CHECK (current_cents >= 0),
            created_at    INTEGER NOT NULL
        );
        CREATE INDEX allowance_goals_by_child ON allowance_goals(child_id);
        """

    /// Creates a family with its first parent's account, in one transaction.
    /// - Throws: ``AccountStoreError/emailTaken(_:)`` when another account has the email.
    public func createFamily(_ family: StoredFamily, parent: StoredUser) throws {
        try withStoreErrors {
            try pool.write { db in
                try Self.insert(parent, funds: [], db)
                try family.insert(db)
                try StoredFamilyMember(userID: parent.id, familyID: family.id, role: .parent).insert(db)
            }
        }
    }

    /// Creates a child's account and allowance account in its family, in one transaction.
    /// - Throws: ``AccountStoreError/emailTaken(_:)`` when another account has the email.
    public func addAllowanceChild(_ child: StoredAllowanceChild, user: StoredUser) throws {
        try withStoreErrors {
            try pool.write { db in
                try Self.insert(user, funds: [], db)
                try StoredFamilyMember(userID: user.id, familyID: child.familyID, role: .child).insert(db)
                try child.insert(db)
            }
        }
    }

    /// The family an account belongs to, with its role there; `nil` for an account of no family.
    public func familyMembership(userID: String) throws -> StoredFamilyMember? {
        try withStoreErrors { try pool.read { try StoredFamilyMember.fetchOne($0, key: userID) } }
    }

    /// The family with this id and its member counts (all members, children), or `nil`.
    public func family(id: String) throws -> (family: StoredFamily, members: Int, children: Int)? {
        try withStoreErrors {
            try pool.read { db in
                guard let family = try StoredFamily.fetchOne(db, key: id) else { return nil }
                let members = try StoredFamilyMember.filter(StoredFamilyMember.Columns.familyID == id).fetchCount(db)
                let children = try StoredFamilyMember.filter(StoredFamilyMember.Columns.familyID == id && StoredFamilyMember.Columns.role == FamilyRole.child).fetchCount(db)
                return (family, members, children)
            }
        }
    }

    /// The account ids of a family's members.
    public func familyMemberIDs(familyID: String) throws -> [String] {
        try withStoreErrors {
            try pool.read { db in
                try StoredFamilyMember.filter(StoredFamilyMember.Columns.familyID == familyID).fetchAll(db).map(\.userID)
            }
        }
    }

    /// The children of a family, in the order they were added (with their accounts).
    public func allowanceChildren(familyID: String) throws -> [(child: StoredAllowanceChild, user: StoredUser)] {
        try withStoreErrors {
            try pool.read { db in
                try StoredAllowanceChild.filter(StoredAllowanceChild.Columns.familyID == familyID)
                    .order(StoredAllowanceChild.Columns.createdAt, Column("rowid")).fetchAll(db)
                    .compactMap { c in try StoredUser.fetchOne(db, key: c.userID).map { (c, $0) } }
            }
        }
    }

    /// Every child of every family (the weekly allowance's round).
    public func allAllowanceChildren() throws -> [StoredAllowanceChild] {
        try withStoreErrors { try pool.read { try StoredAllowanceChild.order(Column("rowid")).fetchAll($0) } }
    }

    /// The child with this id (with its account), or `nil`.
    public func allowanceChild(id: String) throws -> (child: StoredAllowanceChild, user: StoredUser)? {
        try withStoreErrors {
            try pool.read { db in
                guard let c = try StoredAllowanceChild.fetchOne(db, key: id), let u = try StoredUser.fetchOne(db, key: c.userID) else { return nil }
                return (c, u)
            }
        }
    }

    /// The child whose account is `userID`, or `nil`.
    public func allowanceChild(userID: String) throws -> StoredAllowanceChild? {
        try withStoreErrors {
            try pool.read { try StoredAllowanceChild.filter(StoredAllowanceChild.Columns.userID == userID).fetchOne($0) }
        }
    }

    /// A child's ledger rows in the order they were booked.
    public func allowanceTransactions(childID: String) throws -> [StoredAllowanceTransaction] {
        try withStoreErrors { try pool.read { try Self.rows(childID, $0) } }
    }

    private static func rows(_ childID: String, _ db: Database) throws -> [StoredAllowanceTransaction] {
        try StoredAllowanceTransaction.filter(StoredAllowanceTransaction.Columns.childID == childID)
            .order(StoredAllowanceTransaction.Columns.seq).fetchAll(db)
    }

    /// A page of a child's rows, newest first, optionally of one category (compared without regard to case), and
    /// the number of rows of the filter.
    public func allowanceTransactionPage(childID: String, category: String?, offset: Int, limit: Int) throws
        -> (rows: [StoredAllowanceTransaction], total: Int)
    {
        try withStoreErrors {
            try pool.read { db in
                var query = StoredAllowanceTransaction.filter(StoredAllowanceTransaction.Columns.childID == childID)
                if let category { query = query.filter(StoredAllowanceTransaction.Columns.category.collating(.nocase) == category) }
                let total = try query.fetchCount(db)
                let rows = try query.order(StoredAllowanceTransaction.Columns.seq.desc).limit(limit, offset: offset).fetchAll(db)
                return (rows, total)
            }
        }
    }

    /// The latest `limit` rows of some children, newest first.
    public func recentAllowanceTransactions(childIDs: [String], limit: Int) throws -> [StoredAllowanceTransaction] {
        try withStoreErrors {
            try pool.read { db in
                try StoredAllowanceTransaction.filter(childIDs.contains(StoredAllowanceTransaction.Columns.childID))
                    .order(StoredAllowanceTransaction.Columns.seq.desc).limit(limit).fetchAll(db)
            }
        }
    }

    /// Appends a row to a child's ledger in one write transaction (write transactions are serialized: two appends
    /// never see the same rows).
    ///
    /// When `idempotencyKey` (of the row's `createdBy`, given as `(createdBy, key)`) or `allowanceWeek` already
    /// names a row of the child, nothing is inserted and that row is returned. Otherwise `make` gets the child's
    /// rows in booking order and returns the row to insert (or throws, and nothing is written).
    public func appendAllowanceTransaction(
        childID: String, idempotencyKey: (createdBy: String, key: String)?, allowanceWeek: Int64?,
        make: ([StoredAllowanceTransaction]) throws -> StoredAllowanceTransaction
    ) throws -> AllowanceAppend {
        try withStoreErrors {
            try pool.write { db in
                typealias C = StoredAllowanceTransaction.Columns
                if let idempotencyKey, let earlier = try StoredAllowanceTransaction
                    .filter(C.createdBy == idempotencyKey.createdBy && C.idempotencyKey == idempotencyKey.key).fetchOne(db)
                {
                    return .existing(earlier)
                }
                if let allowanceWeek, let earlier = try StoredAllowanceTransaction
                    .filter(C.childID == childID && C.allowanceWeek == allowanceWeek).fetchOne(db)
                {
                    return .existing(earlier)
                }
                var row = try make(try Self.rows(childID, db))
                try row.insert(db)
                return .created(row)
            }
        }
    }

    /// Adds a savings goal.
    public func addAllowanceGoal(_ goal: StoredAllowanceGoal) throws {
        try withStoreErrors { try pool.write { db in try goal.insert(db) } }
    }

    /// The goals of a child, oldest first.
    public func allowanceGoals(childID: String) throws -> [StoredAllowanceGoal] {
        try withStoreErrors {
            try pool.read { db in
                try StoredAllowanceGoal.filter(StoredAllowanceGoal.Columns.childID == childID)
                    .order(StoredAllowanceGoal.Columns.createdAt, Column("rowid")).fetchAll(db)
            }
        }
    }

    /// The goal with this id, or `nil`.
    public func allowanceGoal(id: String) throws -> StoredAllowanceGoal? {
        try withStoreErrors { try pool.read { try StoredAllowanceGoal.fetchOne($0, key: id) } }
    }

    /// Sets a goal's amount set aside in one write transaction: `check` gets the child's rows (booking order) and
    /// throws to refuse. - Returns: the updated goal, or `nil` when there is no such goal.
    public func setAllowanceGoalAmount(id: String, cents: Int64, check: ([StoredAllowanceTransaction]) throws -> Void) throws -> StoredAllowanceGoal? {
        try withStoreErrors {
            try pool.write { db in
                guard var goal = try StoredAllowanceGoal.fetchOne(db, key: id) else { return nil }
                try check(try Self.rows(goal.childID, db))
                goal.currentCents = cents
                try goal.update(db)
                return goal
            }
        }
    }
}
