import BrokerCrypto
import BrokerHTTP
import Foundation
import Synchronization
import TestSupport

/// An OpenID provider for tests, on the project's own HTTP server over plain http on
/// 127.0.0.1 (the engine allows http for loopback). Not shipped in the daemon.
///
/// Endpoints (issuer `http://127.0.0.1:PORT`): discovery (`/.well-known/openid-configuration`
/// and RFC 8414 `/.well-known/oauth-authorization-server`), `/jwks`, `/authorize` (no UI: it
/// redirects straight back with `code`, `state` and `iss`, so a test follows it with a plain
/// GET as a browser would), `/token` (authorization_code with PKCE S256, refresh_token,
/// device_code), `/revoke`, `/userinfo`, `/device_authorization`, `/end_session`. Knobs
/// (`MockProviderConfiguration`) and counters (`MockProviderStats`) are readable and settable
/// while it runs, in process or through `/_mock/config`, `/_mock/stats`, `/_mock/rotate-key`.
public final class MockProvider: Sendable {
    public let issuer: String
    public let port: Int
    /// Shopify mode (`shopifyShopID`): the origin of the shop's domain, which serves the discovery
    /// document (`http://127.0.0.1:OTHER_PORT`); nil otherwise.
    public let shopDomain: String?
    /// The issuer's path (`/authentication/ID` in Shopify mode, `issuerPath`, else empty): routes are
    /// matched below it.
    let issuerPath: String
    let state: Mutex<MockProviderState>
    /// The MCP server on this origin (`/mcp`, `MockMCPServer`).
    public let mcp = MockMCPServer()
    /// The issuer's listener, and the shop domain's in Shopify mode.
    private let servers: Mutex<[HTTPServer]>

    /// Starts a provider on 127.0.0.1:`port` (0: ephemeral).
    public init(configuration: MockProviderConfiguration = MockProviderConfiguration(), port: Int = 0) throws {
        let listener = try HTTPListener.tcp(host: "127.0.0.1", port: port)
        self.port = listener.port ?? port
        issuerPath =
            configuration.shopifyShopID.map { "/authentication/\($0)" } ?? configuration.issuerPath
            ?? Self.entraIssuerPath(configuration)
        issuer = "http://127.0.0.1:\(self.port)" + issuerPath
        // Shopify serves discovery at the shop's own domain: another origin than the issuer's.
        let shopListener = try configuration.shopifyShopID.map { _ in try HTTPListener.tcp(host: "127.0.0.1", port: 0) }
        shopDomain = shopListener.map { "http://127.0.0.1:\($0.port ?? 0)" }
        var initial = MockProviderState(keys: [try Self.newKey(algorithm: configuration.signingAlgorithm, shared: true)])
        initial.configuration = configuration
        state = Mutex(initial)
        servers = Mutex([])
        let started = HTTPServer.start(listener: listener, handler: MockRouter(provider: self))
        let shop = shopListener.map { HTTPServer.start(listener: $0, handler: MockShopDomainRouter(provider: self)) }
        servers.withLock { $0 = [started] + (shop.map { [$0] } ?? []) }
    }

    /// Stops the server (connections are cut after a short drain).
    public func stop() async {
        let running = servers.withLock { servers in
            defer { servers = [] }
            return servers
        }
        for server in running { await server.stop() }
    }

    public var configuration: MockProviderConfiguration { state.withLock { $0.configuration } }

    /// Changes knobs atomically: `provider.configure { $0.rotateRefreshTokens = false }`.
    public func configure(_ change: (inout MockProviderConfiguration) -> Void) {
        state.withLock { change(&$0.configuration) }
    }

    public var stats: MockProviderStats {
        state.withLock { state in
            var stats = state.stats
            stats.liveRefreshTokens =
                state.refreshTokens.values.filter { record in
                    record.status == .active && !state.families[record.family].revoked
                }.count
            return stats
        }
    }

    /// Every secret value this provider issued or received so far: authorization codes, the PKCE
    /// verifiers sent to its token endpoint, access, refresh and ID tokens (for leak tests).
    public var secrets: [String] {
        state.withLock { state in
            state.issuedCodes + state.receivedCodeVerifiers + Array(state.accessTokens.keys)
                + Array(state.refreshTokens.keys) + Array(state.issuedIDTokens)
        }
    }

    /// Key rotation: a new key (new `kid`) of the configured algorithm signs from now on. The
    /// old keys stay published unless `dropOld`. `sameKID`: the new key takes the current
    /// signing key's `kid` and replaces it (a provider that rotated without a new `kid`).
    /// Returns the new `kid`.
    @discardableResult
    public func rotateKey(dropOld: Bool = false, sameKID: Bool = false) throws -> String {
        let kid: String? = sameKID ? try state.withLock { try signingKey(&$0).kid } : nil
        let key = try Self.newKey(algorithm: configuration.signingAlgorithm, shared: false, kid: kid)
        state.withLock { state in
            if dropOld { state.keys = [] }
            if let kid { state.keys.removeAll { $0.kid == kid } }
            state.keys.append(key)
        }
        return key.kid
    }

    /// The `kid`s published in the JWKS, oldest first.
    public var publishedKeyIDs: [String] { state.withLock { $0.keys.map(\.kid) } }

    /// The metadata URL of `endpoint` ("authorize", "token", …).
    public func url(_ path: String) -> String { issuer + "/" + path }

    /// A fresh key for `algorithm`; `shared` reuses one process-wide key per algorithm, since
    /// RSA key generation is slow and most tests never rotate.
    static func newKey(algorithm: String, shared: Bool, kid: String? = nil) throws -> TestSigningKey {
        let isEC = algorithm == "ES256"
        if shared, let key = isEC ? sharedKeys.ec : sharedKeys.rsa { return key }
        return try TestSigningKey(isEC ? .p256 : .rsa(bits: 2048), kid: kid)
    }

    private static let sharedKeys = (
        rsa: try? TestSigningKey(.rsa(bits: 2048), kid: "mock-rsa-1"), ec: try? TestSigningKey(.p256, kid: "mock-ec-1")
    )

    /// The newest published key of the configured algorithm, created (and published) if none.
    func signingKey(_ state: inout MockProviderState) throws -> TestSigningKey {
        let algorithm = state.configuration.signingAlgorithm
        if let key = state.keys.last(where: { $0.algorithm.rawValue == algorithm }) { return key }
        let key = try Self.newKey(algorithm: algorithm, shared: true)
        state.keys.append(key)
        return key
    }
}

/// Routes requests to the provider's endpoints, applying injected faults first.
struct MockRouter: HTTPHandler {
    let provider: MockProvider

    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        guard let log = provider.configuration.timingLog else { return await route(request, connection: connection) }
        let start = ContinuousClock.now
        let response = await route(request, connection: connection)
        let elapsed = (ContinuousClock.now - start).components
        MockTimingLog.append(
            "\(request.method) \(request.path) \(elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000)\n",
            to: log)
        return response
    }

    private func route(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        if let answer = provider.mcp.answer(request, provider: provider) { return answer }
        if let answer = provider.protectedResourceAnswer(request) { return answer }
        // Every URL of the provider is under its issuer (`url(_:)`), which has a path in Shopify mode.
        guard let path = provider.entraTokenPath(String(request.path)) ?? provider.pathBelowIssuer(String(request.path)) else {
            return .plainText(status: 404, "no such endpoint")
        }
        if path.hasPrefix("/_mock/") { return provider.admin(request, path: path) }
        // The DPoP protected resource takes GET and POST (no faults apply).
        if path == "/resource" { return provider.resource(request) }
        // A redirect to it, for clients that must not follow one with the token (`authctl curl`).
        if path == "/resource/moved" { return MockResponse.redirect(to: provider.url("resource")) }
        guard let (endpoint, method) = Self.routes[path], provider.serves(endpoint) else {
            return .plainText(status: 404, "no such endpoint")
        }
        guard request.method == method else { return .plainText(status: 405, "use \(method)") }
        if let fault = provider.state.withLock({ $0.takeFault(endpoint) }) {
            if fault.kind == .slow {
                try? await Task.sleep(for: .milliseconds(fault.delayMilliseconds ?? 1000))
                if fault.status != nil { return MockResponse.fault(MockFault(.status, status: fault.status)) }
            } else {
                return MockResponse.fault(fault)
            }
        }
        if path.hasPrefix("/user_management/") { return provider.userManagement(endpoint, request) }
        if path.hasPrefix("/login/") { return provider.github(endpoint, request) }
        if provider.configuration.google, let answer = provider.google(endpoint, request) { return answer }
        return provider.answer(endpoint, request)
    }

    /// path → (endpoint name used by faults, method)
    static let routes: [String: (String, String)] = [
        "/.well-known/openid-configuration": ("discovery", "GET"),
        "/.well-known/oauth-authorization-server": ("discovery", "GET"),
        "/jwks": ("jwks", "GET"),
        "/authorize": ("authorize", "GET"),
        "/token": ("token", "POST"),
        "/revoke": ("revocation", "POST"),
        "/userinfo": ("userinfo", "GET"),
        "/device_authorization": ("device", "POST"),
        "/end_session": ("end_session", "GET"),
        "/par": ("par", "POST"),
        // WorkOS User Management (`MockProviderConfiguration.userManagement`), same fault names.
        "/user_management/authorize": ("authorize", "GET"),
        "/user_management/authenticate": ("token", "POST"),
        "/user_management/sessions/logout": ("end_session", "GET"),
        // Shopify's paths below the issuer (`shopifyShopID`), as its discovery document names them.
        "/oauth/authorize": ("authorize", "GET"),
        "/oauth/token": ("token", "POST"),
        "/logout": ("end_session", "GET"),
        "/.well-known/jwks.json": ("jwks", "GET"),
        // GitHub (`MockProviderConfiguration.github`), same fault names.
        "/login/oauth/authorize": ("authorize", "GET"),
        "/login/oauth/access_token": ("token", "POST"),
        "/login/device/code": ("device", "POST"),
    ]
}

extension MockProvider {
    func answer(_ endpoint: String, _ request: HTTPRequest) -> HTTPResponse {
        switch endpoint {
        case "discovery": discovery(request)
        case "jwks": jwks()
        case "authorize": authorize(request)
        case "token": token(request)
        case "revocation": revoke(request)
        case "userinfo": userinfo(request)
        case "device": deviceAuthorization(request)
        case "par": pushedAuthorization(request)
        default: endSession(request)
        }
    }
}
