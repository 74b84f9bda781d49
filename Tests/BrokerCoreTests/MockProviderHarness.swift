import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing

/// One in-process mock provider, an OIDC client over the real HTTP client, and a "browser".
struct MockProviderHarness {
    let provider: MockProvider
    let client: OIDCClient
    let metadata: ProviderMetadata
    var configuration = ClientConfiguration(clientID: "mock-client", scopes: ["openid", "email", "offline_access"])

    init(
        _ knobs: MockProviderConfiguration = MockProviderConfiguration(), time: OIDCTime = .system,
        jwksRefetchInterval: Duration = .seconds(60)
    ) async throws {
        provider = try MockProvider(configuration: knobs)
        client = OIDCClient(transport: try Self.httpClient(), time: time, jwksRefetchInterval: jwksRefetchInterval)
        metadata = try await client.discover(issuer: provider.issuer).cached.metadata
    }

    static func httpClient(pooled: Bool = true) throws -> HTTPClient {
        try HTTPClient(
            configuration: HTTPClientConfiguration(
                connectTimeout: .seconds(5), totalTimeout: .seconds(15), maxIdleConnectionsPerHost: pooled ? 4 : 0))
    }

    func startLogin(timeout: Duration = .seconds(60)) async throws -> LoginSession {
        try await LoginSession.start(client: client, metadata: metadata, configuration: configuration, timeout: timeout)
    }

    /// Plays the browser: opens the authorization URL, follows the provider's 302 to the
    /// loopback listener, returns the listener's page.
    static func browse(_ session: LoginSession) async throws -> HTTPResponse {
        let browser = try httpClient(pooled: false)
        let answer = try await browser.send(HTTPClientRequest(url: session.authorizationURL))
        try #require(answer.status == 302, "authorize answered \(answer.status)")
        let location = try #require(answer.headers["Location"])
        return try await browser.send(HTTPClientRequest(url: location))
    }

    /// A whole login; the result and the page the browser saw.
    func login() async throws -> (Result<LoginResult, OIDCError>, HTTPResponse) {
        let session = try await startLogin()
        let page = try await Self.browse(session)
        return (await session.result(), page)
    }

    func loggedIn() async throws -> LoginResult {
        try await login().0.get()
    }

    func stop() async { await provider.stop() }
}

/// GETs `url` once with a fresh connection (the test's browser).
func browserGet(_ url: String) async throws -> HTTPResponse {
    try await MockProviderHarness.httpClient(pooled: false).send(HTTPClientRequest(url: url))
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
