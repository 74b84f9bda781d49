import Foundation
import Testing

/// Pushed authorization requests (RFC 9126) with the real binaries against the mock: a provider
/// that requires them, the browser URL that carries only the reference, and `--par` refusals.
/// Serialized: each test runs a daemon and a mock, and six of each at once on top of the rest of
/// the parallel suite starved the in-process loopback tests on this 2-core machine (timeouts).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PushedAuthorizationLoginTests {
    /// The names of an authorization URL's query parameters, in order.
    static func parameterNames(_ url: String) -> [String] {
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        return query.split(separator: "&").map { String($0.split(separator: "=", maxSplits: 1)[0]) }
    }

    @Test func aRequiringProviderLogsInThroughAPushAndTheBrowserSeesOnlyTheReference() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"requirePAR": true, "accessTokenLifetime": 20}"#)
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(url.hasPrefix(provider.issuer + "/authorize?"), "\(url)")
        #expect(Self.parameterNames(url) == ["client_id", "request_uri"], "\(url)")
        for secretOrDetail in ["state=", "code_challenge", "redirect_uri", "scope", "nonce", "127.0.0.1"] {
            #expect(!url.dropFirst(provider.issuer.count).contains(secretOrDetail), "\(secretOrDetail) in \(url)")
        }
        #expect(try await provider.playBrowser(url) == 200)
        #expect(await login.waitForExit(timeout: 30) == 0, "\(login.stderr)\n\(harness.daemonLog)")

        // The request_uri is single use: the browser's second visit is refused.
        #expect(try await provider.get(String(url.dropFirst(provider.issuer.count))) == 400)
        let token = try await harness.token("work")
        #expect(try await provider.accepts(token))
        try await Task.sleep(for: .seconds(2.2))  // past the first 10 % of the lifetime, when min_ttl can refresh
        let refreshed = try await harness.token("work", ["--min-ttl", "3600"])
        #expect(refreshed != token)
        #expect(try await provider.accepts(refreshed))
        let stats = try await provider.stats
        #expect(stats.parRequests == 1 && stats.codeExchanges == 1 && stats.refreshes >= 1, "\(stats)")
        #expect(stats.refusedRequestURIs == 1, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func parNeverAgainstARequiringProviderIsRefusedBeforeTheBrowser() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"requirePAR": true}"#)
        let add = try await harness.authctl([
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--par", "never",
        ])
        #expect(add.status == 0, "\(add)")
        let login = try await harness.authctl(["login", "work", "--no-browser", "--timeout", "10"])
        #expect(login.status != 0 && !login.stdout.contains("http"), "\(login)")
        #expect(
            login.stderr.contains("requires pushed authorization requests (require_pushed_authorization_requests)"), "\(login)")
        #expect(login.stderr.contains("--par never") && login.stderr.contains("--par auto"), "\(login)")
        let stats = try await provider.stats
        #expect(stats.parRequests == 0 && stats.authorizationRequests == 0, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// Required for this client only (RFC 9126 §6 client metadata, not in the discovery document):
    /// `auto` pushes because the endpoint is listed; `never` reaches the provider, which refuses.
    @Test func aClientOnlyRequirementIsMetByAutoAndRefusedByTheProviderForNever() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"requirePAR": true, "advertiseRequirePAR": false}"#)
        try await harness.signIn("auto", provider: provider)
        _ = try await harness.authctl([
            "account", "add", "never", "--issuer", provider.issuer, "--client-id", "mock-client", "--par", "never",
        ])
        let login = try await harness.login("never", provider: provider, timeout: 10)
        #expect(login.status != 0, "\(login)")
        #expect(
            login.stderr.contains("invalid_request") && login.stderr.contains("pushed authorization requests are required"),
            "\(login)\n\(harness.daemonLog)")
        #expect(try await provider.stats.parRequests == 1)
        #expect(await harness.stopDaemon() == 0)
    }

    /// Manual endpoints: `--par always` needs `--par-endpoint`; with it, the login pushes there.
    @Test func manualEndpointsPushOnlyWithAParEndpoint() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"pushedAuthorizationRequests": true}"#)
        let manual = [
            "--issuer", provider.issuer, "--client-id", "mock-client", "--authorization-endpoint", provider.issuer + "/authorize",
            "--token-endpoint", provider.issuer + "/token", "--jwks-uri", provider.issuer + "/jwks", "--par", "always",
        ]
        #expect(try await harness.authctl(["account", "add", "bare"] + manual).status == 0)
        let refused = try await harness.authctl(["login", "bare", "--no-browser", "--timeout", "10"])
        #expect(
            refused.status != 0 && refused.stderr.contains("--par always") && refused.stderr.contains("--par-endpoint"),
            "\(refused)")

        #expect(
            try await harness.authctl(["account", "add", "pushed"] + manual + ["--par-endpoint", provider.issuer + "/par"]).status
                == 0)
        let login = try await harness.login("pushed", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        #expect(try await provider.stats.parRequests == 1)
        #expect(await harness.stopDaemon() == 0)
    }
}

extension PushedAuthorizationLoginTests {
    /// Split metadata (issue 12's gap-filling): only the RFC 8414 document lists the PAR endpoint;
    /// the login completes the cached OpenID document from it and pushes.
    @Test func theParEndpointOnlyRFC8414ListsIsFoundForTheLogin() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"""
                {"requirePAR": true, "onlyInRFC8414": ["pushed_authorization_request_endpoint", "require_pushed_authorization_requests"]}
                """#)
        try await harness.signIn("work", provider: provider)
        #expect(try await provider.stats.parRequests == 1)
        #expect(await harness.stopDaemon() == 0)
    }
}

extension PushedAuthorizationLoginTests {
    /// The mock's `request_uri` expires (`requestURILifetime`): a browser that comes too late is
    /// refused by the provider, and nothing reaches the daemon's listener.
    @Test func anExpiredRequestURIIsRefusedByTheProvider() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"requirePAR": true, "requestURILifetime": 1}"#)
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: login)
        try await Task.sleep(for: .seconds(1.5))
        #expect(try await provider.get(String(url.dropFirst(provider.issuer.count))) == 400)
        let stats = try await provider.stats
        #expect(stats.refusedRequestURIs == 1 && stats.codeExchanges == 0, "\(stats)")
        #expect(login.isRunning, "the login still waits for a redirect: \(login.stderr)")
        _ = await login.stop(signal: SIGTERM)
        #expect(await harness.stopDaemon() == 0)
    }
}
