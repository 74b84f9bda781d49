import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Refreshes, revocation and provider metadata: the network side of the actions.
extension TokenBroker {
    /// `startRefresh`: calls the token endpoint, commits the answer, then reports to the machine.
    /// The generation is checked after every await; a stale answer is reported anyway and the
    /// machine drops it (revoking its tokens), but it is never committed. A refresh in flight at
    /// shutdown is drained, not cancelled: its answer carries the refresh token the provider now
    /// considers current, so it is committed before the daemon exits.
    func refresh(_ key: AccountKey, generation: UInt64, attempt: Int) async {
        guard let runtime = accounts[key], case .refreshing(let old, _) = runtime.machine.state else { return }
        let log = logger.with(key).with(["attempt": String(attempt)])
        log.info("refreshing the access token")
        let timing = AnswerTiming()
        let result: Result<TokenSet, OIDCError>
        do throws(OIDCError) {
            let metadata = try await metadata(for: key)
            guard let client = accounts[key]?.client else { return }
            // The JWKS (after a start) is fetched beside the token request, not after its answer:
            // verifying the ID token is inside the window where the provider has rotated and
            // nothing is committed yet.
            async let keysReady: Void = prefetchKeys(for: old, metadata: metadata)
            result = await AnswerTiming.$current.withValue(timing) {
                do throws(OIDCError) {
                    return .success(try await oidc.refresh(old, metadata: metadata, client: client))
                } catch {
                    return .failure(error)
                }
            }
            await keysReady
        } catch {
            result = .failure(error)
        }
        // Cancelled: the shutdown's drain bound passed; the vault may already be closed.
        guard !Task.isCancelled, accounts[key] != nil else { return }
        switch result {
        case .success(let tokens):
            let time = now()
            var stored = false
            if isRefreshCurrent(key, generation: generation) {
                let status = TokenStatus(lastRefreshAt: time, subject: accounts[key]?.subject)
                let commitStart = ContinuousClock.now
                stored = await persist(tokens, status: status, account: key)
                // The daemon's share of the window in which a kill loses the rotated refresh token.
                log.debug("refresh answer committed", [
                    "answer_to_commit_ms": timing.sinceArrival?.milliseconds ?? "unknown",
                    "commit_ms": (ContinuousClock.now - commitStart).milliseconds, "stored": String(stored),
                ])
            }
            counters.refresh(.success)
            let expiry = options.refreshPolicy.effectiveExpiry(of: tokens).map { RFC3339.format(unixSeconds: $0) }
            log.info("access token refreshed", ["expires_at": expiry ?? "unknown"])
            event(key, at: time) { machine, now in
                let actions = machine.refreshSucceeded(tokens, generation: generation, now: now)
                return stored ? actions + machine.tokensStored(tokens, now: now) : actions
            }
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

    /// Warms the JWKS cache when the answer will carry an ID token to verify (best effort).
    nonisolated func prefetchKeys(for tokens: TokenSet, metadata: ProviderMetadata) async {
        guard tokens.idToken != nil, let keys = try? oidc.keySource(for: metadata) else { return }
        await keys.prefetch()
    }

    /// Whether a refresh started under `generation` is still the one the machine waits for.
    func isRefreshCurrent(_ key: AccountKey, generation: UInt64) -> Bool {
        guard let machine = accounts[key]?.machine, machine.generation == generation,
            case .refreshing(_, let attempt) = machine.state, case .inFlight = attempt.phase
        else { return false }
        return true
    }

    /// The engine's error classified for the state machine.
    static func refreshFailure(_ error: OIDCError) -> AccountStateMachine.RefreshFailure {
        switch error.disposition {
        case .terminal:
            return .terminal(message: error.description)
        case .transient(let retryAfter):
            let seconds = retryAfter.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            return .transient(message: error.description, retryAfter: seconds)
        }
    }

    /// Revokes `tokens` at the provider, best effort: (revoked, note for people). Never throws.
    func revoke(_ tokens: TokenSet, account key: AccountKey) async -> (revoked: Bool, note: String?) {
        let metadata: ProviderMetadata
        do throws(OIDCError) {
            metadata = try await self.metadata(for: key)
        } catch {
            return (false, "the provider could not be reached: \(error)")
        }
        guard metadata.revocationEndpoint != nil, let client = accounts[key]?.client else {
            return (false, "the provider has no revocation endpoint")
        }
        let results: [RevocationResult]
        do throws(OIDCError) {
            results = try await oidc.revoke(tokens, metadata: metadata, client: client)
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

    /// The account's provider metadata through the discovery cache policy (24 h; the last good copy
    /// is served with a warning when a refetch fails). New documents are stored in the vault.
    func metadata(for key: AccountKey) async throws(OIDCError) -> ProviderMetadata {
        guard let runtime = accounts[key] else { throw .cancelled }
        if runtime.manualEndpoints != nil, let cached = runtime.metadata { return cached.metadata }
        let configuration = runtime.configuration
        let outcome = try await oidc.discover(
            issuer: configuration.issuer, source: configuration.providerSource, cached: runtime.metadata)
        if let warning = outcome.warning { logger.with(key).warning(warning) }
        if outcome.isNew { adopt(outcome.cached, for: configuration) }
        return outcome.metadata
    }

    /// Keeps freshly fetched metadata: in memory for every account that reads the same document
    /// for the same issuer, and in the vault under both. Never for an account of another source.
    func adopt(_ cached: CachedProviderMetadata, for configuration: BrokerProtocol.AccountConfiguration) {
        let issuer = configuration.issuer
        guard let documentURL = cached.documentURL, cached.belongs(issuer: issuer, documentURL: configuration.metadataDocumentURL)
        else { return }
        for (key, runtime) in accounts
        where runtime.configuration.issuer == issuer && runtime.configuration.metadataDocumentURL == documentURL {
            accounts[key]?.metadata = cached
            accounts[key]?.client = runtime.configuration.clientConfiguration(
                secret: runtime.clientSecret, metadata: cached.metadata)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let json = try? encoder.encode(cached.metadata) else { return }
        let document = CachedDocument(
            json: String(decoding: json, as: UTF8.self), fetchedAt: cached.fetchedAt.timeIntervalSince1970)
        let logger = logger
        worker.enqueue({ try $0.storeProviderMetadata(document, issuer: issuer, documentURL: documentURL) }) { error in
            logger.warning("cannot cache the provider metadata: \(error)", ["issuer": issuer])
        }
    }
}
