import BrokerCrypto
import BrokerProtocol

/// Account CRUD. Every account has an owner uid; a name is looked up within its owner's accounts.
extension Vault {
    /// Qualified, so a query that joins `accounts` with another table (`sealedAccounts`) stays
    /// unambiguous whatever columns a later migration gives that table.
    static let accountColumns =
        "accounts.id, accounts.owner_uid, accounts.name, accounts.configuration, accounts.client_secret IS NOT NULL, accounts.created_at"

    static func account(from row: SQLiteRow) -> Account {
        Account(
            id: row.int64(0), ownerUID: UInt32(truncatingIfNeeded: row.int64(1)), name: row.text(2),
            configuration: AccountDocument.decode(row.text(3), name: row.text(2)), hasClientSecret: row.int64(4) != 0,
            createdAt: row.double(5))
    }

    /// Adds an account owned by `owner`; `duplicateAccount` if that owner already has the name.
    /// The row and its sealed client secret are written in one transaction (the secret's AAD needs
    /// the new row's id).
    @discardableResult
    public func addAccount(_ configuration: AccountConfiguration, owner: UInt32, now: Double) throws -> Account {
        try connection.transaction {
            do {
                try connection.run(
                    "INSERT INTO accounts (name, configuration, owner_uid, created_at) VALUES (?, ?, ?, ?)",
                    try Self.columnValues(configuration) + [.integer(Int64(owner)), .real(now)])
            } catch StoreError.sqlite(let code, _, _) where code == SQLiteConnection.constraintUnique {
                throw StoreError.duplicateAccount(name: configuration.name)
            }
            let id = connection.lastInsertRowID
            try writeClientSecret(configuration.clientSecret, accountID: id)
            return try account(id: id)
        }
    }

    /// Replaces an account's configuration (name included; `duplicateAccount` if its owner already
    /// has the new name). The owner never changes.
    @discardableResult
    public func updateAccount(id: Int64, with configuration: AccountConfiguration) throws -> Account {
        try connection.transaction {
            let changed: Int
            do {
                changed = try connection.run(
                    "UPDATE accounts SET name = ?, configuration = ? WHERE id = ?",
                    try Self.columnValues(configuration) + [.integer(id)])
            } catch StoreError.sqlite(let code, _, _) where code == SQLiteConnection.constraintUnique {
                throw StoreError.duplicateAccount(name: configuration.name)
            }
            guard changed == 1 else { throw StoreError.unknownAccountID(id) }
            try writeClientSecret(configuration.clientSecret, accountID: id)
            return try account(id: id)
        }
    }

    /// name, configuration — in that order.
    private static func columnValues(_ configuration: AccountConfiguration) throws -> [SQLValue] {
        [.text(configuration.name), .text(try AccountDocument.encode(configuration))]
    }

    private func writeClientSecret(_ secret: String?, accountID: Int64) throws {
        let sealed = try secret.map { try seal(Secret($0), accountID: accountID, field: .clientSecret) }
        try connection.run("UPDATE accounts SET client_secret = ? WHERE id = ?", [.optional(sealed), .integer(accountID)])
    }

    /// All accounts of every owner, by owner then name (the daemon restores them all at start).
    public func accounts() throws -> [Account] {
        try connection.query(
            "SELECT \(Self.accountColumns) FROM accounts ORDER BY owner_uid, name", [], Self.account(from:))
    }

    /// `owner`'s account `name`; another owner's account of that name is not found.
    public func account(named name: String, owner: UInt32) throws -> Account? {
        try connection.query(
            "SELECT \(Self.accountColumns) FROM accounts WHERE owner_uid = ? AND name = ?",
            [.integer(Int64(owner)), .text(name)], Self.account(from:)
        ).first
    }

    public func account(id: Int64) throws -> Account {
        guard
            let found = try connection.query(
                "SELECT \(Self.accountColumns) FROM accounts WHERE id = ?", [.integer(id)], Self.account(from:)
            ).first
        else { throw StoreError.unknownAccountID(id) }
        return found
    }

    /// Throws `unknownAccountID` unless the account exists. Token and status writes check only
    /// that: decoding the configuration document there (what `account(id:)` does) cost every
    /// refresh a JSON decode between the provider's answer and the commit (docs/BENCHMARKS-archive.md,
    /// "Forced refresh: wake-ups and parsing"), and a rotated refresh token must be stored even when that document
    /// cannot be read.
    func requireAccount(id: Int64) throws(StoreError) {
        let found = try connection.query("SELECT 1 FROM accounts WHERE id = ?", [.integer(id)]) { $0.int64(0) }
        guard !found.isEmpty else { throw StoreError.unknownAccountID(id) }
    }

    /// The account's client secret, or nil for a public client. `cannotDecrypt` if it was tampered with.
    public func clientSecret(for account: Account) throws -> Secret? {
        let sealed = try connection.query("SELECT client_secret FROM accounts WHERE id = ?", [.integer(account.id)]) {
            $0.optionalBlob(0)
        }
        guard let row = sealed.first else { throw StoreError.unknownAccountID(account.id) }
        return try openOptional(row, accountID: account.id, accountName: account.name, field: .clientSecret)
    }

    /// Removes `owner`'s account `name` and (by foreign-key cascade) its tokens. `unknownAccount`
    /// if that owner has no such account (another owner's of the same name is untouched).
    public func removeAccount(named name: String, owner: UInt32) throws {
        let removed = try connection.run(
            "DELETE FROM accounts WHERE owner_uid = ? AND name = ?", [.integer(Int64(owner)), .text(name)])
        guard removed == 1 else {
            throw StoreError.unknownAccount(name: name)
        }
    }
}
