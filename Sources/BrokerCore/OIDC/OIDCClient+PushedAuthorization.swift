import BrokerCrypto
import FoundationEssentials

extension OIDCClient {
    /// The authorization request a browser login opens: built like `authorizationRequest`, then —
    /// when the account's `--par` and the provider's metadata say so (`PushedAuthorization.endpoint`)
    /// — pushed (RFC 9126 §2), so that the browser URL carries only `client_id` and the answered
    /// `request_uri` (§4). The pending login (verifier, state, nonce, redirect) is the same either way.
    public func loginAuthorizationRequest(
        metadata: ProviderMetadata, client: ClientConfiguration, redirectURI: RedirectURI,
        lifetime: Duration = AuthorizationRequest.defaultLifetime, randomBytes: RandomBytes = .system
    ) async throws(OIDCError) -> AuthorizationRequest {
        let parEndpoint = try PushedAuthorization.endpoint(mode: client.pushedAuthorization, metadata: metadata)
        let request = try authorizationRequest(
            metadata: metadata, client: client, redirectURI: redirectURI, lifetime: lifetime, randomBytes: randomBytes)
        guard let parEndpoint else { return request }
        // RFC 9449 §10.1: the push carries a proof of the same key as `dpop_jkt`.
        let response = try await send(
            PushedAuthorization.request(request.parameters, to: parEndpoint, client: client), dpop: client.dpopKey)
        let answer = try PushedAuthorization.parse(response, now: time.now())
        return request.byReference(requestURI: answer.requestURI)
    }
}
