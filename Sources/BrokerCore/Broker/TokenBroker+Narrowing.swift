import BrokerProtocol
import BrokerStore

// Narrowed tokens (`GET /v1/accounts/{name}/token?scope=…&resource=…&audience=…`): one login, many
// narrower tokens, each cached under its own key (`NarrowedTokenCache`), all minted from the
// account's one refresh token under the account's refresh lease (`RefreshLeases`).
extension TokenBroker {
    public func narrowedToken(account key: AccountKey, narrowing: TokenNarrowing, minTTL: Double?) async throws(WireError)
        -> TokenGrant
    {
        guard !narrowing.isEmpty else { return try await token(account: key, minTTL: minTTL) }
        if let minTTL, !minTTL.isFinite || minTTL < 0 {
            throw fail(WireError(code: .invalidRequest, message: "min_ttl must be a number of seconds ≥ 0."))
        }
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        try checkNarrowingAllowed(runtime, narrowing)
        // The account's own errors (login_required, login_pending, provider_unavailable) come first.
        _ = try await token(account: key, minTTL: nil)
        let cacheKey = NarrowedTokenCache.Key(account: key, narrowing: narrowing)
        if let grant = try cachedNarrowed(cacheKey, minTTL: minTTL) { return grant }
        return try await drainedNarrowed(cacheKey, minTTL: minTTL).get()
    }

    /// The lease and the narrowed refresh run as drained background work, not in the caller's
    /// request: a shutdown waits for it like for a plain refresh, so a refresh token the provider
    /// has just rotated is committed to the vault before the daemon exits.
    private func drainedNarrowed(_ cacheKey: NarrowedTokenCache.Key, minTTL: Double?) async -> Result<TokenGrant, WireError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<TokenGrant, WireError>, Never>) in
            let started = background(drain: true) { broker in
                let key = cacheKey.account
                await broker.acquireRefreshLease(key)
                defer { broker.releaseRefreshLease(key) }
                do throws(WireError) {
                    // Another caller may have minted this key while this one waited for the lease.
                    if let grant = try broker.cachedNarrowed(cacheKey, minTTL: minTTL) {
                        continuation.resume(returning: .success(grant))
                    } else {
                        try broker.spendNarrowedRefresh(key)
                        continuation.resume(returning: .success(try await broker.mintNarrowed(cacheKey)))
                    }
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if started == nil {
                continuation.resume(
                    returning: .failure(
                        fail(
                            WireError(
                                code: .providerUnavailable, message: "authbroker is shutting down; try again shortly."))))
            }
        }
    }

    /// A cached narrowed token still good for `minTTL`, after dropping expired keys; throws
    /// `scope_not_granted` for a scope outside the account's current grant.
    private func cachedNarrowed(_ cacheKey: NarrowedTokenCache.Key, minTTL: Double?) throws(WireError) -> TokenGrant? {
        let key = cacheKey.account
        guard let runtime = accounts[key], let tokens = runtime.machine.currentTokens else {
            throw fail(accounts[key]?.machine.unavailableError(now: now()) ?? unknownAccount(key))
        }
        try checkGranted(cacheKey.narrowing, tokens: tokens, runtime: runtime)
        let time = now()
        pruneNarrowed(key, now: time)
        guard let entry = narrowed.fresh(cacheKey, generation: runtime.machine.generation, now: time, minTTL: minTTL)
        else { return nil }
        counters.tokensServed(1)
        return entry.grant
    }

    /// One narrowed refresh (the lease is held): the rotated refresh token is committed as the
    /// account's before the narrowed token is cached or served.
    private func mintNarrowed(_ cacheKey: NarrowedTokenCache.Key) async throws(WireError) -> TokenGrant {
        let key = cacheKey.account
        guard let runtime = accounts[key], let current = runtime.machine.currentTokens, current.canRefresh else {
            throw fail(accounts[key]?.machine.unavailableError(now: now()) ?? unknownAccount(key))
        }
        let generation = runtime.machine.generation
        let log = logger.with(key)
        log.info(
            "refreshing for a narrowed token",
            [
                "scopes": String(cacheKey.narrowing.scopes.count),
                "resources": String(cacheKey.narrowing.resources.count),
                "audience": cacheKey.narrowing.audience == nil ? "no" : "yes",
            ])
        let answer: TokenSet
        let tokens: TokenSet
        do throws(OIDCError) {
            tokens = try await readingIDTokenIdentity(current, account: key)
            let metadata = try await metadata(for: key)
            guard let runtime = accounts[key], runtime.machine.generation == generation else { throw .cancelled }
            answer = try await oidcClient(for: runtime.configuration).refresh(
                tokens, narrowedTo: cacheKey.narrowing, metadata: metadata, client: runtime.client,
                previousSubject: runtime.subject)
        } catch {
            log.warning("the narrowed refresh failed: \(error)")
            // The caller's error only: the account keeps its state and tokens (a provider refuses a
            // narrowing for consent or policy); after invalid_grant the machine checks the refresh
            // token with a plain refresh, whose own rejection signs the account out.
            event(key) { machine, now in
                machine.narrowedRefreshRefused(invalidGrant: error.isInvalidGrant, generation: generation, now: now)
            }
            throw fail(Self.narrowedFailure(error, account: key.name))
        }
        counters.narrowedRefresh()
        try await adoptRotatedRefreshToken(answer, spent: tokens, generation: generation, account: key)
        let policy = options.refreshPolicy
        let expiry = policy.effectiveExpiry(of: answer)
        var minted = answer
        (minted.refreshToken, minted.idToken) = (nil, nil)
        let time = now()
        let entry = NarrowedTokenCache.Entry(
            tokens: minted, generation: generation, expiresAt: expiry,
            refreshAt: expiry.map { $0 - policy.margin(lifetime: policy.lifetime(of: answer) ?? 0) } ?? .infinity,
            lastRequestedAt: time)
        narrowed.store(entry, for: cacheKey)
        counters.narrowedKeys(narrowed.count(account: key), account: key)
        counters.tokensServed(1)
        return entry.grant
    }

    /// The narrowed answer's refresh token, when the provider rotated it, becomes the account's:
    /// committed to the vault first (a kill after the answer must not lose it), then the machine
    /// hears of it (`refreshTokenRotated`) so the next refresh presents it.
    private func adoptRotatedRefreshToken(_ answer: TokenSet, spent: TokenSet, generation: UInt64, account key: AccountKey)
        async throws(WireError)
    {
        guard let rotated = answer.refreshToken, rotated != spent.refreshToken,
            var tokens = accounts[key]?.machine.currentTokens
        else { return }
        tokens.refreshToken = rotated
        let status = accounts[key]?.status ?? TokenStatus()
        let kept = await persist(tokens, status: status, account: key)
        guard accounts[key]?.machine.generation == generation else {
            throw fail(WireError(code: .conflict, message: "Account '\(key.name)' changed during the request; ask again."))
        }
        event(key) { [tokens] machine, now in
            machine.refreshTokenRotated(rotated, saved: tokens, kept: kept, generation: generation, now: now)
        }
        // Kept in memory (the machine's next save retries): serving on would hide a failing disk.
        guard kept != nil else {
            throw fail(
                WireError(
                    code: .storageFailed,
                    message: "The rotated refresh token of '\(key.name)' could not be saved; free disk space and try again."))
        }
    }

    /// `scope_narrowing_unsafe` unless the account (or its preset) declares narrowing safe;
    /// `narrowing_not_allowed` for a resource or audience not on the account's allow-list
    /// (`narrow_resources`, `narrow_audiences`; none by default), before anything is spent.
    private func checkNarrowingAllowed(_ runtime: AccountRuntime, _ narrowing: TokenNarrowing) throws(WireError) {
        let name = runtime.name
        guard runtime.configuration.allowNarrowing == true else {
            throw fail(
                WireError(
                    code: .scopeNarrowingUnsafe,
                    message: "Narrowed tokens for '\(name)' are off: a narrowed refresh spends the account's refresh token, "
                        + "and some providers then keep only the narrowed scope for good. If this provider keeps the "
                        + "original grant (RFC 6749 §6), set \"allow_narrowing\": true on the account (authctl account apply, "
                        + "or add it again with --allow-narrowing)."))
        }
        guard runtime.configuration.tokenRequestFormat != .json else {
            throw fail(
                WireError(
                    code: .invalidRequest,
                    message: "The provider of '\(name)' takes no scope or resource on refresh (JSON token requests)."))
        }
        if let refusal = Self.narrowingRefusal(narrowing, configuration: runtime.configuration) { throw fail(refusal) }
    }

    /// `narrowing_not_allowed` naming the first resource or audience of `narrowing` that the
    /// account does not list, and the flag that allows it; nil when all are listed.
    static func narrowingRefusal(_ narrowing: TokenNarrowing, configuration: AccountConfiguration) -> WireError? {
        let name = configuration.name
        let resources = configuration.narrowResources ?? []
        let audiences = configuration.narrowAudiences ?? []
        let (what, value, flag, listed): (String, String, String, [String])
        if let resource = narrowing.resources.first(where: { !resources.contains($0) }) {
            (what, value, flag, listed) = ("resource", resource, "--allow-resource", resources)
        } else if let audience = narrowing.audience, !audiences.contains(audience) {
            (what, value, flag, listed) = ("audience", audience, "--allow-audience", audiences)
        } else {
            return nil
        }
        let allowed = listed.isEmpty ? "none" : listed.joined(separator: " ")
        return WireError(
            code: .narrowingNotAllowed,
            message: "Account '\(name)' does not allow narrowed tokens for \(what) \(value) (allowed: \(allowed)). "
                + "Allow it with: authctl account update \(name) \(flag) \(value) (the option replaces the list: "
                + "repeat it for each \(what) to keep)")
    }

    /// Every scope the narrowed refresh will send must be in the account's grant (as the provider
    /// stated it, else as configured): narrowing never widens. The check runs on the request's final
    /// scope list (`OIDCClient.narrowedRequest`), so on Entra the derived `RESOURCE/.default` is
    /// checked too: it counts as granted when it is in the grant itself, or when RESOURCE is on the
    /// account's `narrow_resources` (the owner allowed tokens for it; Entra's consent decides the
    /// rest, and its refusal is `narrowing_refused`, never a sign-out). The configured scopes a
    /// resource-only request restates elsewhere are the account's own request, not the caller's.
    private func checkGranted(_ narrowing: TokenNarrowing, tokens: TokenSet, runtime: AccountRuntime) throws(WireError) {
        let granted = Set(tokens.scope.map { $0.split(separator: " ").map(String.init) } ?? runtime.configuration.scopes)
        let missing = Self.ungrantedScopes(
            narrowing, granted: granted, configuration: runtime.configuration, configuredScopes: runtime.client.scopes)
        guard !missing.isEmpty else { return }
        let name = runtime.name
        throw fail(
            WireError(
                code: .scopeNotGranted,
                message: "Account '\(name)' was not granted \(missing.joined(separator: " ")) (granted: "
                    + "\(granted.sorted().joined(separator: " "))). Ask for a subset, or configure the scope and log in again: "
                    + "authctl login \(name)"))
    }

    /// The scopes of the narrowed request as sent that `granted` does not cover (see `checkGranted`).
    static func ungrantedScopes(
        _ narrowing: TokenNarrowing, granted: Set<String>, configuration: AccountConfiguration, configuredScopes: [String]
    ) -> [String] {
        let request = OIDCClient.narrowedRequest(narrowing, issuer: configuration.issuer, configuredScopes: configuredScopes)
        let sent = request.scope.map { $0.split(separator: " ").map(String.init) } ?? []
        var covered = granted.union((configuration.narrowResources ?? []).map { OIDCClient.entraDefaultScope(of: $0) })
        if narrowing.scopes.isEmpty { covered.formUnion(configuredScopes) }
        return sent.filter { !covered.contains($0) }
    }

    /// Spends one of `key`'s narrowed refreshes, or `rate_limited` (429, Retry-After) when the
    /// account's budget is used up (`NarrowedRefreshBudget`).
    private func spendNarrowedRefresh(_ key: AccountKey) throws(WireError) {
        guard let wait = narrowedBudget.spend(key, now: now()) else { return }
        throw fail(
            WireError(
                code: .rateLimited,
                message: "Too many new narrowed tokens for '\(key.name)' (each spends a refresh): try again in \(wait) s; "
                    + "tokens already minted are still served.",
                retryAfter: wait))
    }

    /// Drops `key`'s expired narrowed tokens and keeps the gauge in step.
    func pruneNarrowed(_ key: AccountKey, now time: Double) {
        narrowed.prune(now: time)
        counters.narrowedKeys(narrowed.count(account: key), account: key)
    }

    /// Forgets `key`'s narrowed tokens (no tokens, logged out, removed).
    func forgetNarrowed(_ key: AccountKey) {
        guard narrowed.count(account: key) > 0 else { return }
        narrowed.remove(account: key)
        counters.narrowedKeys(0, account: key)
    }

    /// Waits for `key`'s refresh lease (see `RefreshLeases`).
    func acquireRefreshLease(_ key: AccountKey) async {
        if refreshLeases.tryAcquire(key) { return }
        await withCheckedContinuation { continuation in refreshLeases.enqueue(key, continuation) }
    }

    func releaseRefreshLease(_ key: AccountKey) {
        refreshLeases.release(key)?.resume()
    }

    /// A failed narrowed refresh for the caller. A refusal of the narrowed request — `invalid_scope`,
    /// RFC 8707's `invalid_target`, or a grant rejection (`invalid_grant`: Entra's AADSTS65001
    /// consent, `consent_required`, `interaction_required`) — is that caller's error only and never
    /// signs the account out; only the account's own plain refresh can (`narrowedRefreshRefused`).
    static func narrowedFailure(_ error: OIDCError, account name: String) -> WireError {
        if case .oauthError(let answer, _, _) = error, answer.error == "invalid_target" || answer.error == "invalid_scope" {
            return WireError(code: .invalidRequest, message: "The provider refused the narrowed token for '\(name)': \(error)")
        }
        if error.rejectsGrant {
            return WireError(
                code: .narrowingRefused,
                message: "The provider refused the narrowed token for '\(name)' (\(error)). The account is unchanged and "
                    + "its own token is still served; grant that scope or resource at the provider, or ask without it.")
        }
        switch error.refreshDisposition {
        case .terminal:
            return WireError(
                code: .narrowingRefused, message: "The provider did not give a narrowed token for '\(name)' (\(error)).")
        case .transient:
            return WireError(
                code: .providerUnavailable,
                message: "The provider did not give a narrowed token for '\(name)' (\(error)); try again.")
        }
    }
}
