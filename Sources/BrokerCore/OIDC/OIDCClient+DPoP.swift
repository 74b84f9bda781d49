import BrokerCrypto
import BrokerHTTP
import FoundationEssentials

// Proofs on token-endpoint calls (RFC 9449 §5): every request an account with a DPoP key sends
// to the authorization server — code exchange, refresh, device polling, PAR push — carries a
// fresh proof, through the same transport (and pins) as any other request.
extension OIDCClient {
    /// Sends `request`, with a proof signed by `key` when there is one. The server's
    /// `DPoP-Nonce` is remembered from every answer; a `400 use_dpop_nonce` answer carrying one is
    /// retried once with it (§8: a second refusal is the server's final word).
    func send(_ request: HTTPClientRequest, dpop key: ECSigningKey?) async throws(OIDCError) -> HTTPResponse {
        guard let key else { return try await OIDCHTTP.send(request, transport) }
        let origin = DPoPNonces.origin(of: request.url)
        let first = try await sendProved(request, key: key, nonce: origin.flatMap(dpopNonces.nonce(for:)), origin: origin)
        guard Self.asksForNonce(first), let nonce = first.headers["DPoP-Nonce"], DPoPProof.isNonce(nonce) else {
            return first
        }
        return try await sendProved(request, key: key, nonce: nonce, origin: origin)
    }

    private func sendProved(_ request: HTTPClientRequest, key: ECSigningKey, nonce: String?, origin: String?)
        async throws(OIDCError) -> HTTPResponse
    {
        var proved = request
        proved.headers.replaceOrAdd(name: "DPoP", value: try proof(key: key, method: request.method, url: request.url, nonce: nonce))
        let response = try await OIDCHTTP.send(proved, transport)
        if let origin, let fresh = response.headers["DPoP-Nonce"] { dpopNonces.remember(fresh, for: origin) }
        return response
    }

    private func proof(key: ECSigningKey, method: String, url: String, nonce: String?) throws(OIDCError) -> String {
        do {
            return try DPoPProof(
                key: key, method: method, url: url, issuedAt: Int(time.now().timeIntervalSince1970), nonce: nonce
            ).compact
        } catch {
            throw .invalidConfiguration("a DPoP proof could not be made: \(error.description)")
        }
    }

    /// RFC 9449 §8: `400` with `{"error":"use_dpop_nonce"}` (the token endpoint's way to ask).
    static func asksForNonce(_ response: HTTPResponse) -> Bool {
        guard response.status == 400, let object = try? ProviderJSON.object(from: response.body) else { return false }
        return object["error"]?.stringValue == "use_dpop_nonce"
    }
}
