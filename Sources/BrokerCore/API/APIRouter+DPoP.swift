import BrokerHTTP
import BrokerProtocol

extension APIRouter {
    /// The largest `dpop-proof` body: a URL of 8 KiB, a nonce, a method and the JSON around them.
    static let maximumDPoPProofBody = 10 * 1024

    /// `POST /v1/accounts/{name}/dpop-proof`: checks the body (`DPoPProofRequest.problem`) before
    /// the broker signs anything, applies the account's caller policy, audits the method and the URL's origin (never the proof or the
    /// token), and answers `no-store` like the token route: both are credentials.
    func answerDPoPProof(account: AccountKey, request: HTTPRequest, peer: PeerCredentials) async throws(WireError)
        -> HTTPResponse
    {
        guard request.body.count <= Self.maximumDPoPProofBody else {
            throw WireError(
                code: .invalidRequest,
                message: "The proof request is larger than \(Self.maximumDPoPProofBody) bytes; shorten the URL (at most \(DPoPProofRequest.maximumURLLength) bytes).")
        }
        let body = try RouterBody.required(.dpopProof(account: account.name), from: request)
        if let problem = body.problem { throw WireError(code: .invalidRequest, message: problem) }
        let origin = (try? DPoPProofRequest.origin(of: body.url).get()) ?? "?"
        // The answer carries the access token: the account's caller policy applies as to the token route.
        let caller = try await admittedCaller(account, peer: peer)
        let grant = try await service.dpopProof(account: account, method: body.method, url: body.url, nonce: body.nonce)
        audit("dpop_proof", account: account, peer: peer, caller: caller, ["method": body.method, "origin": origin])
        var response = try Self.json(.dpopProof(account: account.name), grant)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
