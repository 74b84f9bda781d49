import BrokerHTTP
import Foundation
import TestSupport
import Testing

/// The `mock-oidc-provider` executable, spawned for one test: its knobs set through
/// `POST /_mock/config`, its counters read from `GET /_mock/stats`. Its stdin is a pipe held by
/// the test, so it exits with the test process even after a crash.
final class MockProviderProcess: Sendable {
    let process: SpawnedProcess
    let issuer: String
    /// Shopify mode (`shopifyShopID`): the shop's domain, which serves the discovery document.
    let shopDomain: String?
    /// The one client every request of the tests to the mock goes through (its extensions too).
    let client: HTTPClient

    /// The counters the tests read (a subset of the mock's `MockProviderStats`).
    struct Stats: Decodable, Equatable {
        var codeExchanges: Int
        var refreshes: Int
        var tokensIssued: Int
        var revocations: Int
        var familyRevocations: Int
        var authorizationRequests: Int
        var nonJSONAuthenticateRequests: Int
        var endedSessions: Int
        var discoveryRequests: Int
        var revokedHints: [String]
        var liveRefreshTokens: Int
        var formEncodedAnswers: Int
        var devicePolls: Int
        var entraTokenTenants: [String]
        var parRequests: Int
        var refusedRequestURIs: Int
        var refreshScopes: [String]
        var refreshResources: [String]
    }

    /// Starts the mock with `configuration` (a JSON object of knobs) on an ephemeral port, or on
    /// `port` (to bring a stopped provider back at the same issuer). `timeout` only bounds the
    /// wait for readiness (generous: a debug binary generating its keys on a loaded 2-core machine).
    init(directory: String, configuration: String = "{}", port: Int = 0, timeout: Double = 60) async throws {
        let name = "mock-\(UInt32.random(in: 0...UInt32.max))"
        process = try SpawnedProcess(
            [try ProductBinary.path("mock-oidc-provider"), "--port", "\(port)", "--config", configuration],
            environment: ["PATH": "/usr/bin:/bin"], stdoutPath: directory + "/\(name).out",
            stderrPath: directory + "/\(name).err", keepStdinOpen: true)
        let process = process
        var listening: String?
        _ = await SpawnedProcess.eventually(timeout: timeout) {
            listening = process.stdout.split(separator: "\n").first { $0.hasPrefix("listening ") }
                .map { String($0.dropFirst("listening ".count)) }
            return listening != nil || !process.isRunning
        }
        guard let listening else { throw HarnessError.notReady("mock-oidc-provider", process.stderr) }
        issuer = listening
        shopDomain = process.stdout.split(separator: "\n").first { $0.hasPrefix("shop-domain ") }
            .map { String($0.dropFirst("shop-domain ".count)) }
        client = try HTTPClient(configuration: HTTPClientConfiguration(totalTimeout: .seconds(15), maxIdleConnectionsPerHost: 0))
    }

    /// The issuer's port (its path, if any, is not part of it).
    var port: Int { Int(issuer.split(separator: ":").last?.prefix { $0.isNumber } ?? "") ?? 0 }

    /// Merges `json` (a partial knob object, e.g. `{"accessTokenLifetime": 2}`) into the configuration.
    func configure(_ json: String) async throws {
        let answer = try await client.send(
            HTTPClientRequest(
                method: "POST", url: issuer + "/_mock/config",
                headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(json.utf8)))
        guard answer.status == 200 else { throw HarnessError.unexpected("/_mock/config answered \(answer.status)") }
    }

    /// A new signing key (new `kid`) signs ID tokens from now on; the old one stays published.
    /// `sameKID`: the new key keeps the old key's `kid` and replaces it in the JWKS.
    func rotateKey(sameKID: Bool = false) async throws {
        let url = issuer + "/_mock/rotate-key" + (sameKID ? "?same_kid=true" : "")
        let answer = try await client.send(HTTPClientRequest(method: "POST", url: url))
        guard answer.status == 200 else { throw HarnessError.unexpected("/_mock/rotate-key answered \(answer.status)") }
    }

    /// The user revokes the app's authorization at the provider: every refresh token dies.
    func revokeAll() async throws {
        let answer = try await client.send(HTTPClientRequest(method: "POST", url: issuer + "/_mock/revoke-all"))
        guard answer.status == 200 else { throw HarnessError.unexpected("/_mock/revoke-all answered \(answer.status)") }
    }

    /// The current knobs as JSON (sorted keys); a fault's `remaining` counts down as requests arrive.
    var configurationJSON: String {
        get async throws {
            String(decoding: try await client.send(HTTPClientRequest(url: issuer + "/_mock/config")).body, as: UTF8.self)
        }
    }

    var stats: Stats {
        get async throws {
            let answer = try await client.send(HTTPClientRequest(url: issuer + "/_mock/stats"))
            return try JSONDecoder().decode(Stats.self, from: Data(answer.body))
        }
    }

    /// Whether the provider accepts `token` now (its userinfo endpoint answers 200).
    func accepts(_ token: String) async throws -> Bool {
        let answer = try await client.send(
            HTTPClientRequest(url: issuer + "/userinfo", headers: HTTPHeaders([("Authorization", "Bearer \(token)")])))
        return answer.status == 200
    }

    /// The status of a plain GET of `path` (e.g. a logout URL the browser would open).
    func get(_ path: String) async throws -> Int {
        try await client.send(HTTPClientRequest(url: issuer + path)).status
    }

    /// Plays the browser: GETs the authorization URL and follows its redirect to the daemon's
    /// loopback listener with a plain GET. Returns the callback page's status.
    func playBrowser(_ authorizationURL: String) async throws -> Int {
        try await client.send(HTTPClientRequest(url: try await redirect(for: authorizationURL))).status
    }

    /// The browser's first step: GETs the authorization URL and returns where the provider
    /// redirects (for a private-use scheme, what the browser hands to the desktop's handler).
    func redirect(for authorizationURL: String) async throws -> String {
        let answer = try await client.send(HTTPClientRequest(url: authorizationURL))
        guard answer.status == 302, let location = answer.headers["Location"] else {
            throw HarnessError.unexpected("authorize answered \(answer.status)")
        }
        return location
    }

    func stop() async {
        await process.stop()
    }
}

/// Why the end-to-end harness could not go on.
enum HarnessError: Error, CustomStringConvertible {
    case notReady(String, String)
    case unexpected(String)

    var description: String {
        switch self {
        case .notReady(let what, let log): "\(what) did not become ready; its log:\n\(log)"
        case .unexpected(let what): what
        }
    }
}
