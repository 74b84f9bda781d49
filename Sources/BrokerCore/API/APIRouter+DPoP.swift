import BrokerHTTP
import BrokerProtocol
import WireFormats

extension APIRouter {
    /// The largest `dpop-proof` body: a URL of 8 KiB, a nonce, a method and the JSON around them.
    static let maximumDPoPProofBody = 10 * 1024

    /// `POST /v1/accounts/{name}/dpop-proof` on the connection thread (`handleImmediately`): bad
    /// bodies and caller-policy refusals are answered here, and a proof is signed here when the
    /// account's token may be served from memory (`BrokerService.cachedDPoPProof`). nil hands the
    /// request to `answerDPoPProof` (a refresh is due, approval is awaited, no tokens…).
    /// Why: the actor path's hops cost more than the signature (docs/BENCHMARKS.md, "DPoP proofs").
    func immediateDPoPProof(_ account: AccountKey, request: HTTPRequest, peer: PeerCredentials) -> HTTPResponse? {
        let body: DPoPProofRequest
        let target: AbsoluteURL
        do throws(WireError) {
            (body, target) = try Self.proofRequest(account, request)
            try checkRestrictedNarrowing(try Self.narrowing(of: body))
        } catch {
            return Self.errorResponse(error)
        }
        switch callerCheck(account, peer: peer) {
        case .refuse(let refusal): return Self.errorResponse(refusal)
        case .askApproval: return nil
        case .serve(let caller):
            guard let grant = service.cachedDPoPProof(account: account, request: body, target: target, now: now()) else {
                return nil
            }
            return proofServed(grant, body, origin: target.origin, account: account, peer: peer, caller: caller)
        }
    }

    /// The actor path of `POST /v1/accounts/{name}/dpop-proof`: checks the body before the broker
    /// signs anything, applies the account's caller policy (waiting for an approval if needed), and
    /// may wait for a refresh.
    func answerDPoPProof(account: AccountKey, request: HTTPRequest, peer: PeerCredentials) async throws(WireError)
        -> HTTPResponse
    {
        let (body, target) = try Self.proofRequest(account, request)
        let narrowing = try Self.narrowing(of: body)
        try checkRestrictedNarrowing(narrowing)
        // The answer carries the access token: the account's caller policy applies as to the token route.
        let caller = try await admittedCaller(account, peer: peer)
        let grant = try await service.dpopProof(account: account, request: body)
        return proofServed(grant, body, origin: target.origin, account: account, peer: peer, caller: caller, narrowing: narrowing)
    }

    /// The proof request's narrowing (checked already by `proofRequest`; refused again if not).
    private static func narrowing(of body: DPoPProofRequest) throws(WireError) -> TokenNarrowing {
        guard body.scope != nil || body.resource != nil || body.audience != nil else { return .none }
        do throws(NarrowingError) {
            return try body.narrowing()
        } catch {
            throw WireError(code: .invalidRequest, message: error.description)
        }
    }

    /// The decoded body and its URL, parsed once (its origin for the audit line, its `htu` for the
    /// proof), refused (`DPoPProofRequest.checkedTarget`) before anything is signed.
    private static func proofRequest(_ account: AccountKey, _ request: HTTPRequest)
        throws(WireError) -> (DPoPProofRequest, target: AbsoluteURL)
    {
        guard request.body.count <= maximumDPoPProofBody else {
            throw WireError(
                code: .invalidRequest,
                message:
                    "The proof request is larger than \(maximumDPoPProofBody) bytes; shorten the URL (at most \(DPoPProofRequest.maximumURLLength) bytes)."
            )
        }
        let body = try RouterBody.required(
            .dpopProof(account: account.name), from: request, plain: DPoPProofRequest.init(plainJSON:))
        switch body.checkedTarget() {
        case .success(let target): return (body, target)
        case .failure(let problem): throw WireError(code: .invalidRequest, message: problem.description)
        }
    }

    /// Audits the method and the URL's origin (never the proof or the token) and answers `no-store`
    /// like the token route: both are credentials.
    private func proofServed(
        _ grant: DPoPProofGrant, _ body: DPoPProofRequest, origin: String, account: AccountKey, peer: PeerCredentials,
        caller: ProcessIdentity?, narrowing: TokenNarrowing = .none
    ) -> HTTPResponse {
        audit(
            "dpop_proof", account: account, peer: peer, caller: caller, ["method": body.method, "origin": origin],
            narrowing: narrowing)
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")]),
            body: WireJSON.serialize(grant.jsonValue))
    }
}
