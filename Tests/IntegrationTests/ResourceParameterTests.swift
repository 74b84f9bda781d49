import Foundation
import Testing

/// RFC 8707 `resource` for an account of a protected resource (`--resource-url`), with the real
/// binaries against the mock's protected-resource mode, which checks it on every grant.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ResourceParameterTests {
    @Test func theResourceIsSentOnTheAuthorizationTheCodeExchangeAndEveryRefresh() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        let resource = provider.origin + "/mcp"
        // Written with capitals and the default port: the daemon keeps the canonical form.
        let written = "HTTP://127.0.0.1:\(provider.port)/mcp"
        let add = try await harness.authctl([
            "account", "add", "mcp", "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url", written,
        ])
        #expect(add.status == 0, "\(add)")
        let shown = try await harness.authctl(["account", "show", "mcp", "--json"])
        #expect(shown.stdout.contains(#""resource_url" : "\#(resource)""#), "\(shown)")
        let login = try await harness.login("mcp", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        let token = try await harness.token("mcp")
        #expect(try await provider.callResource(token: token) == 200)
        let refresh = try await harness.authctl(["refresh", "mcp"])
        #expect(refresh.status == 0, "\(refresh)\n\(harness.daemonLog)")
        let stats = try await provider.protectedResourceStats
        #expect(
            stats.resourceParameters == [
                "authorize=\(resource)", "authorization_code=\(resource)", "refresh_token=\(resource)",
            ], "\(stats)")
        #expect(stats.invalidTargets == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    /// A pushed authorization request (RFC 9126) carries it too: the mock checks the pushed
    /// parameters when the browser arrives with the `request_uri`.
    @Test func aPushedAuthorizationRequestCarriesTheResource() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}, "requirePAR": true}"#)
        let resource = provider.origin + "/mcp"
        let add = try await harness.authctl([
            "account", "add", "mcp", "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url", resource,
        ])
        #expect(add.status == 0, "\(add)")
        #expect(try await harness.login("mcp", provider: provider).status == 0, "\(harness.daemonLog)")
        #expect(try await provider.stats.parRequests == 1)
        let stats = try await provider.protectedResourceStats
        #expect(stats.resourceParameters == ["authorize=\(resource)", "authorization_code=\(resource)"], "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func noResourceParameterKeepsTheURLButSendsNone() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"protectedResource": {"checkResource": false}}"#)
        let add = try await harness.authctl([
            "account", "add", "entra-like", "--issuer", provider.issuer, "--client-id", "mock-client",
            "--resource-url", provider.origin + "/mcp", "--no-resource-parameter",
        ])
        #expect(add.status == 0, "\(add)")
        let shown = try await harness.authctl(["account", "show", "entra-like"])
        #expect(
            shown.stdout.contains("resource_url: \(provider.origin)/mcp") && shown.stdout.contains("send_resource: false"),
            "\(shown)")
        #expect(try await harness.login("entra-like", provider: provider).status == 0)
        #expect(try await harness.authctl(["refresh", "entra-like"]).status == 0)
        let stats = try await provider.protectedResourceStats
        #expect(stats.resourceParameters == ["authorize=-", "authorization_code=-", "refresh_token=-"], "\(stats)")
        // Without --resource-url the flag means nothing: refused before anything is stored.
        let alone = try await harness.authctl([
            "account", "add", "x", "--issuer", provider.issuer, "--client-id", "mock-client", "--no-resource-parameter",
        ])
        #expect(alone.status == 64 && alone.stderr.contains("--no-resource-parameter needs --resource-url"), "\(alone)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aResourceURLThatIsNotCanonicalizableIsRefused() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        for (url, reason) in [("http://mcp.example.com/mcp", "must use https"), ("https://mcp.example.com/mcp#x", "fragment")] {
            let add = try await harness.authctl([
                "account", "add", "bad", "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url", url,
            ])
            #expect(add.status != 0 && add.stderr.contains(reason), "\(add)")
        }
        #expect(await harness.stopDaemon() == 0)
    }
}
