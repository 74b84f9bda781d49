import BrokerProtocol

// Until the engine side (TokenBroker+DPoP.swift, branch dpop-engine) lands, an implementation that
// refuses: a conforming service without DPoP signs nothing (fail closed). Delete this file when
// TokenBroker implements `dpopProof` itself.
extension BrokerService {
    public func dpopProof(account: AccountKey, method: String, url: String, nonce: String?) async throws(WireError)
        -> DPoPProofGrant
    {
        throw WireError(
            code: .invalidRequest,
            message: "This daemon cannot sign DPoP proofs yet; use 'authctl token \(account.name)' for a Bearer token.")
    }
}
