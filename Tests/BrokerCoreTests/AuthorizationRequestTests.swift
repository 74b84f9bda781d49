import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Testing
import WireFormats

@Suite struct AuthorizationRequestTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func pkceMatchesRFC7636AppendixB() {
        let pkce = PKCE(codeVerifier: Secret("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(pkce.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func generatedVerifierIs43CharactersAndFresh() throws {
        let first = try PKCE.generate()
        let second = try PKCE.generate()
        #expect(first.codeVerifier.count == 43)
        #expect(first.codeVerifier != second.codeVerifier)
    }

    @Test func everyFieldIsPresentAndEncoded() throws {
        let client = ClientConfiguration(
            clientID: "my app", scopes: ["openid", "email", "offline_access"],
            resources: ["https://api.example.com/"], audience: "urn:aud",
            extraParameters: [FormField("prompt", "login"), FormField("login_hint", "a+b@example.com")])
        let redirect = try RedirectURI(port: 49152)
        let request = try AuthorizationRequest.make(
            metadata: testMetadata(), client: client, redirectURI: redirect, now: now, randomBytes: countingRandom())
        let pending = request.pendingLogin
        let verifier = Base64URL.encode((0..<32).map { UInt8($0) })
        let state = Base64URL.encode((32..<64).map { UInt8($0) })
        let nonce = Base64URL.encode((64..<96).map { UInt8($0) })
        #expect(pending.codeVerifier == Secret(verifier))
        #expect(pending.state == state && pending.nonce == nonce)
        #expect(pending.deadline == now.addingTimeInterval(300))
        #expect(pending.redirectURI.description == "http://127.0.0.1:49152/callback")
        let challenge = PKCE(codeVerifier: Secret(verifier)).codeChallenge
        #expect(
            queryFields(request.url) == [
                FormField("response_type", "code"), FormField("client_id", "my app"),
                FormField("redirect_uri", "http://127.0.0.1:49152/callback"),
                FormField("scope", "openid email offline_access"), FormField("state", state), FormField("nonce", nonce),
                FormField("code_challenge", challenge), FormField("code_challenge_method", "S256"),
                FormField("resource", "https://api.example.com/"), FormField("audience", "urn:aud"),
                FormField("prompt", "login"), FormField("login_hint", "a+b@example.com"),
            ])
        // Spaces as %20, reserved characters escaped, nothing left raw.
        #expect(
            request.url.hasPrefix(
                "https://id.example.com/authorize?response_type=code&client_id=my%20app&"
                    + "redirect_uri=http%3A%2F%2F127.0.0.1%3A49152%2Fcallback&scope=openid%20email%20offline_access&"))
        #expect(request.url.contains("login_hint=a%2Bb%40example.com"))
    }

    @Test func noNonceWithoutOpenIDScope() throws {
        let client = ClientConfiguration(clientID: "c", scopes: ["repo"])
        let request = try AuthorizationRequest.make(
            metadata: testMetadata(), client: client, redirectURI: try RedirectURI(port: 1234), now: now)
        #expect(request.pendingLogin.nonce == nil)
        #expect(!queryFields(request.url).contains { $0.name == "nonce" })
        #expect(request.pendingLogin.state.count == 43)
    }

    @Test func mergesWithTheEndpointsOwnQuery() throws {
        var metadata = testMetadata()
        metadata.authorizationEndpoint = "https://id.example.com/authorize?tenant=acme&client_id=stale"
        let request = try AuthorizationRequest.make(
            metadata: metadata, client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 1234), now: now)
        #expect(request.url.hasPrefix("https://id.example.com/authorize?tenant=acme&response_type=code&"))
        #expect(queryFields(request.url).filter { $0.name == "client_id" } == [FormField("client_id", "c")])
    }

    @Test func redirectHostAndPathAreSelectable() throws {
        #expect(try RedirectURI(host: .localhost, port: 8080, path: "/oauth/cb").description == "http://localhost:8080/oauth/cb")
        #expect(try RedirectURI(host: .ipv6, port: 8080).description == "http://[::1]:8080/callback")
        #expect(throws: OIDCError.self) { try RedirectURI(port: 0) }
        #expect(throws: OIDCError.self) { try RedirectURI(port: 80, path: "callback") }
        #expect(throws: OIDCError.self) { try RedirectURI(port: 80, path: "/cb?x=1") }
    }

    @Test func extraParametersCannotOverrideTheBrokersOwn() throws {
        let client = ClientConfiguration(clientID: "c", extraParameters: [FormField("state", "fixed")])
        #expect(throws: OIDCError.self) {
            try AuthorizationRequest.make(
                metadata: testMetadata(), client: client, redirectURI: try RedirectURI(port: 1), now: now)
        }
    }

    @Test func providerWithoutS256IsRefused() throws {
        var metadata = testMetadata()
        metadata.codeChallengeMethodsSupported = ["plain"]
        #expect(throws: OIDCError.self) {
            try AuthorizationRequest.make(
                metadata: metadata, client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 1), now: now)
        }
    }

    @Test func missingAuthorizationEndpointIsNamed() throws {
        var metadata = testMetadata()
        metadata.authorizationEndpoint = nil
        #expect(throws: OIDCError.missingEndpoint(.authorization)) {
            try AuthorizationRequest.make(
                metadata: metadata, client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 1), now: now)
        }
    }
}
