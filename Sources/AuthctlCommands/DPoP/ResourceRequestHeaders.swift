import BrokerProtocol

/// The header lines that authorize one request to a resource server: `Authorization: Bearer AT`
/// for a Bearer account; `Authorization: DPoP AT` and `DPoP: PROOF` (RFC 9449 §7.1) for a DPoP
/// account, the proof signed by the daemon for `method`, `url` and the server's `nonce`.
struct ResourceRequestHeaders: Equatable {
    var lines: [String]
    /// True when the lines carry a proof (a nonce retry can help).
    var isDPoP: Bool

    /// Asks the daemon: the token first (it says whether the account uses DPoP), then, for a DPoP
    /// account, a proof, whose answer carries the token it binds (the one to send). The request's
    /// narrowing (`--scope`…) applies to both: a narrowed token, bound to the account's key.
    static func fetch(
        account: String, request: DPoPProofRequest, minTTL: Int?, context: CommandContext
    ) throws -> ResourceRequestHeaders {
        if let problem = request.problem { throw UsageError(problem) }
        let query = minTTL.map { [APIQueryParameter.minTTL: $0] } ?? [:]
        let narrowing: TokenNarrowing
        do throws(NarrowingError) { narrowing = try request.narrowing() } catch { throw UsageError(error.description) }
        let grant = try context.client.call(.token(account: account), query: query, narrowing: narrowing)
        guard grant.isDPoP else {
            return ResourceRequestHeaders(lines: ["Authorization: Bearer \(grant.accessToken)"], isDPoP: false)
        }
        let proof = try context.client.call(.dpopProof(account: account), body: request)
        return ResourceRequestHeaders(lines: ["Authorization: DPoP \(proof.accessToken)", "DPoP: \(proof.proof)"], isDPoP: true)
    }
}
