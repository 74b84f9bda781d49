import BrokerCrypto
import BrokerProtocol
import BrokerStore
import WireFormats

// Proofs for resource requests (RFC 9449 §7): the caller gets the DPoP-bound access token and a
// proof for one method + URL, signed with the account's key; the key itself never leaves here.
extension TokenBroker {
    /// The fast path of `POST …/dpop-proof`, on the connection thread with no actor hop (like
    /// `cachedToken`): a proof with the cached token's key while that token may be served from
    /// memory. nil means "ask `dpopProof`" (refresh due, no tokens, not a DPoP account, unknown…).
    /// The key is the parsed `ECSigningKey` the cache holds: nothing is read or opened per proof.
    public nonisolated func cachedDPoPProof(
        account: AccountKey, request: DPoPProofRequest, target: AbsoluteURL, now: Double
    ) -> DPoPProofGrant? {
        // A key in the tokens means a DPoP account: turning DPoP off changes the security
        // profile, which logs the account out and empties this entry.
        // A narrowed token is minted and cached by the actor (`dpopProof`).
        guard request.scope == nil, request.resource == nil, request.audience == nil,
            let entry = cache.servable(account: account, now: now), entry.tokens.dpopKey != nil,
            entry.proofRefusals.allows(target)  // else refused, with its reason, by `dpopProof`
        else { return nil }
        return try? Self.signedProof(
            entry.grant, tokens: entry.tokens, request: request, target: target, issuedAt: Int(now),
            accessTokenHash: entry.accessTokenHash)
    }

    /// `cachedDPoPProof` of a request whose URL is not parsed yet (nil when it does not parse).
    public nonisolated func cachedDPoPProof(account: AccountKey, request: DPoPProofRequest, now: Double) -> DPoPProofGrant? {
        guard case .success(let target) = request.checkedTarget() else { return nil }
        return cachedDPoPProof(account: account, request: request, target: target, now: now)
    }

    /// A proof for a resource request with the account's current DPoP-bound access token
    /// (refreshing first when it is due, like token(account:minTTL:)). Throws WireError
    /// (`not_dpop` 409 when the account is not a DPoP account; the usual login_required etc.).
    public func dpopProof(account: AccountKey, request: DPoPProofRequest) async throws(WireError) -> DPoPProofGrant {
        guard let runtime = accounts[account] else { throw unknownAccount(account) }
        guard runtime.configuration.dpop == true else {
            throw fail(
                WireError(
                    code: .notDPoP,
                    message: "Account '\(account.name)' does not use DPoP; its tokens are Bearer tokens. Use: authctl token "
                        + "\(account.name) (or set \"dpop\": true for it with authctl account apply, then log in again)"))
        }
        let narrowing: TokenNarrowing
        do throws(NarrowingError) {
            narrowing = try request.narrowing()
        } catch {
            throw fail(WireError(code: .invalidRequest, message: error.description))
        }
        let target: AbsoluteURL
        do throws(DPoPError) {
            target = try DPoPTargetURI.parse(request.url)
        } catch {
            throw fail(WireError(code: .invalidRequest, message: error.description))
        }
        try await checkProofTarget(target, account: account)
        // A refresh may finish between the grant and reading the set: take a consistent pair.
        for _ in 0..<2 {
            let grant =
                narrowing.isEmpty
                ? try await token(account: account, minTTL: nil)
                : try await narrowedToken(account: account, narrowing: narrowing, minTTL: nil)
            guard let tokens = servedTokens(account, narrowing: narrowing), tokens.accessToken.revealString() == grant.accessToken
            else { continue }
            return try proofGrant(grant, tokens: tokens, account: account, request: request, target: target)
        }
        throw fail(
            WireError(
                code: .providerUnavailable,
                message: "The tokens of '\(account.name)' changed while a proof was being made. Try again."))
    }

    /// `invalid_request` for a URL at one of the account's authorization-server endpoints
    /// (`AuthorizationServerTargets`): a proof there with the token could redeem or refresh with
    /// the account's key. Without metadata in memory it is fetched (the check fails closed).
    private func checkProofTarget(_ url: AbsoluteURL, account: AccountKey) async throws(WireError) {
        let targets: AuthorizationServerTargets
        if let cached = accounts[account]?.metadata?.proofTargets {
            targets = cached
        } else {
            let metadata: ProviderMetadata
            do throws(OIDCError) {
                metadata = try await self.metadata(for: account)
            } catch {
                throw fail(
                    WireError(
                        code: .providerUnavailable,
                        message: "The provider metadata of '\(account.name)' is not available to check the proof's URL: \(error)")
                )
            }
            targets = AuthorizationServerTargets(metadata)
        }
        guard targets.contains(url) else { return }
        throw fail(
            WireError(
                code: .invalidRequest,
                message: "No proof is made for the authorization server of '\(account.name)' (its token, PAR, revocation, "
                    + "device-authorization, authorization or end-session endpoint): the daemon alone redeems and refreshes "
                    + "the account's grants. Ask for a proof for the resource server's URL."))
    }

    /// The set behind what `token`/`narrowedToken` just served: the account's own, or the narrowed
    /// key's (minted with a proof of the account's key, so bound to it, and voided by a new login).
    private func servedTokens(_ account: AccountKey, narrowing: TokenNarrowing) -> TokenSet? {
        guard let machine = accounts[account]?.machine else { return nil }
        guard !narrowing.isEmpty else { return machine.currentTokens }
        let entry = narrowed.entries[NarrowedTokenCache.Key(account: account, narrowing: narrowing)]
        return entry?.generation == machine.generation ? entry?.tokens : nil
    }

    private func proofGrant(
        _ grant: TokenGrant, tokens: TokenSet, account: AccountKey, request: DPoPProofRequest, target: AbsoluteURL
    ) throws(WireError) -> DPoPProofGrant {
        guard tokens.dpopKey != nil else {
            // Tokens from before `--dpop` was set are dropped by the profile change; this is a guard.
            throw fail(
                WireError(
                    code: .loginRequired,
                    message: "Account '\(account.name)' has no DPoP key yet. Log in with: authctl login \(account.name)"))
        }
        do throws(DPoPError) {
            return try Self.signedProof(grant, tokens: tokens, request: request, target: target, issuedAt: Int(now()))
        } catch {
            throw fail(WireError(code: .invalidRequest, message: error.description))
        }
    }

    /// The one place a resource proof is made, for both paths: `ath` of the token it is served with
    /// (`accessTokenHash`, the cache's, when it is that token's; hashed here otherwise).
    private nonisolated static func signedProof(
        _ grant: TokenGrant, tokens: TokenSet, request: DPoPProofRequest, target: AbsoluteURL, issuedAt: Int,
        accessTokenHash: String? = nil
    ) throws(DPoPError) -> DPoPProofGrant {
        guard let key = tokens.dpopKey else { throw .signingFailed(.invalidParameters("the tokens have no DPoP key")) }
        let proof = try DPoPProof(
            key: key, method: request.method, target: target, issuedAt: issuedAt, nonce: request.nonce,
            accessTokenHash: accessTokenHash ?? DPoPProof.accessTokenHash(tokens.accessToken))
        return DPoPProofGrant(accessToken: grant.accessToken, tokenType: "DPoP", proof: proof.compact, expiresAt: grant.expiresAt)
    }
}
