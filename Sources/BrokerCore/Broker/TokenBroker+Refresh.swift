import BrokerProtocol
import BrokerStore
import FoundationEssentials
import WireFormats

// Refreshes, revocation and provider metadata: the network side of the actions.
extension TokenBroker {
    /// `startRefresh`: calls the token endpoint, commits the answer, then reports to the machine.
    /// The generation is checked after every await; a stale answer is reported anyway and the
    /// machine drops it (revoking its tokens), but it is never committed. A refresh in flight at
    /// shutdown is drained, not cancelled: its answer carries the refresh token the provider now
    /// considers current, so it is committed before the daemon exits.
    func refresh(_ key: AccountKey, generation: UInt64, attempt: Int) async {
        // After a narrowed refresh that holds the lease, `old` below is the set with its rotated token.
        await acquireRefreshLease(key)
        defer { releaseRefreshLease(key) }
        guard let runtime = accounts[key], case .refreshing(let current, _) = runtime.machine.state else { return }
        let log = logger.with(key).with(["attempt": String(attempt)])
        log.info("refreshing the access token")
        let timing = AnswerTiming()
        let result: Result<RefreshedTokens, OIDCError>
        do throws(OIDCError) {
            let old = try await readingIDTokenIdentity(current, account: key)
            let metadata = try await metadata(for: key)
            // The awaits above let other work run: a logout, a new login or a security-relevant
            // change moved the generation on, and this refresh token is no longer the account's.
            guard let runtime = accounts[key], runtime.machine.generation == generation else { return }
            let (client, subject, oidc) = (runtime.client, runtime.subject, oidcClient(for: runtime.configuration))
            let exchange = { () async -> Result<RefreshedTokens, OIDCError> in
                await AnswerTiming.$current.withValue(timing) {
                    do throws(OIDCError) {
                        return .success(
                            try await oidc.refreshKeepingIdentity(
                                old, metadata: metadata, client: client, previousSubject: subject))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            // The JWKS (after a start) is fetched beside the token request, not after its answer:
            // verifying the ID token is inside the window where the provider has rotated and
            // nothing is committed yet. A fresh set needs no child task (`hasFreshKeys`).
            if let keys = keysToPrefetch(for: old, metadata: metadata, with: oidc) {
                async let keysReady: Void = keys.prefetch()
                result = await exchange()
                await keysReady
            } else {
                result = await exchange()
            }
        } catch {
            result = .failure(error)
        }
        // Cancelled: the shutdown's drain bound passed; the vault may already be closed.
        guard !Task.isCancelled, accounts[key] != nil else { return }
        switch result {
        case .success(let refreshed) where committingLogins.contains(key):
            let tokens = refreshed.tokens
            // A login's tokens are being committed: they replace these. Committed after them, these
            // would put another grant in the row beside the login's; dropped, the machine retries.
            background { broker in _ = await broker.revoke(tokens, account: key) }
            log.info("a login is being saved: this refresh's tokens are dropped")
            let failure = AccountStateMachine.RefreshFailure.transient(
                message: "a new login replaced the tokens", retryAfter: nil)
            event(key) { machine, now in machine.refreshFailed(failure, generation: generation, now: now) }
        case .success(let refreshed):
            let (tokens, time) = (refreshed.tokens, now())
            var kept: TokenSet?
            if isRefreshCurrent(key, generation: generation) {
                let status = TokenStatus(lastRefreshAt: time, subject: accounts[key]?.subject)
                let commitStart = ContinuousClock.now
                kept = await persist(tokens, status: status, account: key, identity: refreshed.newIDTokenIdentity)
                // The daemon's share of the window in which a kill loses the rotated refresh token.
                log.debug(
                    "refresh answer committed",
                    [
                        "answer_to_commit_ms": timing.sinceArrival?.milliseconds ?? "unknown",
                        "commit_ms": (ContinuousClock.now - commitStart).milliseconds, "stored": String(kept != nil),
                    ])
            }
            counters.refresh(.success)  // before the event: a served caller may read the metrics at once
            event(key, at: time) { [kept] machine, now in
                let actions = machine.refreshSucceeded(kept ?? tokens, generation: generation, now: now)
                return kept.map { actions + machine.tokensStored($0, now: now) } ?? actions
            }
            // After the event, which answers the callers waiting for this refresh: not in their way.
            let expiry = options.refreshPolicy.effectiveExpiry(of: tokens).map { RFC3339.format(unixSeconds: $0) }
            log.info("access token refreshed", ["expires_at": expiry ?? "unknown"])
        case .failure(let error):
            let failure = Self.refreshFailure(error)
            if case .terminal = failure {
                counters.refresh(.terminal)
                log.warning("the provider rejected the refresh: \(error)")
            } else {
                counters.refresh(.transient)
                log.warning("refresh failed, will retry: \(error)")
            }
            event(key) { machine, now in machine.refreshFailed(failure, generation: generation, now: now) }
        }
    }

    /// The JWKS cache to warm beside the token request: one whose set is missing or expired, when
    /// the answer will carry an ID token to verify (best effort: nil when there is nothing to do).
    nonisolated func keysToPrefetch(for tokens: TokenSet, metadata: ProviderMetadata, with oidc: OIDCClient) -> JWKSCache? {
        guard tokens.idToken != nil, let keys = try? oidc.keySource(for: metadata), !keys.hasFreshKeys else { return nil }
        return keys
    }

    /// Whether a refresh started under `generation` is still the one the machine waits for.
    func isRefreshCurrent(_ key: AccountKey, generation: UInt64) -> Bool {
        guard let machine = accounts[key]?.machine, machine.generation == generation,
            case .refreshing(_, let attempt) = machine.state, case .inFlight = attempt.phase
        else { return false }
        return true
    }

    /// The engine's error classified for the state machine (`OIDCError.refreshDisposition`: only a
    /// real grant rejection deletes the tokens).
    static func refreshFailure(_ error: OIDCError) -> AccountStateMachine.RefreshFailure {
        switch error.refreshDisposition {
        case .terminal:
            return .terminal(message: error.description)
        case .transient(let retryAfter):
            let seconds = retryAfter.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            return .transient(message: error.description, retryAfter: seconds)
        }
    }
}
