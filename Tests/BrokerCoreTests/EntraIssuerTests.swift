import BrokerCore
import BrokerCrypto
import Foundation
import TestSupport
import Testing

/// Microsoft Entra multi-tenant issuers (issue 12 item 3): the `{tenantid}` template in discovery,
/// `iss` = the template filled with the token's own `tid`, the tenant allow-list, and `tid` pinned
/// on refresh. Shapes from Microsoft's "ID tokens" and "OpenID Connect on the Microsoft identity
/// platform" pages.
@Suite struct EntraIssuerTests {
    static let common = "https://login.microsoftonline.com/common/v2.0"
    static let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
    static let tenant = "9122040d-6c67-4c5b-b112-36a304b66dad"
    static let otherTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let now = IDTokenValidatorTests.now
    let key: TestSigningKey
    let keys: StaticKeySource

    init() throws {
        key = try TestSigningKey(.p256, kid: "k1")
        keys = StaticKeySource(try JWKSet(json: TestSigningKey.jwksJSON([key])))
    }

    static func tenantIssuer(_ tid: String) -> String { "https://login.microsoftonline.com/\(tid)/v2.0" }

    static func claims(tid: String? = tenant, iss: String? = nil) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": iss ?? tenantIssuer(tid ?? tenant), "sub": "user-42", "aud": "client-1",
            "exp": now.timeIntervalSince1970 + 600, "iat": now.timeIntervalSince1970 - 10, "nonce": "n-123",
        ]
        if let tid { claims["tid"] = tid }
        return claims
    }

    func validate(
        _ claims: [String: Any], issuer: String = common, allowedTenants: Set<String> = [],
        expectation: IDTokenExpectation = .login(nonce: "n-123")
    ) async throws(OIDCError) -> IDTokenClaims {
        let validator = IDTokenValidator(issuer: issuer, clientID: "client-1", allowedTenants: allowedTenants)
        let token: String
        do { token = try key.sign(claims: claims) } catch { throw .invalidConfiguration("test key: \(error)") }
        return try await validator.validate(Secret(token), keys: keys, expectation: expectation, accessToken: nil, now: Self.now)
    }

    @Test func onlyTheThreeMultiTenantIssuersHaveATemplate() {
        for segment in ["common", "organizations", "consumers"] {
            #expect(EntraIssuer.template(forConfigured: "https://login.microsoftonline.com/\(segment)/v2.0") == Self.template)
        }
        #expect(
            EntraIssuer.template(forConfigured: "http://127.0.0.1:8080/common/v2.0") == "http://127.0.0.1:8080/{tenantid}/v2.0")
        for issuer in [
            Self.tenantIssuer(Self.tenant), "https://login.microsoftonline.com/common",
            "https://login.microsoftonline.com/common/v2.0/",
            "https://evil.example/common/v2.0", "https://login.microsoftonline.com:8443/common/v2.0",
            "https://login.microsoftonline.com/common/v2.0?x=1", "http://login.microsoftonline.com/common/v2.0", testIssuer,
        ] {
            #expect(EntraIssuer.template(forConfigured: issuer) == nil, "\(issuer)")
        }
    }

    @Test func aTokenOfItsOwnTenantIsAccepted() async throws {
        let claims = try await validate(Self.claims())
        #expect(claims.tenantID == Self.tenant && claims.issuer == Self.tenantIssuer(Self.tenant))
    }

    @Test func issMustBeTheTemplateFilledWithTheTokensOwnTid() async {
        let iss = Self.tenantIssuer(Self.otherTenant)
        await #expect(throws: OIDCError.idToken(.wrongIssuer(expected: Self.tenantIssuer(Self.tenant), found: iss))) {
            try await validate(Self.claims(iss: iss))
        }
        // The template itself is the document's issuer, never a token's.
        await #expect(throws: OIDCError.idToken(.wrongIssuer(expected: Self.tenantIssuer(Self.tenant), found: Self.template))) {
            try await validate(Self.claims(iss: Self.template))
        }
        await #expect(throws: OIDCError.idToken(.wrongIssuer(expected: Self.tenantIssuer(Self.tenant), found: Self.common))) {
            try await validate(Self.claims(iss: Self.common))
        }
    }

    @Test func tidMustBeALowercaseGUID() async {
        for tid in [
            "9122040D-6C67-4C5B-B112-36A304B66DAD", "common", "9122040d6c674c5bb11236a304b66dad",
            "9122040d-6c67-4c5b-b112-36a304b66da", "../x",
        ] {
            await #expect(throws: OIDCError.idToken(.malformedTenantID(tid))) {
                try await validate(Self.claims(tid: tid, iss: Self.tenantIssuer(tid)))
            }
        }
    }

    @Test func aMissingTidIsRefused() async {
        await #expect(throws: OIDCError.idToken(.missingClaim("tid"))) {
            try await validate(Self.claims(tid: nil))
        }
    }

    @Test func aRefreshedTokenOfAnotherTenantIsRefused() async throws {
        let next = Self.claims(tid: Self.otherTenant).merging(["nonce": "ignored"]) { $1 }
        await #expect(throws: OIDCError.idToken(.tenantChanged)) {
            try await validate(next, expectation: .refresh(previousSubject: "user-42", previousTenant: Self.tenant))
        }
        _ = try await validate(Self.claims(), expectation: .refresh(previousSubject: "user-42", previousTenant: Self.tenant))
    }

    @Test func theAllowListAdmitsOnlyItsTenants() async throws {
        _ = try await validate(Self.claims(), allowedTenants: [Self.tenant])
        await #expect(throws: OIDCError.idToken(.tenantNotAllowed(Self.otherTenant))) {
            try await validate(Self.claims(tid: Self.otherTenant), allowedTenants: [Self.tenant])
        }
    }

    @Test func aSingleTenantIssuerKeepsTheExactRule() async {
        let issuer = Self.tenantIssuer(Self.tenant)
        await #expect(throws: OIDCError.idToken(.wrongIssuer(expected: issuer, found: Self.tenantIssuer(Self.otherTenant)))) {
            try await validate(Self.claims(tid: Self.otherTenant), issuer: issuer)
        }
    }

    static func entraDocument(issuer: String) -> [String: Any] {
        let base = "https://login.microsoftonline.com/common"
        return [
            "issuer": issuer, "authorization_endpoint": "\(base)/oauth2/v2.0/authorize",
            "token_endpoint": "\(base)/oauth2/v2.0/token", "jwks_uri": "\(base)/discovery/v2.0/keys",
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
        ]
    }

    @Test func theTemplateDocumentServesTheConfiguredMultiTenantIssuer() async throws {
        let transport = FakeTransport()
        transport.on("\(Self.common)/.well-known/openid-configuration", .json(Self.entraDocument(issuer: Self.template)))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let metadata = try await client.fetchMetadata(issuer: Self.common)
        // Cache keys, the pending login and the token rule all start from the configured issuer.
        #expect(metadata.issuer == Self.common)
    }

    @Test func theTemplateDocumentIsRefusedForEveryOtherIssuer() async throws {
        for issuer in [Self.tenantIssuer(Self.tenant), testIssuer] {
            let transport = FakeTransport()
            transport.on("\(issuer)/.well-known/openid-configuration", .json(Self.entraDocument(issuer: Self.template)))
            let client = OIDCClient(transport: transport, time: TestTime().time)
            await #expect(throws: OIDCError.issuerMismatch(expected: issuer, found: Self.template)) {
                try await client.fetchMetadata(issuer: issuer)
            }
        }
    }

    @Test func terminalAADSTSCodesSayWhyAndStayGrantRejections() {
        let description =
            "AADSTS50173: The provided grant has expired due to it being revoked, a fresh auth token is needed."
            + " Trace ID: 0000aaaa-11bb-cccc-dd22-eeeeee333333"
        let error = OIDCError.oauthError(
            OAuthErrorResponse(error: "invalid_grant", errorDescription: description), status: 400, retryAfter: nil)
        #expect(error.rejectsGrant)
        #expect(
            error.description.hasPrefix(
                "the password was changed or reset since this login, which revoked its tokens (AADSTS50173); "))
        for code in [700082, 70043, 70044, 50076, 50079, 53003] {
            let response = OAuthErrorResponse(error: "invalid_grant", errorDescription: "AADSTS\(code): whatever")
            let text = OIDCError.oauthError(response, status: 400, retryAfter: nil).description
            #expect(text.contains("(AADSTS\(code)); the provider answered invalid_grant (HTTP 400)"), "\(text)")
        }
        // Unknown codes, and look-alikes, keep the plain message.
        for other in ["AADSTS70011: scope", "AADSTS501730: x", "no code here"] {
            let response = OAuthErrorResponse(error: "invalid_grant", errorDescription: other)
            #expect(OIDCError.oauthError(response, status: 400, retryAfter: nil).description.hasPrefix("the provider answered"))
        }
    }
}
