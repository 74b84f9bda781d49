import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Changing an account in place (`authctl account apply`), rejected access tokens (git's `erase`)
// and ID tokens (`authctl kube-credential --id-token`).
extension TokenBroker {
    /// Replaces the configuration of `input.name`. A change to the security profile or the client
    /// secret logs the account out (tokens deleted, pending login cancelled, refresh voided): its
    /// tokens were granted to the old configuration. Other changes (git fields) keep the tokens.
    /// Discovery runs again when the issuer, discovery URL or endpoints change; a failure changes nothing.
    public func updateAccount(_ input: BrokerProtocol.AccountConfiguration, owner: UInt32) async throws(WireError)
        -> AccountUpdateResult
    {
        let configuration = try AccountValidation.check(input).get()
        let key = AccountKey(owner: owner, name: configuration.name)
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        let secret = configuration.clientSecret.map { Secret($0) }
        let shown = configuration.withoutSecret
        let old = runtime.configuration
        let securityRelevant = secret != runtime.clientSecret || shown.securityProfile != old.securityProfile
        guard securityRelevant || shown != old else {
            return AccountUpdateResult(outcome: .unchanged, account: accountStatus(runtime, configuration: true))
        }
        let sourceChanged = shown.issuer != old.issuer || shown.discoveryURL != old.discoveryURL
            || shown.endpoints != old.endpoints
        let metadata = sourceChanged ? try await resolveMetadata(for: configuration) : runtime.metadata
        let (id, stored) = (runtime.id, configuration)
        do {
            try await worker.perform { vault in
                try vault.batch {
                    _ = try vault.updateAccount(id: id, with: stored)
                    // In the same transaction: if the delete came later and failed (full disk), a
                    // restart would restore the old grant's refresh token under the new
                    // configuration and send it to the new issuer or client.
                    if securityRelevant { try vault.deleteTokens(accountID: id) }
                }
            }
        } catch StoreError.unknownAccountID {
            throw unknownAccount(key)
        } catch {
            // Nothing changed, in memory or on disk: the old configuration and tokens stay in use.
            logger.with(key).error("cannot store the account: \(error)")
            throw fail(WireError(
                code: .storageFailed,
                message: "The account could not be stored (\(error)); nothing was changed. "
                    + "Free disk space in the state directory and try again."))
        }
        // Removed (or removed and added again) while the vault wrote: that account is not ours to change.
        guard accounts[key]?.id == id else { throw unknownAccount(key) }
        accounts[key]?.configuration = shown
        accounts[key]?.clientSecret = secret
        accounts[key]?.metadata = metadata
        accounts[key]?.client = shown.clientConfiguration(secret: secret, metadata: metadata?.metadata)
        if sourceChanged, let metadata, shown.manualMetadata == nil { adopt(metadata, for: shown) }
        var outcome = AccountUpdateResult.Outcome.updated
        if securityRelevant {
            let machine = accounts[key]!.machine
            if machine.currentTokens != nil || machine.pendingLogin != nil { outcome = .signedOut }
            accounts[key]?.subject = nil
            event(key) { machine, now in machine.configurationChanged(securityRelevant: true, now: now) }
        }
        logger.with(key).info(
            "account updated", ["tokens": outcome == .signedOut ? "deleted (security-relevant change)" : "kept"])
        return AccountUpdateResult(outcome: outcome, account: accountStatus(accounts[key]!, configuration: true))
    }

    /// A resource server refused `accessToken`: see `AccountStateMachine.tokenRejected`.
    public func tokenRejected(account key: AccountKey, accessToken: String) async throws(WireError)
        -> TokenRejectionResult
    {
        guard accounts[key] != nil else { throw unknownAccount(key) }
        guard !accessToken.isEmpty else {
            throw fail(WireError(code: .invalidRequest, message: "'access_token' must name the token that was refused."))
        }
        var scheduled = false
        event(key) { machine, now in
            let (refresh, actions) = machine.tokenRejected(Secret(accessToken), now: now)
            scheduled = refresh
            return actions
        }
        counters.tokenRejected(refreshScheduled: scheduled)
        logger.with(key).info(
            "a client reported the access token as rejected",
            ["refresh": scheduled ? "scheduled" : "not needed (not the current token, or not refreshable)"])
        return TokenRejectionResult(refreshScheduled: scheduled)
    }

    /// The current ID token while it has more than `minTTL` seconds left; else one refresh (within
    /// the per-second cap) and the ID token it brought. `login_required` when there is none: never
    /// logged in, or the provider returns no (new) ID token on refresh.
    public func idToken(account key: AccountKey, minTTL: Double?, requester: PeerCredentials) async throws(WireError)
        -> IDTokenGrant
    {
        let minTTL = minTTL ?? 0
        guard minTTL.isFinite, minTTL >= 0 else {
            throw fail(WireError(code: .invalidRequest, message: "min_ttl must be a number of seconds ≥ 0."))
        }
        guard accounts[key] != nil else { throw unknownAccount(key) }
        if let grant = currentIDToken(key, minTTL: minTTL) { return served(grant) }
        // Throws the usual errors when there are no tokens (login_required, login_pending…).
        _ = try await answer(account: key) { machine, id, now in machine.refreshRequested(id, now: now) }
        if let grant = currentIDToken(key, minTTL: minTTL) { return served(grant) }
        let name = key.name
        throw fail(WireError(
            code: .loginRequired,
            message: "Account '\(name)' has no ID token valid for \(Int(minTTL)) more seconds, and a refresh did not "
                + "bring one. Log in with: authctl login \(name)"))
    }

    private func currentIDToken(_ key: AccountKey, minTTL: Double) -> IDTokenGrant? {
        guard let tokens = accounts[key]?.machine.currentTokens, let idToken = tokens.idToken,
            let claims = tokens.storedIDTokenClaims
        else { return nil }
        let expiry = claims.expiresAt.timeIntervalSince1970
        guard expiry - now() > minTTL else { return nil }
        return IDTokenGrant(idToken: idToken.revealString(), expiresAt: RFC3339.format(unixSeconds: expiry))
    }

    private func served(_ grant: IDTokenGrant) -> IDTokenGrant {
        counters.idTokensServed(1)
        return grant
    }
}
