import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing
import WireFormats

/// Plays a DPoP client against the mock over loopback HTTP, with proofs from `DPoPProof`: the
/// engine is not wired for DPoP yet, so these requests are built by hand.
struct MockProviderDPoPDriver {
    let provider: MockProvider
    let http: HTTPClient
    static let redirectURI = "http://127.0.0.1:9/callback"

    init(_ change: (inout MockProviderConfiguration) -> Void) throws {
        var knobs = MockProviderConfiguration()
        change(&knobs)
        provider = try MockProvider(configuration: knobs)
        http = try MockProviderHarness.httpClient(pooled: false)
    }

    func stop() async { await provider.stop() }

    /// A proof for `method` `path` on the mock, `age` seconds old.
    func proof(
        _ key: ECSigningKey, _ method: String, _ path: String, age: Int = 0, nonce: String? = nil, accessToken: String? = nil
    ) throws -> String {
        try DPoPProof(
            key: key, method: method, url: provider.url(path), issuedAt: Int(Date().timeIntervalSince1970) - age,
            nonce: nonce, accessToken: accessToken.map { Secret($0) }
        ).compact
    }

    /// An authorization code and its PKCE verifier, the code bound to `dpopJKT` when given.
    func code(dpopJKT: String? = nil) async throws -> (code: String, verifier: String) {
        let verifier = try Random.base64URL(byteCount: 32)
        var query = [
            FormField("response_type", "code"), FormField("client_id", "mock-client"),
            FormField("redirect_uri", Self.redirectURI), FormField("scope", "openid offline_access"),
            FormField("code_challenge", Base64URL.encode(SHA256.hash(Array(verifier.utf8)))),
            FormField("code_challenge_method", "S256"), FormField("state", "s"),
        ]
        if let dpopJKT { query.append(FormField("dpop_jkt", dpopJKT)) }
        let answer = try await http.send(HTTPClientRequest(url: provider.url("authorize") + "?" + FormURLEncoding.encode(query)))
        let location = try #require(answer.headers["Location"])
        let code = try #require(queryFields(location).first { $0.name == "code" }?.value)
        return (code, verifier)
    }

    /// POSTs the form to the token endpoint with one `DPoP` header per proof.
    func token(_ fields: [FormField], proofs: [String]) async throws -> HTTPResponse {
        let headers = [("Content-Type", "application/x-www-form-urlencoded")] + proofs.map { ("DPoP", $0) }
        return try await http.send(
            HTTPClientRequest(
                method: "POST", url: provider.url("token"), headers: HTTPHeaders(headers),
                body: Array(FormURLEncoding.encode(fields + [FormField("client_id", "mock-client")]).utf8)))
    }

    func exchange(_ code: (code: String, verifier: String), proofs: [String]) async throws -> HTTPResponse {
        try await token(
            [
                FormField("grant_type", "authorization_code"), FormField("code", code.code),
                FormField("redirect_uri", Self.redirectURI), FormField("code_verifier", code.verifier),
            ],
            proofs: proofs)
    }

    func refresh(_ refreshToken: String, proofs: [String]) async throws -> HTTPResponse {
        try await token([FormField("grant_type", "refresh_token"), FormField("refresh_token", refreshToken)], proofs: proofs)
    }

    /// Logs in with `key` (code bound to it) and returns the token answer's JSON.
    func tokens(_ key: ECSigningKey) async throws -> [String: Any] {
        let answer = try await exchange(code(dpopJKT: key.publicJWK.thumbprint), proofs: [proof(key, "POST", "token")])
        try #require(answer.status == 200, "token endpoint answered \(answer.status): \(answer.text)")
        return try Self.json(answer)
    }

    /// Calls `/resource` with `Authorization: <scheme> <token>` and the proofs.
    func resource(_ method: String = "GET", token: String, scheme: String = "DPoP", proofs: [String]) async throws -> HTTPResponse
    {
        try await http.send(
            HTTPClientRequest(
                method: method, url: provider.url("resource"),
                headers: HTTPHeaders([("Authorization", "\(scheme) \(token)")] + proofs.map { ("DPoP", $0) })))
    }

    /// "STATUS VALUE" of a JSON answer's string `member` (`error`, `token_type`, …).
    static func answer(of response: HTTPResponse, _ member: String) throws -> String {
        "\(response.status) \(try json(response)[member] as? String ?? "<none>")"
    }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// The claims of a JWT (unverified: the test reads what the mock put there).
    static func claims(ofJWT token: String) throws -> [String: Any] {
        let payload = try Base64URL.decode(token.split(separator: ".")[1])
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    /// A proof signed by `key` with any header and claims: for the malformed ones `DPoPProof` refuses to make.
    static func crafted(_ key: ECSigningKey, header: [String: Any], claims: [String: Any]) throws -> String {
        let input =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header))
            + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}
