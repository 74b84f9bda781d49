import BrokerHTTP
import Foundation

// `revocationRequiresDPoP`: revoking a DPoP-bound token takes a proof of its key, the way Okta's
// `/revoke` does for DPoP-bound access and refresh tokens. RFC 7009 itself says nothing about
// DPoP; RFC 9449 §5 puts proofs on requests to the authorization server's token endpoint.
extension MockProvider {
    /// The 400 answer when `token` is DPoP-bound and the request carries no valid proof of its key
    /// for this endpoint; nil when the revocation may go ahead (unbound, unknown, or proved).
    func revocationDPoPRefusal(_ request: HTTPRequest, token: String) -> HTTPResponse? {
        guard configuration.dpop != .off, configuration.revocationRequiresDPoP, let bound = boundKey(of: token) else {
            return nil
        }
        let refusal: MockDPoPRefusal
        switch verifyDPoPProof(request) {
        case .success(let proof) where proof.jkt == bound: return nil
        case .success:
            refusal = .wrongKey
            state.withLock { $0.stats.dpopProofsRefused[refusal.rawValue, default: 0] += 1 }
        case .failure(let reason): refusal = reason  // counted by verifyDPoPProof
        }
        let body = ["error": refusal.error, "error_description": "DPoP proof refused at revocation: \(refusal.rawValue)"]
        return MockResponse.json(body, status: 400, headers: dpopNonceHeader(resource: false))
    }

    /// The thumbprint a refresh token's family or an access token is bound to.
    private func boundKey(of token: String) -> String? {
        state.withLock { state in
            state.refreshTokens[token].flatMap { state.families[$0.family].jkt } ?? state.accessTokens[token]?.jkt
        }
    }
}
