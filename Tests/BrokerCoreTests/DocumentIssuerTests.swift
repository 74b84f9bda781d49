import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import Testing

@testable import BrokerCore

/// `OIDCClient.documentIssuer` (behind `POST /v1/discovery`): the issuer a discovery document names,
/// read with an account discovery's checks, from a document on another origin than that issuer.
@Suite struct DocumentIssuerTests {
    static let shopDocument = "https://shop.example.com/.well-known/openid-configuration"

    @Test func answersTheIssuerOfADocumentOnAnotherOrigin() async throws {
        let transport = FakeTransport()
        transport.on(Self.shopDocument, .json(document("https://shopify.com/authentication/4242")))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        #expect(try await client.documentIssuer(Self.shopDocument) == "https://shopify.com/authentication/4242")
        #expect(transport.requests.map(\.url) == [Self.shopDocument], "one GET, no fallback to another document")
    }

    @Test func refusesWhatAnAccountsDiscoveryRefuses() async throws {
        var plainEndpoint = document("https://shopify.com/authentication/4242")
        plainEndpoint["token_endpoint"] = "http://shopify.com/authentication/4242/oauth/token"
        var plainIssuer = document("http://shopify.com/authentication/4242")
        plainIssuer["issuer"] = "http://shopify.com/authentication/4242"
        for answer in [FakeTransport.Reply.json(plainEndpoint), .json(plainIssuer), .status(404), .json(["not": "metadata"])] {
            let transport = FakeTransport()
            transport.on(Self.shopDocument, answer)
            let client = OIDCClient(transport: transport, time: TestTime().time)
            await #expect(throws: OIDCError.self) { try await client.documentIssuer(Self.shopDocument) }
        }
        let client = OIDCClient(transport: FakeTransport(), time: TestTime().time)
        await #expect(throws: OIDCError.self) {
            try await client.documentIssuer("http://shop.example.com/.well-known/openid-configuration")
        }
    }

    /// The mock's Shopify mode: discovery only at the shop's domain, naming the issuer's path.
    @Test func theMocksShopifyModeServesDiscoveryOnlyAtTheShopDomain() async throws {
        var knobs = MockProviderConfiguration()
        knobs.shopifyShopID = "4242"
        let provider = try MockProvider(configuration: knobs)
        let shopDomain = try #require(provider.shopDomain)
        #expect(provider.issuer.hasSuffix("/authentication/4242") && !provider.issuer.hasPrefix(shopDomain))
        let client = OIDCClient(transport: try MockProviderHarness.httpClient(pooled: false), time: TestTime().time)
        #expect(try await client.documentIssuer(shopDomain + "/.well-known/openid-configuration") == provider.issuer)
        let metadata = try await client.fetchMetadata(
            issuer: provider.issuer, documentURL: shopDomain + "/.well-known/openid-configuration")
        #expect(metadata.revocationEndpoint == nil && metadata.endSessionEndpoint == provider.url("logout"))
        await #expect(throws: OIDCError.self) { try await client.fetchMetadata(issuer: provider.issuer) }
        await provider.stop()
    }
}

/// `POST /v1/discovery`: the body's URL reaches the service; the route needs its body, takes no
/// query and answers only POST.
@Suite struct APIRouterDiscoveryTests {
    @Test func theURLGoesToTheServiceAndTheIssuerComesBack() async throws {
        let fixture = RouterFixture()
        let answer = await fixture.send(
            "POST", "/v1/discovery", body: #"{"url":"https://shop.example/.well-known/openid-configuration"}"#)
        #expect(answer.status == 200)
        #expect(try answer.decoded(DiscoveryResult.self).issuer == "https://issuer.example/from-document")
        #expect(fixture.service.recorded == ["discoveryIssuer(https://shop.example/.well-known/openid-configuration)"])
    }

    @Test func theBodysPinsGoToTheServiceToo() async throws {
        let fixture = RouterFixture()
        let pin = TokenBrokerPinningTests.chainPin
        let answer = await fixture.send(
            "POST", "/v1/discovery", body: #"{"url":"https://shop.example/d","pin_sha256":["\#(pin)"]}"#)
        #expect(answer.status == 200)
        #expect(fixture.service.recorded == ["discoveryIssuer(https://shop.example/d,\(pin))"])
    }

    @Test func refusesAMissingBodyAQueryAndOtherMethods() async throws {
        let fixture = RouterFixture()
        #expect(await fixture.send("POST", "/v1/discovery").status == 400)
        #expect(await fixture.send("POST", "/v1/discovery?wait=1", body: #"{"url":"https://a"}"#).status == 400)
        let get = await fixture.send("GET", "/v1/discovery")
        #expect(get.status == 405 && get.headers["Allow"] == "POST")
        #expect(fixture.service.recorded.isEmpty)
    }
}
