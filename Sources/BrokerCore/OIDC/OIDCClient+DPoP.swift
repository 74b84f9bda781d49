import BrokerCrypto
import BrokerHTTP
import FoundationEssentials

// Proofs on token-endpoint calls (RFC 9449 §5): every request an account with a DPoP key sends
// to the authorization server — code exchange, refresh, device polling, PAR push — carries a
// fresh proof, through the same transport (and pins) as any other request.
extension OIDCClient {
    /// Sends `request`, with a proof signed by `key` when there is one. The server's
    /// `DPoP-Nonce` is remembered from every answer; a `400 use_dpop_nonce` answer carrying one is
    /// retried once with it (§8: a second refusal is the server's final word). With `accessToken`
    /// (a resource request, §7) the proof carries its hash (`ath`).
    func send(_ request: HTTPClientRequest, dpop key: ECSigningKey?, accessToken: Secret? = nil) async throws(OIDCError)
        -> HTTPResponse
    {
        guard let key else { return try await OIDCHTTP.send(request, transport) }
        let origin = DPoPNonces.origin(of: request.url)
        let signer = Signer(key: key, accessToken: accessToken)
        let first = try await sendProved(request, signer, nonce: origin.flatMap(dpopNonces.nonce(for:)), origin: origin)
        guard Self.asksForNonce(first), let nonce = first.headers["DPoP-Nonce"], DPoPProof.isNonce(nonce) else {
            return first
        }
        return try await sendProved(request, signer, nonce: nonce, origin: origin)
    }

    private struct Signer {
        let key: ECSigningKey
        let accessToken: Secret?
    }

    private func sendProved(_ request: HTTPClientRequest, _ signer: Signer, nonce: String?, origin: String?)
        async throws(OIDCError) -> HTTPResponse
    {
        var proved = request
        proved.headers.replaceOrAdd(
            name: "DPoP", value: try proof(signer, method: request.method, url: request.url, nonce: nonce))
        let response = try await OIDCHTTP.send(proved, transport)
        if let origin, let fresh = response.headers["DPoP-Nonce"] { dpopNonces.remember(fresh, for: origin) }
        return response
    }

    private func proof(_ signer: Signer, method: String, url: String, nonce: String?) throws(OIDCError) -> String {
        do {
            return try DPoPProof(
                key: signer.key, method: method, url: url, issuedAt: Int(time.now().timeIntervalSince1970), nonce: nonce,
                accessToken: signer.accessToken
            ).compact
        } catch {
            throw .invalidConfiguration("a DPoP proof could not be made: \(error.description)")
        }
    }

    /// RFC 9449 §8: `400` with `{"error":"use_dpop_nonce"}` (an authorization server's way to ask);
    /// §9: `401` with `WWW-Authenticate: DPoP error="use_dpop_nonce"` (a resource server's, userinfo).
    static func asksForNonce(_ response: HTTPResponse) -> Bool {
        if response.status == 401 {
            return response.headers.values("WWW-Authenticate").contains { $0.contains(#"error="use_dpop_nonce""#) }
        }
        guard response.status == 400, let object = try? ProviderJSON.object(from: response.body) else { return false }
        return object["error"]?.stringValue == "use_dpop_nonce"
    }
}
