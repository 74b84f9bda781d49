import Foundation
import TestSupport
import Testing

/// `authctl account add --provider PRESET` with the real binaries against the mock: the Shopify
/// preset against its Shopify-shaped mode (discovery at the shop's domain, another origin than the
/// issuer; no revocation endpoint; a client registered only for `shop.4242.app://callback`), the
/// WorkOS preset against its User Management mode, and the usage errors.
@Suite struct PresetAccountTests {
    static let shopRedirect = "shop.4242.app://callback"
    static let shopifyMock = #"{"shopifyShopID": "4242", "registeredRedirectURI": "shop.4242.app://callback"}"#

    /// The account's configuration as `account show --json` returns it.
    static func configuration(_ name: String, _ harness: BrokerHarness) async throws -> [String: Any] {
        let show = try await harness.authctl(["account", "show", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        return try #require(object?["configuration"] as? [String: Any], "\(show)")
    }

    @Test(.timeLimit(.minutes(1)))
    func shopifyPresetDerivesIssuerScopesAndRedirectThenLogsInAndOutWithoutRevoking() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: Self.shopifyMock)
        let shopDomain = try #require(provider.shopDomain)
        #expect(!provider.issuer.hasPrefix(shopDomain + "/"), "the mock must serve discovery on another origin")
        let add = try await harness.authctl([
            "account", "add", "shop", "--provider", "shopify", "--shop-domain", shopDomain, "--client-id", "mock-client",
        ])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let stored = try await Self.configuration("shop", harness)
        #expect(stored["issuer"] as? String == provider.issuer)
        #expect(stored["scopes"] as? [String] == ["openid", "email", "customer-account-api:full"])
        #expect(stored["redirect_uri"] as? String == Self.shopRedirect)
        #expect(stored["discovery_url"] as? String == shopDomain + "/.well-known/openid-configuration")
        let shown = try await harness.authctl(["account", "show", "shop"])
        #expect(shown.stdout.contains("redirect_uri: \(Self.shopRedirect)\n"), "\(shown)")
        #expect(shown.stdout.contains("discovery_url: \(shopDomain)/.well-known/openid-configuration\n"), "\(shown)")

        let login = try harness.spawnAuthctl(["login", "shop", "--no-browser", "--no-register", "--timeout", "60"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(url.hasPrefix(provider.issuer + "/oauth/authorize?"), "\(url)")
        #expect(
            url.contains("scope=openid%20email%20customer-account-api%3Afull")
                || url.contains("scope=openid+email+customer-account-api%3Afull"), "\(url)")
        let location = try await provider.redirect(for: url)
        #expect(location.hasPrefix(Self.shopRedirect + "?"), "\(location)")
        let callback = try await harness.authctl(["callback", location])
        #expect(callback.status == 0, "\(callback)\n\(harness.daemonLog)")
        #expect(await login.waitForExit(timeout: 20) == 0, "\(login.stderr)")
        let token = try await harness.token("shop")
        #expect(try await provider.accepts(token))

        let logout = try await harness.authctl(["logout", "shop"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("not revoked"), "\(logout)")
        #expect(logout.stdout.hasPrefix(provider.issuer + "/logout?"), "the end-session URL: \(logout)")
        #expect(try await provider.stats.revocations == 0)
        #expect(try await harness.authctl(["token", "shop"]).status == 77)
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func presetMistakesAreUsageErrorsThatSayWhatToAdd() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: Self.shopifyMock)
        let help = try await harness.authctl(["account", "add", "--provider", "help"])
        #expect(help.status == 0, "\(help)")
        for expected in [
            "shopify", "workos", "workos-connect", "--shop-domain SHOP.myshopify.com", "--authkit-domain",
            "docs/providers.md#shopify-customer-account-api",
        ] {
            #expect(help.stdout.contains(expected), "\(expected): \(help)")
        }
        let base = ["account", "add", "x", "--client-id", "mock-client"]
        let cases: [([String], String)] = [
            (["--provider", "shopifi"], "unknown provider preset 'shopifi'"),
            (["--provider", "shopify"], "--provider shopify needs --shop-domain SHOP.myshopify.com"),
            (["--shop-domain", "shop.example.com"], "add --provider shopify"),
            (
                ["--provider", "shopify", "--shop-domain", "a.example", "--authkit-domain", "b.example"],
                "it belongs to --provider workos-connect"
            ),
            (
                ["--provider", "shopify", "--shop-domain", "http://shop.example.com"],
                "plain http is allowed only for loopback hosts"
            ),
            (["--provider", "shopify", "--shop-domain", "shop.example.com/admin"], "--shop-domain takes the shop's domain"),
        ]
        for (extra, message) in cases {
            let run = try await harness.authctl(base + extra)
            #expect(run.status == 64 && run.stderr.contains(message), "\(extra): \(run)")
        }
        // The issuer's origin serves no discovery in Shopify mode: not the shop's domain.
        let origin = "http://127.0.0.1:\(provider.port)"
        let wrong = try await harness.authctl(base + ["--provider", "shopify", "--shop-domain", origin])
        #expect(wrong.status == 64, "invalid_request: \(wrong)")
        #expect(
            wrong.stderr.contains(
                "could not read \(origin)/.well-known/openid-configuration: HTTP 404, no discovery document there")
                && wrong.stderr.contains("; is --shop-domain the shop's domain?"), "\(wrong)")
        let listed = try await harness.authctl(["account", "list", "--json"])
        #expect(listed.status == 0 && !listed.stdout.contains("\"x\""), "a refused preset added an account: \(listed)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func workosPresetLogsInAndRefreshesWithJSONTokenRequests() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"userManagement": true, "accessTokenLifetime": 4}"#)
        // The preset's endpoints are api.workos.com's; point them at the mock (explicit options win).
        let base = provider.issuer + "/user_management"
        let add = try await harness.authctl([
            "account", "add", "wos", "--provider", "workos", "--client-id", "mock-client", "--issuer", provider.issuer,
            "--authorization-endpoint", base + "/authorize", "--token-endpoint", base + "/authenticate",
            "--end-session-endpoint", base + "/sessions/logout", "--jwks-uri", provider.issuer + "/jwks",
        ])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let stored = try await Self.configuration("wos", harness)
        #expect(stored["token_request_format"] as? String == "json")
        #expect(stored["extra_parameters"] as? [String: String] == ["provider": "authkit"])
        #expect((stored["scopes"] as? [String])?.isEmpty == true)
        let login = try await harness.login("wos", provider: provider)
        #expect(login.status == 0 && login.stderr.contains("Signed in to 'wos' as mock-user."), "\(login)\n\(harness.daemonLog)")
        let first = try await harness.token("wos")
        var refreshed = first
        let rotated = try await SpawnedProcess.eventually(timeout: 15) {
            refreshed = try await harness.token("wos")
            return refreshed != first
        }
        #expect(rotated, "no refresh:\n\(harness.daemonLog)")
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.refreshes >= 1 && stats.nonJSONAuthenticateRequests == 0, "\(stats)")
        let logout = try await harness.authctl(["logout", "wos"])
        #expect(logout.stdout.contains(base + "/sessions/logout?session_id="), "\(logout)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// Keycloak's shape: the issuer is the realm URL, discovery (and every endpoint) below it, a
    /// revocation endpoint in the document. `--realm-url` alone gives issuer, scopes and a login
    /// whose logout revokes.
    @Test(.timeLimit(.minutes(1)))
    func keycloakPresetDiscoversUnderTheRealmURLLogsInAndRevokesOnLogout() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"issuerPath": "/realms/Dev"}"#)
        #expect(provider.issuer.hasSuffix("/realms/Dev"))
        let add = try await harness.authctl([
            "account", "add", "kc", "--provider", "keycloak", "--realm-url", provider.issuer + "/", "--client-id", "mock-client",
        ])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let stored = try await Self.configuration("kc", harness)
        #expect(stored["issuer"] as? String == provider.issuer, "the trailing slash is dropped: \(stored)")
        #expect(stored["scopes"] as? [String] == ["openid", "offline_access"])
        #expect(stored["endpoints"] == nil, "discovery, not manual endpoints: \(stored)")
        let login = try await harness.login("kc", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(try await harness.token("kc")))
        let logout = try await harness.authctl(["logout", "kc"])
        #expect(logout.status == 0 && !logout.stderr.contains("not revoked"), "\(logout)")
        #expect(try await provider.stats.revocations >= 1)
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// Dex's shape (an issuer with a path; public clients may redirect only to localhost): the
    /// preset's redirect host reaches the authorization request, and an explicit one still wins.
    @Test(.timeLimit(.minutes(1)))
    func dexPresetRedirectsToLocalhostUnlessTold() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"issuerPath": "/dex"}"#)
        let add = try await harness.authctl([
            "account", "add", "dex", "--provider", "dex", "--dex-url", provider.issuer, "--client-id", "mock-client",
        ])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let stored = try await Self.configuration("dex", harness)
        #expect(stored["redirect_host"] as? String == "localhost" && stored["issuer"] as? String == provider.issuer)
        #expect(stored["scopes"] as? [String] == ["openid", "email", "offline_access"])
        let login = try harness.spawnAuthctl(["login", "dex", "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(
            url.hasPrefix(provider.issuer + "/authorize?") && url.contains("redirect_uri=http%3A%2F%2Flocalhost%3A"), "\(url)")
        _ = try await harness.authctl(["account", "remove", "dex"])
        _ = await login.waitForExit(timeout: 20)
        let pinned = try await harness.authctl([
            "account", "add", "dex2", "--provider", "dex", "--dex-url", provider.issuer, "--client-id", "mock-client",
            "--redirect-port", "8765",
        ])
        #expect(pinned.status == 0, "\(pinned)")
        #expect(try await Self.configuration("dex2", harness)["redirect_host"] == nil, "an explicit redirect option wins")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// GitHub documents the client secret as a body parameter, and manual endpoints carry no
    /// metadata that would say so: the `github` preset sends it `client_secret_post`. Against a mock
    /// that accepts only that, the preset's login succeeds and the same line with Basic fails.
    @Test(.timeLimit(.minutes(1)))
    func githubPresetSendsTheClientSecretInTheBody() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"clientAuthentication": "client_secret_post", "clientSecret": "gh-secret"}"#)
        let secretFile = harness.root + "/github.secret"
        try "gh-secret\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        // The preset's github.com endpoints pointed at the mock (explicit options win).
        let line = [
            "--provider", "github", "--client-id", "mock-client", "--client-secret-file", secretFile, "--issuer", provider.issuer,
            "--authorization-endpoint", provider.issuer + "/authorize", "--token-endpoint", provider.issuer + "/token",
            "--jwks-uri", provider.issuer + "/jwks",
        ]
        let add = try await harness.authctl(["account", "add", "gh"] + line)
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        #expect(try await Self.configuration("gh", harness)["token_endpoint_auth_method"] as? String == "client_secret_post")
        let login = try await harness.login("gh", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(try await harness.token("gh")))

        let basic = try await harness.authctl(
            ["account", "add", "gh-basic"] + line + ["--token-endpoint-auth-method", "client_secret_basic"])
        #expect(basic.status == 0, "\(basic)")
        let refused = try await harness.login("gh-basic", provider: provider, timeout: 10)
        #expect(refused.status != 0, "the mock must refuse Basic, or this test proves nothing: \(refused)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// With a preset, --issuer is optional (WorkOS's is derived from the client id, see
    /// ProviderPresetTests); without one it is still required.
    @Test func aPresetMakesTheIssuerOptional() async throws {
        let directory = try TemporaryDirectory(prefix: "preset-offline")
        defer { directory.remove() }
        // No daemon: exit 69 proves the whole line was accepted before connecting.
        let run = try await Subprocess.run(
            [
                try ChildProcess.binary("authctl"), "--socket", directory.appending("none.sock"), "account", "add", "w",
                "--provider", "workos", "--client-id", "client_01ABC",
            ],
            environment: ["PATH": "/usr/bin:/bin"], directory: directory.path)
        #expect(run.status == 69, "\(run.stderr)")
        let bare = try await Subprocess.run(
            [
                try ChildProcess.binary("authctl"), "--socket", directory.appending("none.sock"), "account", "add", "w",
                "--client-id", "client_01ABC",
            ],
            environment: ["PATH": "/usr/bin:/bin"], directory: directory.path)
        #expect(bare.status == 64 && bare.stderr.contains("--issuer URL, or --provider PRESET"), "\(bare.stderr)")
    }
}
