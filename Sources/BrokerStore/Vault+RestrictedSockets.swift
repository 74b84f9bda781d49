/// Restricted sockets made with `--persist` (docs/remote.md): the daemon recreates them at start.
/// Nothing secret: a name, its owner, the granted account names and narrowings, an absolute expiry.
public struct StoredRestrictedSocket: Sendable, Equatable {
    public var name: String
    public var owner: UInt32
    public var accounts: [String]
    /// Unix seconds; nil: no ttl.
    public var expiresAt: Double?
    /// The narrowed tokens it serves (`TokenNarrowing(spec:)`'s form, which holds no newline).
    public var narrowings: [String]

    public init(name: String, owner: UInt32, accounts: [String], expiresAt: Double?, narrowings: [String] = []) {
        self.name = name
        self.owner = owner
        self.accounts = accounts
        self.expiresAt = expiresAt
        self.narrowings = narrowings
    }
}

extension Vault {
    public func restrictedSockets() throws(StoreError) -> [StoredRestrictedSocket] {
        try connection.query(
            "SELECT name, owner_uid, accounts, expires_at, narrowings FROM restricted_sockets ORDER BY owner_uid, name"
        ) { row in
            StoredRestrictedSocket(
                name: row.text(0), owner: UInt32(truncatingIfNeeded: row.int64(1)),
                accounts: row.text(2).split(separator: "\n").map(String.init), expiresAt: row.optionalDouble(3),
                narrowings: row.text(4).split(separator: "\n").map(String.init))
        }
    }

    /// Inserts or replaces the owner's socket of that name (names are per owner).
    public func saveRestrictedSocket(_ socket: StoredRestrictedSocket) throws(StoreError) {
        _ = try connection.run(
            """
            INSERT INTO restricted_sockets (name, owner_uid, accounts, expires_at, narrowings) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (owner_uid, name) DO UPDATE SET accounts = excluded.accounts,
            expires_at = excluded.expires_at, narrowings = excluded.narrowings
            """,
            [
                .text(socket.name), .integer(Int64(socket.owner)), .text(socket.accounts.joined(separator: "\n")),
                socket.expiresAt.map(SQLValue.real) ?? .null, .text(socket.narrowings.joined(separator: "\n")),
            ])
    }

    public func removeRestrictedSocket(named name: String, owner: UInt32) throws(StoreError) {
        _ = try connection.run(
            "DELETE FROM restricted_sockets WHERE owner_uid = ? AND name = ?", [.integer(Int64(owner)), .text(name)])
    }
}
