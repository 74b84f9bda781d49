import BrokerCore
import BrokerHTTP
import Foundation
import Testing

/// Issue 12, defect 1: cached metadata that lacks the endpoint an operation needs is completed
/// from the companion document when the operation needs it, at most once an hour when the
/// companion lacks it too.
@Suite struct MetadataGapFillingTests {
    static let issuer = "https://as.example.com/tenant"
    static let openIDURL = "https://as.example.com/tenant/.well-known/openid-configuration"
    static let rfc8414URL = "https://as.example.com/.well-known/oauth-authorization-server/tenant"

    /// What `account add` stored: the OpenID document, without `revocation_endpoint`.
    func cachedWithoutRevocation(at time: TestTime, documentURL: String = openIDURL) -> CachedProviderMetadata {
        var metadata = testMetadata(issuer: Self.issuer)
        metadata.revocationEndpoint = nil
        return CachedProviderMetadata(metadata: metadata, documentURL: documentURL, fetchedAt: time.now)
    }

    @Test func cachedMetadataIsCompletedFromTheRFC8414DocumentBetweenHostAndPath() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(Self.rfc8414URL, .json(document(Self.issuer)))
        let client = OIDCClient(transport: transport, time: time.time)
        let cached = cachedWithoutRevocation(at: time)
        let completed = try #require(await client.complete(cached, issuer: Self.issuer, with: .revocation))
        #expect(completed.metadata.revocationEndpoint == "\(Self.issuer)/revoke")
        #expect(completed.documentURL == Self.openIDURL && completed.fetchedAt == cached.fetchedAt)
        #expect(transport.requests.map(\.url) == [Self.rfc8414URL])
        // An endpoint the copy has needs no request.
        #expect(await client.complete(completed, issuer: Self.issuer, with: .revocation) == nil)
        #expect(transport.requests.count == 1)
    }

    @Test func aCompanionThatLacksTheEndpointIsAskedAgainOnlyAfterAnHour() async throws {
        let time = TestTime()
        var lacking = document(Self.issuer)
        lacking["revocation_endpoint"] = nil
        let transport = FakeTransport()
        transport.on(Self.rfc8414URL, .json(lacking))
        let client = OIDCClient(transport: transport, time: time.time)
        let cached = cachedWithoutRevocation(at: time)
        for _ in 0..<3 { #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation) == nil) }
        #expect(transport.requests.count == 1)
        time.advance(.seconds(3599))
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation) == nil)
        #expect(transport.requests.count == 1)
        time.advance(.seconds(1))
        transport.on(Self.rfc8414URL, .json(document(Self.issuer)))
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation)?.metadata.revocationEndpoint != nil)
        #expect(transport.requests.count == 2)
    }

    @Test func anAbsentCompanionCountsAsLackingButAnOutageDoesNot() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(Self.rfc8414URL, .status(503), .status(404))
        let client = OIDCClient(transport: transport, time: time.time)
        let cached = cachedWithoutRevocation(at: time)
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation) == nil)  // 503: not recorded
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation) == nil)  // 404: recorded
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation) == nil)
        #expect(transport.requests.count == 2)
    }

    @Test func aCompanionNamingAnotherIssuerFillsNothing() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(Self.rfc8414URL, .json(document("https://evil.example.com")))
        let client = OIDCClient(transport: transport, time: time.time)
        #expect(await client.complete(cachedWithoutRevocation(at: time), issuer: Self.issuer, with: .revocation) == nil)
    }

    @Test func anRFC8414SourceIsCompletedFromTheOpenIDDocument() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(Self.openIDURL, .json(document(Self.issuer)))
        let client = OIDCClient(transport: transport, time: time.time)
        let cached = cachedWithoutRevocation(at: time, documentURL: Self.rfc8414URL)
        #expect(await client.complete(cached, issuer: Self.issuer, with: .revocation)?.metadata.revocationEndpoint != nil)
        #expect(transport.requests.map(\.url) == [Self.openIDURL])
    }

    @Test func manualEndpointsAreNeverCompleted() async throws {
        let time = TestTime()
        let transport = FakeTransport()
        let client = OIDCClient(transport: transport, time: time.time)
        var manual = cachedWithoutRevocation(at: time)
        manual.documentURL = nil
        #expect(await client.complete(manual, issuer: Self.issuer, with: .revocation) == nil)
        #expect(transport.requests.isEmpty)
    }
}
