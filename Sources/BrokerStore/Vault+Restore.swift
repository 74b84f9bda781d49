import BrokerCrypto

/// Start-up's read of every account: one statement for all of them (accounts, their sealed values
/// and status) instead of an account list and three look-ups per account — with 1,000 accounts
/// those 3,000 statement runs were most of the daemon's SQLite time before READY=1
/// (docs/BENCHMARKS-archive.md, "READY=1 with 1,000 accounts"). The sealed values are opened afterwards, each
/// with its own error, exactly as `loadTokens`, `clientSecret(for:)` and `status(accountID:)` open and read
/// them.
extension Vault {
    /// An account row with its sealed values and token status, not yet opened.
    public struct SealedAccount {
        public let account: Account
        let clientSecret: [UInt8]?
        /// Nil when the account has no access token (logged out, or a status-only row).
        let tokens: SealedTokens?
        /// Nil when the account has no tokens row at all (`status(accountID:)`).
        public let status: TokenStatus?
    }

    /// `read` of every account of every owner, by owner then name (as `accounts()`), with what it
    /// has stored. Row by row, so the sealed values of all accounts are never held at once (a
    /// megabyte with 1,000 accounts, which stayed in the malloc arena after start-up).
    public func sealedAccounts<T>(_ read: (SealedAccount) -> T) throws -> [T] {
        let first = Int32(6)  // the columns after `accountColumns`
        return try connection.query(
            """
            SELECT \(Self.accountColumns), accounts.client_secret, t.account_id IS NOT NULL, t.access_token IS NOT NULL,
                   t.last_refresh_at, t.last_error_code, t.last_error_message, t.subject, \(SealedTokens.columns)
            FROM accounts LEFT JOIN tokens t ON t.account_id = accounts.id
            ORDER BY accounts.owner_uid, accounts.name
            """
        ) { row in
            read(
                SealedAccount(
                    account: Self.account(from: row), clientSecret: row.optionalBlob(first),
                    tokens: row.int64(first + 2) != 0 ? SealedTokens(row, from: first + 7) : nil,
                    status: row.int64(first + 1) == 0
                        ? nil
                        : TokenStatus(
                            lastRefreshAt: row.optionalDouble(first + 3), lastErrorCode: row.optionalText(first + 4),
                            lastErrorMessage: row.optionalText(first + 5), subject: row.optionalText(first + 6))))
        }
    }

    /// `loadTokens(accountID:)` of the account: nil when logged out, else every field opened, the
    /// ID token then held as `.stored` (the daemon reads it back when an action needs it).
    public func tokens(of sealed: SealedAccount) throws -> TokenSet? {
        try sealed.tokens.map {
            try open($0, accountID: sealed.account.id, accountName: sealed.account.name, keepingIDTokenStored: true)
        }
    }

    /// `clientSecret(for:)` of the account: nil for a public client.
    public func clientSecret(of sealed: SealedAccount) throws -> Secret? {
        try openOptional(
            sealed.clientSecret, accountID: sealed.account.id, accountName: sealed.account.name, field: .clientSecret)
    }
}
