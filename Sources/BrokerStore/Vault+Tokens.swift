import BrokerCrypto

/// Tokens and their status, per account.
///
/// The tokens row also carries status fields; a row may exist with status but no tokens (e.g. a
/// refresh failed with `invalid_grant`, the daemon dropped the tokens but shows the error).
extension Vault {
    /// Saves every token field in ONE transaction (one UPSERT): a rotated refresh token and the
    /// new access token commit together or not at all. `tokens` replaces what was stored — to keep
    /// a refresh token the provider did not rotate, pass the old one — except an ID token held as
    /// `.stored`, which keeps the stored one (a set whose ID token is only in the vault must never
    /// erase it). Clears the last error; with `status`, writes it in the same transaction (a
    /// refresh's answer and its status: one commit, one existence check, no savepoint — they are
    /// inside the window where the provider has rotated and nothing is on disk).
    public func saveTokens(_ tokens: TokenSet, status: TokenStatus? = nil, accountID: Int64) throws {
        try connection.transaction {
            try requireAccount(id: accountID)
            let access = try seal(tokens.accessToken, accountID: accountID, field: .accessToken)
            let refresh = try tokens.refreshToken.map { try seal($0, accountID: accountID, field: .refreshToken) }
            let id = try tokens.idToken?.token.map { try seal($0, accountID: accountID, field: .idToken) }
            let keepStoredID: Int64 = if case .stored = tokens.idToken { 1 } else { 0 }
            let dpopKey = try tokens.dpopKey.map { try seal(try exportKey($0), accountID: accountID, field: .dpopKey) }
            try connection.run(
                """
                INSERT INTO tokens (account_id, access_token, refresh_token, id_token, token_type, scope, expires_at,
                                    obtained_at, dpop_key, last_error_code, last_error_message)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)
                ON CONFLICT (account_id) DO UPDATE SET
                    access_token = excluded.access_token, refresh_token = excluded.refresh_token,
                    id_token = iif(?10, tokens.id_token, excluded.id_token), token_type = excluded.token_type,
                    scope = excluded.scope,
                    expires_at = excluded.expires_at, obtained_at = excluded.obtained_at,
                    dpop_key = excluded.dpop_key, last_error_code = NULL, last_error_message = NULL
                """,
                [
                    .integer(accountID), .blob(access), .optional(refresh), .optional(id), .text(tokens.tokenType),
                    .optional(tokens.scope), .optional(tokens.expiresAt), .real(tokens.obtainedAt),
                    .optional(dpopKey), .integer(keepStoredID),
                ])
            // The row exists now: a plain UPDATE, not a second UPSERT.
            if let status { try writeStatus(status, accountID: accountID) }
        }
    }

    /// The account's tokens, or nil when logged out. `cannotDecrypt(account:field:)` names the
    /// first field that fails to open; other accounts are unaffected.
    public func loadTokens(accountID: Int64) throws -> TokenSet? {
        let rows = try connection.query(
            """
            SELECT a.name, \(SealedTokens.columns)
            FROM tokens t JOIN accounts a ON a.id = t.account_id
            WHERE t.account_id = ? AND t.access_token IS NOT NULL
            """, [.integer(accountID)]
        ) { row in (name: row.text(0), sealed: SealedTokens(row, from: 1)) }
        guard let row = rows.first else { return nil }
        return try open(row.sealed, accountID: accountID, accountName: row.name)
    }

    /// Opens every sealed field of a tokens row (the DPoP key also imported). `keepingIDTokenStored`:
    /// the ID token is opened — so a row that does not open fails here as before — but held as
    /// `.stored` (start-up: no account's ID token stays in memory).
    func open(_ sealed: SealedTokens, accountID: Int64, accountName: String, keepingIDTokenStored: Bool = false) throws
        -> TokenSet
    {
        let idToken = try openOptional(sealed.id, accountID: accountID, accountName: accountName, field: .idToken)
        var tokens = TokenSet(
            accessToken: try open(sealed.access, accountID: accountID, accountName: accountName, field: .accessToken),
            refreshToken: try openOptional(sealed.refresh, accountID: accountID, accountName: accountName, field: .refreshToken),
            idToken: idToken,
            tokenType: sealed.type, scope: sealed.scope, expiresAt: sealed.expiresAt, obtainedAt: sealed.obtainedAt,
            dpopKey: try openOptional(sealed.dpopKey, accountID: accountID, accountName: accountName, field: .dpopKey)
                .map { try importKey($0, accountName: accountName) })
        if keepingIDTokenStored, idToken != nil { tokens.idToken = .stored(identity: nil) }
        return tokens
    }

    /// The stored ID token of the account: nil when it has none (or no tokens).
    public func loadIDToken(accountID: Int64) throws -> Secret? {
        let rows = try connection.query(
            "SELECT a.name, t.id_token FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.account_id = ?",
            [.integer(accountID)]
        ) { row in (name: row.text(0), sealed: row.optionalBlob(1)) }
        guard let row = rows.first else { return nil }
        return try openOptional(row.sealed, accountID: accountID, accountName: row.name, field: .idToken)
    }

    private func exportKey(_ key: ECSigningKey) throws -> Secret {
        do { return try key.exportPKCS8() } catch { throw StoreError.crypto(error) }
    }

    /// A sealed key that opens but is not a P-256 key is as unusable as one that does not open.
    private func importKey(_ pkcs8: Secret, accountName: String) throws -> ECSigningKey {
        do { return try ECSigningKey(pkcs8: pkcs8) } catch {
            throw StoreError.cannotDecrypt(account: accountName, field: SealedField.dpopKey.rawValue)
        }
    }

    /// Logout: forgets the account's tokens and status.
    public func deleteTokens(accountID: Int64) throws {
        try connection.run("DELETE FROM tokens WHERE account_id = ?", [.integer(accountID)])
    }

    /// The status fields, or nil when nothing was ever recorded.
    public func status(accountID: Int64) throws -> TokenStatus? {
        try connection.query(
            "SELECT last_refresh_at, last_error_code, last_error_message, subject FROM tokens WHERE account_id = ?",
            [.integer(accountID)]
        ) { row in
            TokenStatus(
                lastRefreshAt: row.optionalDouble(0), lastErrorCode: row.optionalText(1),
                lastErrorMessage: row.optionalText(2), subject: row.optionalText(3))
        }.first
    }

    /// Replaces the status fields (tokens untouched; creates a token-less row if needed).
    public func updateStatus(_ status: TokenStatus, accountID: Int64) throws {
        try connection.transaction {
            try requireAccount(id: accountID)
            try connection.run(
                """
                INSERT INTO tokens (account_id, last_refresh_at, last_error_code, last_error_message, subject)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET
                    last_refresh_at = excluded.last_refresh_at, last_error_code = excluded.last_error_code,
                    last_error_message = excluded.last_error_message, subject = excluded.subject
                """,
                [
                    .integer(accountID), .optional(status.lastRefreshAt), .optional(status.lastErrorCode),
                    .optional(status.lastErrorMessage), .optional(status.subject),
                ])
        }
    }

    private func writeStatus(_ status: TokenStatus, accountID: Int64) throws {
        try connection.run(
            """
            UPDATE tokens SET last_refresh_at = ?, last_error_code = ?, last_error_message = ?, subject = ?
            WHERE account_id = ?
            """,
            [
                .optional(status.lastRefreshAt), .optional(status.lastErrorCode), .optional(status.lastErrorMessage),
                .optional(status.subject), .integer(accountID),
            ])
    }
}
