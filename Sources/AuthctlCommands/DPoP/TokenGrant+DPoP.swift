import BrokerProtocol

extension TokenGrant {
    /// A DPoP-bound token (RFC 9449 §7.1: `token_type` is case-insensitive): a resource server
    /// accepts it only with a proof signed by the daemon's key for that very request.
    var isDPoP: Bool { tokenType.lowercased() == "dpop" }

    /// This grant for an adapter that can hand over only a bare token (git's password, kubectl's
    /// ExecCredential, an environment variable): refused for a DPoP account, whose token is useless
    /// there without a per-request proof — and a proof cannot be made in advance for requests the
    /// adapter's program will send later.
    func bareToken(account: String, adapter: String) throws(DPoPAdapterRefusal) -> String {
        guard !isDPoP else { throw DPoPAdapterRefusal(account: account, adapter: adapter) }
        return accessToken
    }
}

/// Why an adapter refuses a DPoP account, saying what to use instead (exit 1).
struct DPoPAdapterRefusal: Error, Equatable, CustomStringConvertible {
    let account: String
    let adapter: String

    var description: String {
        "'\(account)' uses DPoP: its token works only with a proof for each request, which \(adapter) cannot send; "
            + "use 'authctl curl \(account) URL', 'authctl header \(account) --method M --url URL', "
            + "or POST /v1/accounts/\(account)/dpop-proof (docs/dpop.md)"
    }
}
