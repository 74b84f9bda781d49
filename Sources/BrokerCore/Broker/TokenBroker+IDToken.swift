import BrokerStore

// ID tokens held in the vault only (`IDTokenHolding.stored`): read back for the actions that need
// one — a refresh's check that the answer is for the same user, the id-token route, logout's
// `id_token_hint`. The reads go through the vault thread in order with the saves, so they see
// every set committed before them.
extension TokenBroker {
    /// `tokens` ready for a refresh: when its ID token is stored and this run has not read its
    /// identity (after start-up), the token is read back. Fails (a transient refresh failure) when
    /// the vault cannot give it: refreshing without it would skip the same-user check.
    func readingIDTokenIdentity(_ tokens: TokenSet, account key: AccountKey) async throws(OIDCError) -> TokenSet {
        guard tokens.idTokenIdentity == .unknown else { return tokens }
        let read: TokenSet
        do {
            read = try await readingIDToken(tokens, account: key)
        } catch {
            throw .storage("the stored ID token cannot be read: \(error)")
        }
        // Gone meanwhile (a logout or a change deleted the row): never refresh without the check.
        guard read.idToken != nil else { throw .storage("the stored ID token is no longer in the vault") }
        return read
    }

    /// `tokens` with the ID token in memory: read back from the vault when it is held as `.stored`.
    /// A stored ID token the vault no longer has (logged out meanwhile) leaves the set without one.
    func readingIDToken(_ tokens: TokenSet, account key: AccountKey) async throws -> TokenSet {
        guard case .stored = tokens.idToken, let id = accounts[key]?.id else { return tokens }
        let idToken = try await worker.perform { vault in try vault.loadIDToken(accountID: id) }
        var read = tokens
        read.idToken = idToken.map { .token($0) }
        return read
    }
}
