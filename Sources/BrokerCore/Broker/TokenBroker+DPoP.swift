import BrokerCrypto
import BrokerProtocol
import BrokerStore

// Proofs for resource requests (RFC 9449 §7): the caller gets the DPoP-bound access token and a
// proof for one method + URL, signed with the account's key; the key itself never leaves here.
extension TokenBroker {
    /// A proof for a resource request with the account's current DPoP-bound access token
    /// (refreshing first when it is due, like token(account:minTTL:)). Throws WireError
    /// (`not_dpop` 409 when the account is not a DPoP account; the usual login_required etc.).
    public func dpopProof(account: AccountKey, method: String, url: String, nonce: String?) async throws(WireError)
        -> DPoPProofGrant
    {
        guard let runtime = accounts[account] else { throw unknownAccount(account) }
        guard runtime.configuration.dpop == true else {
            throw fail(WireError(
                code: .notDPoP,
                message: "Account '\(account.name)' does not use DPoP; its tokens are Bearer tokens. Use: authctl token "
                    + "\(account.name) (or set it up with: authctl account update \(account.name) --dpop)"))
        }
        // A refresh may finish between the grant and reading the set: take a consistent pair.
        for _ in 0..<2 {
            let grant = try await token(account: account, minTTL: nil)
            guard let tokens = accounts[account]?.machine.currentTokens,
                tokens.accessToken.revealString() == grant.accessToken
            else { continue }
            return try proofGrant(grant, tokens: tokens, account: account, method: method, url: url, nonce: nonce)
        }
        throw fail(WireError(
            code: .providerUnavailable,
            message: "The tokens of '\(account.name)' changed while a proof was being made. Try again."))
    }

    private func proofGrant(
        _ grant: TokenGrant, tokens: TokenSet, account: AccountKey, method: String, url: String, nonce: String?
    ) throws(WireError) -> DPoPProofGrant {
        guard let key = tokens.dpopKey else {
            // Tokens from before `--dpop` was set are dropped by the profile change; this is a guard.
            throw fail(WireError(
                code: .loginRequired,
                message: "Account '\(account.name)' has no DPoP key yet. Log in with: authctl login \(account.name)"))
        }
        do {
            let proof = try DPoPProof(
                key: key, method: method, url: url, issuedAt: Int(now()), nonce: nonce, accessToken: tokens.accessToken)
            return DPoPProofGrant(accessToken: grant.accessToken, tokenType: "DPoP", proof: proof.compact, expiresAt: grant.expiresAt)
        } catch {
            throw fail(WireError(code: .invalidRequest, message: error.description))
        }
    }
}
