import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import Foundation
import Testing
import WireFormats

@testable import BrokerCore

/// DPoP (RFC 9449) in the engine, without I/O: a proof of the right key on every token-endpoint
/// call (code exchange, refresh, device polling, PAR push), `dpop_jkt` on the authorization
/// request, the token type checked both ways, and the nonce rules (retry once, remember per origin).
@Suite struct OIDCClientDPoPTests {
    static let tokenURL = "\(testIssuer)/token"
    static func dpopTokens(nonce: String? = nil, type: String = "DPoP") -> FakeTransport.Reply {
        .json(
            ["access_token": "at-2", "token_type": type, "expires_in": 300, "refresh_token": "rt-2"],
            headers: nonce.map { [("DPoP-Nonce", $0)] } ?? [])
    }
    static func askForNonce(_ nonce: String) -> FakeTransport.Reply {
        .json(["error": "use_dpop_nonce", "error_description": "nonce"], status: 400, headers: [("DPoP-Nonce", nonce)])
    }

    /// The header and claims of the request's one `DPoP` proof.
    static func proof(_ request: HTTPClientRequest) throws -> (header: [String: Any], claims: [String: Any]) {
        let values = request.headers.values("DPoP")
        try #require(values.count == 1, "\(values.count) DPoP headers")
        let parts = values[0].split(separator: ".")
        func object(_ part: Substring) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(part))) as? [String: Any])
        }
        return (try object(parts[0]), try object(parts[1]))
    }

    static func thumbprint(ofProofIn request: HTTPClientRequest) throws -> String {
        let jwk = try #require(try proof(request).header["jwk"] as? [String: String])
        return try JWKThumbprint.ec(crv: try #require(jwk["crv"]), x: try #require(jwk["x"]), y: try #require(jwk["y"]))
    }

    func bound(_ key: ECSigningKey) -> TokenSet {
        TokenSet(
            accessToken: Secret("at-1"), refreshToken: Secret("rt-1"), tokenType: "DPoP", obtainedAt: 1_800_000_000, dpopKey: key)
    }

    func client(_ transport: FakeTransport, nonces: DPoPNonces = DPoPNonces()) -> OIDCClient {
        OIDCClient(transport: transport, time: TestTime().time, dpopNonces: nonces)
    }

    @Test func aRefreshIsProvedWithTheTokensKeyAndTheNewTokensKeepIt() async throws {
        let key = try ECSigningKey.generate()
        let transport = FakeTransport([Self.tokenURL: [Self.dpopTokens()]])
        let refreshed = try await client(transport).refresh(
            bound(key), metadata: testMetadata(), client: ClientConfiguration(clientID: "cli", scopes: []))
        let request = try #require(transport.requests.first)
        let proof = try Self.proof(request)
        #expect(proof.header["typ"] as? String == "dpop+jwt" && proof.header["alg"] as? String == "ES256")
        #expect(proof.claims["htm"] as? String == "POST" && proof.claims["htu"] as? String == Self.tokenURL)
        #expect(proof.claims["nonce"] == nil && proof.claims["ath"] == nil)
        #expect(try Self.thumbprint(ofProofIn: request) == key.publicJWK.thumbprint)
        #expect(refreshed.dpopKey == key && refreshed.tokenType == "DPoP" && refreshed.accessToken == Secret("at-2"))
    }

    @Test func aBearerAnswerToAProvedRequestIsRefusedAndADPoPAnswerToAnUnprovedOne() async throws {
        let transport = FakeTransport([Self.tokenURL: [Self.dpopTokens(type: "Bearer")]])
        let config = ClientConfiguration(clientID: "cli", scopes: [])
        await #expect(throws: OIDCError.unsupportedTokenType("Bearer")) {
            _ = try await client(transport).refresh(bound(try ECSigningKey.generate()), metadata: testMetadata(), client: config)
        }
        transport.on(Self.tokenURL, Self.dpopTokens())
        let bearer = TokenSet(accessToken: Secret("at-1"), refreshToken: Secret("rt-1"), obtainedAt: 1_800_000_000)
        await #expect(throws: OIDCError.unsupportedTokenType("DPoP")) {
            _ = try await client(transport).refresh(bearer, metadata: testMetadata(), client: config)
        }
        #expect(transport.requests.last?.headers["DPoP"] == nil)
    }

    @Test func useDPoPNonceIsRetriedOnceWithTheNonceAndNotTwice() async throws {
        let transport = FakeTransport([Self.tokenURL: [Self.askForNonce("n-1"), Self.askForNonce("n-2")]])
        let config = ClientConfiguration(clientID: "cli", scopes: [])
        await #expect(throws: OIDCError.self) {
            _ = try await client(transport).refresh(bound(try ECSigningKey.generate()), metadata: testMetadata(), client: config)
        }
        #expect(transport.requests.count == 2)
        #expect(try Self.proof(transport.requests[1]).claims["nonce"] as? String == "n-1")
        let jtis = try transport.requests.map { try Self.proof($0).claims["jti"] as? String }
        #expect(Set(jtis).count == 2, "each attempt has its own proof")

        transport.on(Self.tokenURL, Self.askForNonce("n-3"), Self.dpopTokens())
        let refreshed = try await client(transport).refresh(
            bound(try ECSigningKey.generate()), metadata: testMetadata(), client: config)
        #expect(refreshed.accessToken == Secret("at-2") && transport.requests.count == 4)
    }

    @Test func theLatestNonceIsRememberedPerOriginFromEverySuccess() async throws {
        let nonces = DPoPNonces()
        let other = testMetadata(issuer: "https://other.example.com")
        let transport = FakeTransport([
            Self.tokenURL: [Self.dpopTokens(nonce: "fresh-1"), Self.dpopTokens(nonce: "fresh-2")],
            "https://other.example.com/token": [Self.dpopTokens()],
        ])
        let config = ClientConfiguration(clientID: "cli", scopes: [])
        let engine = client(transport, nonces: nonces)
        let key = try ECSigningKey.generate()
        _ = try await engine.refresh(bound(key), metadata: testMetadata(), client: config)
        _ = try await engine.refresh(bound(key), metadata: other, client: config)
        // Another client sharing the memory (a pinned account's) sends the origin's latest nonce.
        _ = try await client(transport, nonces: nonces).refresh(bound(key), metadata: testMetadata(), client: config)
        let sent = try transport.requests.map { try Self.proof($0).claims["nonce"] as? String }
        #expect(sent == [nil, nil, "fresh-1"])
        #expect(nonces.nonce(for: "https://id.example.com") == "fresh-2" && nonces.count == 1)
    }

    @Test func theNonceMemoryIsBoundedAndIgnoresInvalidNonces() {
        let nonces = DPoPNonces(capacity: 2)
        nonces.remember("a", for: "https://a.example")
        nonces.remember("b", for: "https://b.example")
        nonces.remember("c", for: "https://c.example")
        nonces.remember("bad\"nonce", for: "https://c.example")
        #expect(
            nonces.count == 2 && nonces.nonce(for: "https://a.example") == nil && nonces.nonce(for: "https://c.example") == "c")
        #expect(DPoPNonces.origin(of: "https://ID.example.com:8443/token?x=1") == "https://id.example.com:8443")
    }

    @Test func theAuthorizationRequestAndItsPushCarryTheKeysThumbprintAndTheExchangeItsProof() async throws {
        let key = try ECSigningKey.generate()
        var metadata = testMetadata()
        metadata.pushedAuthorizationRequestEndpoint = "\(testIssuer)/par"
        let transport = FakeTransport([
            "\(testIssuer)/par": [.json(["request_uri": "urn:ietf:params:oauth:request_uri:x", "expires_in": 60], status: 201)],
            Self.tokenURL: [Self.dpopTokens()],
        ])
        var config = ClientConfiguration(clientID: "cli", scopes: ["offline_access"])
        config.dpopKey = key
        let engine = client(transport)
        let request = try await engine.loginAuthorizationRequest(
            metadata: metadata, client: config, redirectURI: try RedirectURI(port: 49152))
        let push = try #require(transport.requests.first)
        let pushed = try FormURLEncoding.decode(String(decoding: push.body, as: UTF8.self))
        #expect(pushed.first { $0.name == "dpop_jkt" }?.value == key.publicJWK.thumbprint)
        #expect(try Self.thumbprint(ofProofIn: push) == key.publicJWK.thumbprint)
        #expect(try Self.proof(push).claims["htu"] as? String == "\(testIssuer)/par")
        #expect(request.pendingLogin.dpopKey == key)

        config.dpopKey = nil  // the exchange takes the key from the pending login, not the client
        let result = try await engine.exchangeCode(
            Secret("code"), pendingLogin: request.pendingLogin, metadata: metadata, client: config)
        #expect(try Self.thumbprint(ofProofIn: transport.requests[1]) == key.publicJWK.thumbprint)
        #expect(result.tokens.dpopKey == key && result.tokens.tokenType == "DPoP")

        let plain = try AuthorizationRequest.make(
            metadata: testMetadata(), client: config, redirectURI: try RedirectURI(port: 49152), now: Date())
        #expect(!plain.url.contains("dpop_jkt") && plain.pendingLogin.dpopKey == nil)
    }

    @Test func deviceCodePollsAreProvedAndTheTokensBoundToTheKey() async throws {
        let key = try ECSigningKey.generate()
        let transport = FakeTransport([
            Self.tokenURL: [.json(["error": "authorization_pending"], status: 400), Self.dpopTokens()]
        ])
        var config = ClientConfiguration(clientID: "cli", scopes: [])
        config.dpopKey = key
        let authorization = DeviceAuthorization(
            deviceCode: Secret("dc"), userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device",
            expiresIn: .seconds(60), interval: .seconds(5))
        let tokens = try await client(transport).pollDeviceAuthorization(authorization, metadata: testMetadata(), client: config)
        #expect(transport.requests.count == 2)
        for request in transport.requests { #expect(try Self.thumbprint(ofProofIn: request) == key.publicJWK.thumbprint) }
        #expect(tokens.dpopKey == key && tokens.tokenType == "DPoP")
    }

    @Test func userinfoGetsTheBoundTokenAsDPoPWithAProofOfItsHashAndTheResourceNonce() async throws {
        let key = try ECSigningKey.generate()
        let transport = FakeTransport([
            "\(testIssuer)/userinfo": [
                .status(401, headers: [("WWW-Authenticate", #"DPoP error="use_dpop_nonce""#), ("DPoP-Nonce", "rs-1")]),
                .json(["sub": "user-1"]),
            ]
        ])
        let info = try await client(transport).userInfo(metadata: testMetadata(), tokens: bound(key))
        #expect(info.subject == "user-1" && transport.requests.count == 2)
        for request in transport.requests {
            #expect(request.headers["Authorization"] == "DPoP at-1")
            #expect(try Self.proof(request).claims["ath"] as? String == DPoPProof.accessTokenHash(Secret("at-1")))
        }
        #expect(try Self.proof(transport.requests[1]).claims["nonce"] as? String == "rs-1")
    }
}
