import Foundation
import MockProvider
import TestSupport
import Testing

/// The real binaries against a confidential-client mock provider, looking for every secret the
/// provider issued or received where docs/security.md says none may appear.
@Suite struct DaemonSecrecyTests {
    /// docs/security.md: "Never logged, printed, or put in error text or status output: access,
    /// refresh and ID tokens, authorization codes, PKCE verifiers, client secrets, the master key
    /// […] Request bodies and full URLs with query strings are not logged."
    @Test func noSecretReachesTheDebugLogStatusOutputOrTheNotifyHook() async throws {
        let secret = "client-secret-\(UInt64.random(in: 0...UInt64.max))"
        let (provider, harness) = try Self.confidentialSetup(secret: secret)
        defer { harness.remove() }
        let notes = harness.root + "/notify.env"
        let notify = try NotifyListener()
        let daemon = try harness.launch(
            harness.daemonArguments + [
                "--log-level", "debug", "--notify-command", "env > \(notes).tmp && mv \(notes).tmp \(notes)",
            ],
            notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        try #require(try await harness.authctl(Self.add(provider, harness)).status == 0, "\(daemon.log)")
        try await harness.login("work")

        var printed: [String] = []
        try await Self.waitPastBrandNew()
        for command in [["token", "work"], ["kube-credential", "work", "--id-token"], ["token", "work", "--min-ttl", "3600"]] {
            let run = try await harness.authctl(command)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            printed.append(run.stderr)  // stdout is the token itself: that is its job
        }
        for command in [
            ["status", "--json"], ["status"], ["status", "work", "--json"], ["account", "list"], ["account", "list", "--json"],
        ] {
            let run = try await harness.authctl(command)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            printed += [run.stdout, run.stderr]
        }
        #expect(provider.stats.refreshes >= 1, "--min-ttl 3600 did not force a refresh")

        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0, "\(logout.stderr)")
        // The end-session URL carries the ID token as id_token_hint by design (the browser must
        // open it, like the authorization URL's state): that parameter, and only it, may hold it.
        #expect(logout.stdout.contains("id_token_hint="), "\(logout.stdout)")
        printed += [logout.stdout.replacing(try Regex("id_token_hint=[^&\\s]*"), with: "id_token_hint=…"), logout.stderr]

        // A second login, then a refresh the provider rejects: that runs the notify hook.
        try await harness.login("work")
        provider.configure { $0.faults["token"] = MockFault(.invalidGrant, remaining: 1) }
        try await Self.waitPastBrandNew()
        let rejected = try await harness.authctl(["token", "work", "--min-ttl", "3600"])
        #expect(rejected.status == 77, "\(rejected.stderr)")
        printed.append(rejected.stderr)
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: notes) { try await Task.sleep(for: .milliseconds(25)) }
        let hookEnvironment = try #require(try? String(contentsOfFile: notes, encoding: .utf8), "the notify hook never ran")
        #expect(hookEnvironment.contains("AUTHBROKER_ACCOUNT=work"))
        #expect(try await daemon.stop() == 0)

        let masterKey = try String(contentsOfFile: harness.defaultKeyFile, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let secrets = provider.secrets + [secret, masterKey]
        #expect(provider.secrets.count >= 10, "codes, verifiers, access, refresh and ID tokens of two logins and a refresh")
        let log = daemon.log
        #expect(log.contains("debug"), "the daemon did not log at debug level:\n\(log)")
        for value in secrets {
            #expect(!log.contains(value), "a secret reached the daemon log: \(value)")
            #expect(!hookEnvironment.contains(value), "a secret reached the notify hook: \(value)")
            #expect(!printed.contains { $0.contains(value) }, "a secret reached authctl's output: \(value)")
        }
        for query in [
            "code_challenge=", "?state=", "&state=", "?code=", "&code=", "code_verifier=", "client_secret=", "grant_type=",
        ] {
            #expect(!log.contains(query), "a URL query or request body reached the daemon log (\(query))")
        }
        await provider.stop()
    }

    /// docs/security.md: "Refresh tokens and client secrets never leave the daemon: no API route
    /// returns them." Every GET route of APIRoute, over the real socket, after a login (started
    /// on the socket, so its login id is known) and a refresh.
    @Test func noGetRouteAnswersWithTheRefreshTokenOrTheClientSecret() async throws {
        let secret = "client-secret-\(UInt64.random(in: 0...UInt64.max))"
        let (provider, harness) = try Self.confidentialSetup(secret: secret)
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        try #require(try await harness.authctl(Self.add(provider, harness)).status == 0, "\(daemon.log)")

        let started = try Self.jsonBody(try await harness.rawRequest("/v1/accounts/work/login", method: "POST", body: "{}"))
        let loginID = try #require(started["login_id"] as? String, "\(started)")
        try await DaemonHarness.playBrowser(try #require(started["authorization_url"] as? String))
        var outcome: String?
        for _ in 0..<20 where outcome != "succeeded" {
            outcome = try Self.jsonBody(try await harness.rawRequest("/v1/logins/\(loginID)?wait=1"))["outcome"] as? String
        }
        try #require(outcome == "succeeded", "\(daemon.log)")
        try await Self.waitPastBrandNew()
        _ = try await harness.rawRequest("/v1/accounts/work/token?min_ttl=3600")
        #expect(provider.stats.refreshes >= 1)

        let routes = [
            "/v1/ping", "/v1/status", "/v1/accounts", "/v1/accounts/work", "/v1/accounts/work/token",
            "/v1/accounts/work/token?min_ttl=3600", "/v1/accounts/work/id_token", "/v1/logins/\(loginID)", "/metrics",
        ]
        let refreshTokens = provider.secrets.filter { $0.hasPrefix("rt-") }
        #expect(refreshTokens.count >= 2, "\(provider.secrets)")
        for route in routes {
            let answer = try await harness.rawRequest(route)
            #expect(answer.hasPrefix("HTTP/1.1 200 "), "\(route): \(answer)")
            #expect(!answer.contains(secret), "\(route) returned the client secret")
            for token in refreshTokens { #expect(!answer.contains(token), "\(route) returned a refresh token") }
        }
        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }

    /// docs/security.md: "Never logged, printed, or put in error text […]: proxy credentials."
    /// A proxy URL with a user and password on a closed port: the failure names the proxy's
    /// address (so the proxy was used) but neither its user nor its password.
    @Test func aProxyFailureNamesTheProxyButNotItsCredentials() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let port = try LoopbackListener.closedPort()
        let proxy = "http://proxy-user-\(port):proxy-pass-\(port)@127.0.0.1:\(port)"
        let notify = try NotifyListener()
        let daemon = try harness.launch(
            harness.daemonArguments + ["--log-level", "debug"], environment: ["HTTPS_PROXY": proxy], notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let add = try await harness.authctl(["account", "add", "work", "--issuer", "https://idp.example", "--client-id", "c"])
        #expect(add.status == 64, "an issuer the daemon could not use is invalid_request")
        #expect(add.stderr.contains("127.0.0.1:\(port)"), "the proxy was not used: \(add.stderr)")
        #expect(try await daemon.stop() == 0)
        for text in [add.stdout, add.stderr, daemon.log] {
            #expect(!text.contains("proxy-pass") && !text.contains("proxy-user"), "\(text)")
        }
    }

    /// The JSON object in the body of a raw HTTP answer (empty when there is none).
    static func jsonBody(_ answer: String) throws -> [String: Any] {
        guard let range = answer.range(of: "\r\n\r\n") else { return [:] }
        let object = try JSONSerialization.jsonObject(with: Data(answer[range.upperBound...].utf8))
        return object as? [String: Any] ?? [:]
    }

    /// A provider that requires `client_secret_basic` with `secret`, and a harness holding the
    /// secret in a 0600 file for `account add --client-secret-file`.
    static func confidentialSetup(secret: String) throws -> (MockProvider, DaemonHarness) {
        var configuration = MockProviderConfiguration()
        configuration.clientAuthentication = "client_secret_basic"
        configuration.clientSecret = secret
        configuration.accessTokenLifetime = 20
        let provider = try MockProvider(configuration: configuration)
        let harness = try DaemonHarness()
        try #require(
            FileManager.default.createFile(
                atPath: harness.root + "/client-secret", contents: Data((secret + "\n").utf8),
                attributes: [.posixPermissions: 0o600]))
        return (provider, harness)
    }

    /// Past the brand-new tenth of a 20 s token lifetime, so `--min-ttl` forces a refresh.
    static func waitPastBrandNew() async throws { try await Task.sleep(for: .seconds(2.5)) }

    /// `account add work` for `provider` with the harness's client-secret file.
    static func add(_ provider: MockProvider, _ harness: DaemonHarness) -> [String] {
        [
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
            "--scope", "offline_access", "--client-secret-file", harness.root + "/client-secret",
        ]
    }
}
