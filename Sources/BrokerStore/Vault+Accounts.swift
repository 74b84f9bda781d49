import BrokerCrypto

/// Account CRUD.
extension Vault {
    private static let accountColumns = "id, name, issuer, client_id, scopes, options, client_secret IS NOT NULL, created_at"

    private static func account(from row: SQLiteRow) -> Account {
        Account(
            id: row.int64(0), name: row.text(1), issuer: row.text(2), clientID: row.text(3),
            scopes: row.text(4).split(separator: " ").map(String.init), optionsJSON: row.text(5),
            hasClientSecret: row.int64(6) != 0, createdAt: row.double(7))
    }

    /// Adds an account; `duplicateAccount` if the name is taken. The row and its sealed client
    /// secret are written in one transaction (the secret's AAD needs the new row's id).
    @discardableResult
    public func addAccount(_ configuration: AccountConfiguration, now: Double) throws -> Account {
        try connection.transaction {
            do {
                try connection.run(
                    "INSERT INTO accounts (name, issuer, client_id, scopes, options, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    Self.columnValues(configuration) + [.real(now)])
            } catch StoreError.sqlite(let code, _, _) where code == SQLiteConnection.constraintUnique {
                throw StoreError.duplicateAccount(name: configuration.name)
            }
            let id = connection.lastInsertRowID
            try writeClientSecret(configuration.clientSecret, accountID: id)
            return try account(id: id)
        }
    }

    /// Replaces an account's configuration (name included; `duplicateAccount` if the new name is taken).
    @discardableResult
    public func updateAccount(id: Int64, with configuration: AccountConfiguration) throws -> Account {
        try connection.transaction {
            let changed: Int
            do {
                changed = try connection.run(
                    "UPDATE accounts SET name = ?, issuer = ?, client_id = ?, scopes = ?, options = ? WHERE id = ?",
                    Self.columnValues(configuration) + [.integer(id)])
            } catch StoreError.sqlite(let code, _, _) where code == SQLiteConnection.constraintUnique {
                throw StoreError.duplicateAccount(name: configuration.name)
            }
            guard changed == 1 else { throw StoreError.unknownAccountID(id) }
            try writeClientSecret(configuration.clientSecret, accountID: id)
            return try account(id: id)
        }
    }

    /// name, issuer, client_id, scopes, options — in that order.
    private static func columnValues(_ configuration: AccountConfiguration) -> [SQLValue] {
        [
            .text(configuration.name), .text(configuration.issuer), .text(configuration.clientID),
            .text(configuration.scopes.joined(separator: " ")), .text(configuration.optionsJSON),
        ]
    }

    private func writeClientSecret(_ secret: Secret?, accountID: Int64) throws {
        let sealed = try secret.map { try seal($0, accountID: accountID, field: .clientSecret) }
        try connection.run("UPDATE accounts SET client_secret = ? WHERE id = ?", [.optional(sealed), .integer(accountID)])
    }

    /// All accounts, by name.
    public func accounts() throws -> [Account] {
        try connection.query("SELECT \(Self.accountColumns) FROM accounts ORDER BY name", [], Self.account(from:))
    }

    public func account(named name: String) throws -> Account? {
        try connection.query("SELECT \(Self.accountColumns) FROM accounts WHERE name = ?", [.text(name)], Self.account(from:))
            .first
    }

    public func account(id: Int64) throws -> Account {
        guard
            let found = try connection.query(
                "SELECT \(Self.accountColumns) FROM accounts WHERE id = ?", [.integer(id)], Self.account(from:)
            ).first
        else { throw StoreError.unknownAccountID(id) }
        return found
    }

    /// The account's client secret, or nil for a public client. `cannotDecrypt` if it was tampered with.
    public func clientSecret(for account: Account) throws -> Secret? {
        let sealed = try connection.query("SELECT client_secret FROM accounts WHERE id = ?", [.integer(account.id)]) {
            $0.optionalBlob(0)
        }
        guard let row = sealed.first else { throw StoreError.unknownAccountID(account.id) }
        return try openOptional(row, accountID: account.id, accountName: account.name, field: .clientSecret)
    }

    /// Removes the account and (by foreign-key cascade) its tokens. `unknownAccount` if absent.
    public func removeAccount(named name: String) throws {
        guard try connection.run("DELETE FROM accounts WHERE name = ?", [.text(name)]) == 1 else {
            throw StoreError.unknownAccount(name: name)
        }
    }
}
