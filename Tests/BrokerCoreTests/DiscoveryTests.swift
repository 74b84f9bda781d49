import BrokerCore
import BrokerHTTP
import Foundation
import Testing

@Suite struct DiscoveryTests {
    @Test func openIDConfigurationURLAppendsToTheIssuer() throws {
        #expect(
            try Discovery.openIDConfigurationURL(issuer: "https://id.example.com")
                == "https://id.example.com/.well-known/openid-configuration")
        #expect(
            try Discovery.openIDConfigurationURL(issuer: "https://id.example.com/tenant/")
                == "https://id.example.com/tenant/.well-known/openid-configuration")
    }

    @Test func rfc8414URLInsertsTheWellKnownPathBeforeTheIssuerPath() throws {
        #expect(
            try Discovery.authorizationServerMetadataURL(issuer: "https://id.example.com")
                == "https://id.example.com/.well-known/oauth-authorization-server")
        #expect(
            try Discovery.authorizationServerMetadataURL(issuer: "https://id.example.com/issuer1")
                == "https://id.example.com/.well-known/oauth-authorization-server/issuer1")
        #expect(
            try Discovery.authorizationServerMetadataURL(issuer: "https://id.example.com:8443/a/b/")
                == "https://id.example.com:8443/.well-known/oauth-authorization-server/a/b")
    }

    @Test(arguments: [
        "http://id.example.com", "https://id.example.com?x=1", "https://id.example.com#f",
        "https://user@id.example.com", "id.example.com", "ftp://id.example.com",
    ])
    func unusableIssuersAreRefused(issuer: String) {
        #expect(throws: OIDCError.self) { try Discovery.openIDConfigurationURL(issuer: issuer) }
    }

    /// An account's pins reach every request its engine makes: discovery here, the JWKS and the
    /// token endpoint through the same transport; the shared engine sends none.
    @Test func aPinnedClientSendsItsPinsWithEveryRequest() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(document(testIssuer)), .json(document(testIssuer)))
        let shared = OIDCClient(transport: transport, time: TestTime().time)
        let pins = PublicKeyPins(digests: [Array(repeating: 7, count: 32)])
        _ = try await shared.pinned(pins).fetchMetadata(issuer: testIssuer)
        _ = try await shared.fetchMetadata(issuer: testIssuer)
        #expect(transport.requests.map(\.pins) == [pins, .none])
    }

    @Test func loopbackHTTPIssuerIsAllowedForDevelopment() throws {
        #expect(
            try Discovery.openIDConfigurationURL(issuer: "http://127.0.0.1:8080")
                == "http://127.0.0.1:8080/.well-known/openid-configuration")
    }

    @Test func readsTheOpenIDDocument() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(document(testIssuer)))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let metadata = try await client.fetchMetadata(issuer: testIssuer)
        #expect(metadata.tokenEndpoint == "\(testIssuer)/token")
        #expect(metadata.authorizationResponseIssParameterSupported == true)
        #expect(transport.requests.map(\.url) == ["\(testIssuer)/.well-known/openid-configuration"])
    }

    @Test func fallsBackToRFC8414WhenTheOpenIDDocumentIsAbsent() async throws {
        let issuer = "https://as.example.com/tenant"
        let transport = FakeTransport()
        transport.on("https://as.example.com/.well-known/oauth-authorization-server/tenant", .json(document(issuer)))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let metadata = try await client.fetchMetadata(issuer: issuer)
        #expect(metadata.issuer == issuer)
        #expect(
            transport.requests.map(\.url) == [
                "https://as.example.com/tenant/.well-known/openid-configuration",
                "https://as.example.com/.well-known/oauth-authorization-server/tenant",
            ])
    }

    @Test func fillsAMissingRevocationEndpointFromRFC8414() async throws {
        var openID = document(testIssuer)
        openID["revocation_endpoint"] = nil
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(openID))
        transport.on("\(testIssuer)/.well-known/oauth-authorization-server", .json(document(testIssuer)))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let metadata = try await client.fetchMetadata(issuer: testIssuer, neededEndpoints: [.revocation])
        #expect(metadata.revocationEndpoint == "\(testIssuer)/revoke")
        #expect(metadata.tokenEndpoint == "\(testIssuer)/token")
    }

    @Test func missingEndpointStaysMissingWhenRFC8414IsAbsentToo() async throws {
        var openID = document(testIssuer)
        openID["revocation_endpoint"] = nil
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(openID))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let metadata = try await client.fetchMetadata(issuer: testIssuer, neededEndpoints: [.revocation])
        #expect(metadata.revocationEndpoint == nil)
        #expect(transport.requests.count == 2)
    }

    @Test func issuerMismatchIsRefusedWithoutFallback() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(document("https://evil.example.com")))
        transport.on("\(testIssuer)/.well-known/oauth-authorization-server", .json(document(testIssuer)))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        await #expect(throws: OIDCError.issuerMismatch(expected: testIssuer, found: "https://evil.example.com")) {
            try await client.fetchMetadata(issuer: testIssuer)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func trailingSlashMakesADifferentIssuer() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(document(testIssuer + "/")))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        await #expect(throws: OIDCError.issuerMismatch(expected: testIssuer, found: testIssuer + "/")) {
            try await client.fetchMetadata(issuer: testIssuer)
        }
    }

    @Test func insecureEndpointInTheDocumentIsRefused() async throws {
        var doc = document(testIssuer)
        doc["token_endpoint"] = "http://id.example.com/token"
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(doc))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        await #expect(throws: OIDCError.self) { try await client.fetchMetadata(issuer: testIssuer) }
    }

    @Test func noDocumentAtAllIsDiscoveryUnavailable() async throws {
        let client = OIDCClient(transport: FakeTransport(), time: TestTime().time)
        await #expect(throws: OIDCError.discoveryUnavailable(url: "\(testIssuer)/.well-known/openid-configuration", status: 404))
        {
            try await client.fetchMetadata(issuer: testIssuer)
        }
    }

    @Test func serverErrorIsTransientNotAFallback() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .status(503, headers: [("Retry-After", "30")]))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        do {
            _ = try await client.fetchMetadata(issuer: testIssuer)
            Issue.record("expected a failure")
        } catch {
            #expect(error.disposition == .transient(retryAfter: .seconds(30)))
        }
        #expect(transport.requests.count == 1)
    }

    @Test func freshCacheIsServedWithoutFetching() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        let cached = CachedProviderMetadata(
            metadata: testMetadata(), documentURL: testDocumentURL, fetchedAt: time.now.addingTimeInterval(-3600))
        let outcome = try await OIDCClient(transport: transport, time: time.time).discover(issuer: testIssuer, cached: cached)
        #expect(outcome.cached == cached && !outcome.isNew && outcome.warning == nil)
        #expect(transport.requests.isEmpty)
    }

    @Test func staleCacheIsRefetched() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .json(document(testIssuer)))
        let cached = CachedProviderMetadata(
            metadata: testMetadata(), documentURL: testDocumentURL, fetchedAt: time.now.addingTimeInterval(-25 * 3600))
        let outcome = try await OIDCClient(transport: transport, time: time.time).discover(issuer: testIssuer, cached: cached)
        #expect(outcome.isNew && outcome.cached.fetchedAt == time.now && outcome.warning == nil)
        #expect(outcome.metadata.authorizationResponseIssParameterSupported == true)
    }

    @Test func staleCacheKeepsServingWithAWarningWhenRefetchFails() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on("\(testIssuer)/.well-known/openid-configuration", .failure(.timeout("connect")))
        let cached = CachedProviderMetadata(
            metadata: testMetadata(), documentURL: testDocumentURL, fetchedAt: time.now.addingTimeInterval(-25 * 3600))
        let outcome = try await OIDCClient(transport: transport, time: time.time).discover(issuer: testIssuer, cached: cached)
        #expect(outcome.cached == cached && !outcome.isNew)
        #expect(outcome.warning?.contains("could not be refreshed") == true)
    }

    @Test func cacheForAnotherIssuerIsIgnored() {
        let policy = DiscoveryCachePolicy()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let cached = CachedProviderMetadata(
            metadata: testMetadata(issuer: "https://old.example.com"), documentURL: testDocumentURL, fetchedAt: now)
        #expect(!policy.isFresh(cached, issuer: testIssuer, documentURL: testDocumentURL, now: now))
        #expect(
            !policy.isFresh(
                CachedProviderMetadata(
                    metadata: testMetadata(), documentURL: testDocumentURL, fetchedAt: now.addingTimeInterval(60)),
                issuer: testIssuer, documentURL: testDocumentURL, now: now))
        let result = policy.resolve(
            cached: cached, issuer: testIssuer, documentURL: testDocumentURL, refetch: .failure(.loginExpired), now: now)
        #expect(throws: OIDCError.loginExpired) { try result.get() }
    }

    /// An account may name its own discovery document, and a document may claim any issuer: a copy
    /// read from another document is neither fresh nor a fallback for this one.
    @Test func cacheFromAnotherDocumentOfTheSameIssuerIsNeverServed() async throws {
        let time = TestTime()
        let now = time.now
        let policy = DiscoveryCachePolicy()
        let planted = CachedProviderMetadata(
            metadata: testMetadata(), documentURL: "http://127.0.0.1:9/evil/openid-configuration", fetchedAt: now)
        #expect(!policy.isFresh(planted, issuer: testIssuer, documentURL: testDocumentURL, now: now))
        #expect(policy.isFresh(planted, issuer: testIssuer, documentURL: planted.documentURL, now: now))
        let fallback = policy.resolve(
            cached: planted, issuer: testIssuer, documentURL: testDocumentURL, refetch: .failure(.loginExpired), now: now)
        #expect(throws: OIDCError.loginExpired) { try fallback.get() }

        let transport = FakeTransport()
        transport.on(testDocumentURL, .json(document(testIssuer)))
        let outcome = try await OIDCClient(transport: transport, time: time.time).discover(issuer: testIssuer, cached: planted)
        #expect(outcome.isNew && outcome.cached.documentURL == testDocumentURL)
        #expect(transport.requests.count == 1)
    }

    @Test func manualEndpointsAreValidatedNotFetched() async throws {
        let transport = FakeTransport()
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let outcome = try await client.discover(issuer: testIssuer, source: .manual(testMetadata()))
        #expect(outcome.metadata == testMetadata())
        var insecure = testMetadata()
        insecure.tokenEndpoint = "http://id.example.com/token"
        await #expect(throws: OIDCError.self) { try await client.discover(issuer: testIssuer, source: .manual(insecure)) }
        #expect(transport.requests.isEmpty)
    }

    @Test func metadataRoundTripsThroughCodableWithSpecNames() throws {
        let data = try JSONEncoder().encode(testMetadata())
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"token_endpoint\"") && text.contains("\"jwks_uri\""))
        #expect(try JSONDecoder().decode(ProviderMetadata.self, from: data) == testMetadata())
    }

    /// The vault's cached documents are written and read by the wire coder; those an earlier
    /// version wrote with Foundation's coder (sorted keys, `\/` escapes) still read back the same.
    @Test func storedMetadataReadsWhatEitherCoderWrote() throws {
        let cached = CachedProviderMetadata(metadata: testMetadata(), documentURL: testDocumentURL, fetchedAt: Date())
        let json = try #require(cached.storedJSON)
        #expect(json.contains("\"token_endpoint\":\"https:"))
        #expect(CachedProviderMetadata.storedMetadata(json) == testMetadata())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let written = String(decoding: try encoder.encode(testMetadata()), as: UTF8.self)
        #expect(written.contains("\\/"))
        #expect(CachedProviderMetadata.storedMetadata(written) == testMetadata())
        #expect(CachedProviderMetadata.storedMetadata("{\"issuer\": [") == nil)
    }
}

/// Where discovery reads `testIssuer`'s document by default.
let testDocumentURL = "\(testIssuer)/.well-known/openid-configuration"

/// A discovery document with every endpoint the engine uses.
func document(_ issuer: String) -> [String: Any] {
    [
        "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
        "jwks_uri": "\(issuer)/jwks", "userinfo_endpoint": "\(issuer)/userinfo", "revocation_endpoint": "\(issuer)/revoke",
        "end_session_endpoint": "\(issuer)/logout", "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"], "authorization_response_iss_parameter_supported": true,
    ]
}
