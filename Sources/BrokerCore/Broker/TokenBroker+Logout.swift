import BrokerProtocol
import BrokerStore

// Logout and revocation at the provider.
extension TokenBroker {
    /// Revokes at the provider (refresh token, then access token; best effort, reported), deletes the
    /// local tokens, and returns the provider's end-session URL when it has one.
    public func logout(account key: AccountKey) async throws(WireError) -> LogoutResult {
        guard let held = accounts[key] else { throw unknownAccount(key) }
        // The end-session URL's `id_token_hint` is the stored ID token, read before the logout
        // deletes it (best effort: the URL is still useful without the hint).
        var hint = held.machine.currentTokens?.idToken?.token
        if let current = held.machine.currentTokens, case .stored = current.idToken {
            hint = (try? await readingIDToken(current, account: key))?.idToken?.token
        }
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        // A login that finished during the read brought another ID token: no hint rather than a stale one.
        if runtime.machine.generation != held.machine.generation { hint = nil }
        let tokens = runtime.machine.currentTokens
        var endSessionURL: String?
        if let metadata = runtime.metadata?.metadata, metadata.endSessionEndpoint != nil {
            var hinted = tokens
            hinted?.idToken = hint.map { .token($0) }
            endSessionURL = try? oidc.logoutURL(metadata: metadata, client: runtime.client, tokens: hinted)
        }
        var revokeNow: [TokenSet] = []
        // The subject stays (the status row keeps it): the next login must sign in the same user
        // unless it says `new_subject` (LoginSubjectCheck) — a logout is no opening for another user.
        event(key) { machine, now in
            // The revocation is done here, awaited, so its outcome can be reported.
            machine.logout(now: now).filter { action in
                guard case .revoke(let held) = action else { return true }
                revokeNow.append(held)
                return false
            }
        }
        logger.with(key).info("logged out")
        guard let held = revokeNow.first ?? tokens else {
            return LogoutResult(revoked: false, revocationNote: "no tokens were held", endSessionURL: endSessionURL)
        }
        // A task of its own: this runs for a socket request, whose connection thread must not
        // carry the provider exchange (ProviderTask).
        let outcome = await Task { await self.revoke(held, account: key) }.value
        return LogoutResult(revoked: outcome.revoked, revocationNote: outcome.note, endSessionURL: endSessionURL)
    }

    /// Revokes `tokens` at the provider, best effort: (revoked, note for people). Never throws.
    func revoke(_ tokens: TokenSet, account key: AccountKey) async -> (revoked: Bool, note: String?) {
        let metadata: ProviderMetadata
        do throws(OIDCError) {
            metadata = try await self.metadata(for: key, needing: .revocation)
        } catch {
            return (false, "the provider could not be reached: \(error)")
        }
        guard metadata.revocationEndpoint != nil, let runtime = accounts[key] else {
            return (false, "the provider has no revocation endpoint")
        }
        let results: [RevocationResult]
        do throws(OIDCError) {
            results = try await oidcClient(for: runtime.configuration).revoke(tokens, metadata: metadata, client: runtime.client)
        } catch {
            return (false, "revocation failed: \(error)")
        }
        let failures = results.compactMap { result in result.error.map { "\(result.tokenTypeHint): \($0)" } }
        if failures.isEmpty {
            logger.with(key).info("tokens revoked at the provider")
            return (true, nil)
        }
        logger.with(key).warning("revocation failed: \(failures.joined(separator: "; "))")
        return (false, "revocation failed: " + failures.joined(separator: "; "))
    }
}
