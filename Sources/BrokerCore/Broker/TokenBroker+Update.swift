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
    public func updateAccount(_ input: BrokerProtocol.AccountConfiguration) async throws(WireError) -> AccountUpdateResult {
        let configuration = try AccountValidation.check(input).get()
        let name = configuration.name
        guard let runtime = accounts[name] else { throw unknownAccount(name) }
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
        let (id, stored) = (runtime.id, configuration.vaultConfiguration)
        do {
            try await worker.perform { vault in _ = try vault.updateAccount(id: id, with: stored) }
        } catch StoreError.unknownAccountID {
            throw unknownAccount(name)
        } catch {
            // Nothing changed, in memory or on disk: the old configuration and tokens stay in use.
            logger.error("cannot store the account: \(error)", ["account": name])
            throw fail(WireError(
                code: .storageFailed,
                message: "The account could not be stored (\(error)); nothing was changed. "
                    + "Free disk space in the state directory and try again."))
        }
        // Removed (or removed and added again) while the vault wrote: that account is not ours to change.
        guard accounts[name]?.id == id else { throw unknownAccount(name) }
        accounts[name]?.configuration = shown
        accounts[name]?.clientSecret = secret
        accounts[name]?.metadata = metadata
        accounts[name]?.client = shown.clientConfiguration(secret: secret, metadata: metadata?.metadata)
        if sourceChanged, let metadata, shown.manualMetadata == nil { adopt(metadata, for: shown) }
        var outcome = AccountUpdateResult.Outcome.updated
        if securityRelevant {
            let machine = accounts[name]!.machine
            if machine.currentTokens != nil || machine.pendingLogin != nil { outcome = .signedOut }
            accounts[name]?.subject = nil
            event(name) { machine, now in machine.configurationChanged(securityRelevant: true, now: now) }
        }
        logger.info(
            "account updated", ["account": name, "tokens": outcome == .signedOut ? "deleted (security-relevant change)" : "kept"])
        return AccountUpdateResult(outcome: outcome, account: accountStatus(accounts[name]!, configuration: true))
    }

    /// A resource server refused `accessToken`: see `AccountStateMachine.tokenRejected`.
    public func tokenRejected(account name: String, accessToken: String) async throws(WireError) -> TokenRejectionResult {
        guard accounts[name] != nil else { throw unknownAccount(name) }
        guard !accessToken.isEmpty else {
            throw fail(WireError(code: .invalidRequest, message: "'access_token' must name the token that was refused."))
        }
        var scheduled = false
        event(name) { machine, now in
            let (refresh, actions) = machine.tokenRejected(Secret(accessToken), now: now)
            scheduled = refresh
            return actions
        }
        counters.tokenRejected(refreshScheduled: scheduled)
        logger.info(
            "a client reported the access token as rejected",
            ["account": name, "refresh": scheduled ? "scheduled" : "not needed (not the current token, or not refreshable)"])
        return TokenRejectionResult(refreshScheduled: scheduled)
    }

    /// The current ID token while it has more than `minTTL` seconds left; else one refresh (within
    /// the per-second cap) and the ID token it brought. `login_required` when there is none: never
    /// logged in, or the provider returns no (new) ID token on refresh.
    public func idToken(account name: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError)
        -> IDTokenGrant
    {
        let minTTL = minTTL ?? 0
        guard minTTL.isFinite, minTTL >= 0 else {
            throw fail(WireError(code: .invalidRequest, message: "min_ttl must be a number of seconds ≥ 0."))
        }
        guard accounts[name] != nil else { throw unknownAccount(name) }
        if let grant = currentIDToken(name, minTTL: minTTL) { return served(grant) }
        // Throws the usual errors when there are no tokens (login_required, login_pending…).
        _ = try await answer(account: name) { machine, id, now in machine.refreshRequested(id, now: now) }
        if let grant = currentIDToken(name, minTTL: minTTL) { return served(grant) }
        throw fail(WireError(
            code: .loginRequired,
            message: "Account '\(name)' has no ID token valid for \(Int(minTTL)) more seconds, and a refresh did not "
                + "bring one. Log in with: authctl login \(name)"))
    }

    private func currentIDToken(_ name: String, minTTL: Double) -> IDTokenGrant? {
        guard let tokens = accounts[name]?.machine.currentTokens, let idToken = tokens.idToken,
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

extension BrokerProtocol.AccountConfiguration {
    /// As kept in memory and returned to clients: no client secret, empty manual endpoints as none
    /// (the form `init(stored:)` gives back, so a re-applied file compares equal).
    var withoutSecret: Self {
        var copy = self
        copy.clientSecret = nil
        copy.endpoints = endpoints.flatMap { $0.isEmpty ? nil : $0 }
        return copy
    }
}
