import Foundation
import TestSupport
import Testing

/// `authctl mcp` against the official MCP Python SDK (PyPI `mcp`, pinned in .ci/install-deps, in
/// the venv `.build/mcp-venv`): the SDK's `MCPServer` is the MCP server (Streamable HTTP, a
/// resource server verifying tokens by RFC 7662 introspection at the mock authorization server),
/// and the SDK's stdio client is the host, driving `authctl mcp` end to end
/// (Fixtures/mcp/sdk_server.py, sdk_client.py). The SDK cannot be the authorization server out of
/// the box (it needs an application-written provider), so the mock is; what the SDK server does
/// not do (a `scope=` on its insufficient_scope challenge, SSE answers split over data lines) the
/// mock's MCP server covers (MCPBridgeTests).
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: MCPSDK.isAvailable, MCPSDK.skipReason))
struct MCPSDKTests {
    @Test func theSDKsClientThroughTheBridgeToTheSDKsServerAcrossAnExpiryAndARemove() async throws {
        // Tokens live 4 s: the call after the wait is made with a refreshed one.
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"accessTokenLifetime": 4}"#)
        let server = try await MCPSDK.Server(issuer: provider.issuer, directory: harness.root)
        defer { server.stop() }
        try await harness.signIn(sdkAccount: "sdk", resource: server.url, provider: provider)
        let host = try MCPSDK.Host(
            try MCPSDK.bridgedHost(harness), harness: harness)
        defer { host.stop() }
        let initialized = try await host.next()
        #expect(initialized["server"] as? String == "sdk-test-server", "\(initialized)\n\(host.stderr)\n\(harness.daemonLog)")
        #expect(try await host.step("tools")["tools"] as? [String] == ["add", "announce", "echo"])
        #expect(try await host.step(#"call echo {"text": "over the bridge"}"#)["text"] as? String == "over the bridge")
        let refreshes = try await provider.stats.refreshes
        try await Task.sleep(for: .seconds(5))
        #expect(
            try await host.step(#"call add {"a": 2, "b": 3}"#)["text"] as? String == "5", "\(host.stderr)\n\(harness.daemonLog)")
        #expect(try await provider.stats.refreshes > refreshes)
        // Every refresh carried the SDK server's URL as RFC 8707 `resource`.
        let resources = try await provider.stats.refreshResources
        #expect(!resources.isEmpty && resources.allSatisfy { $0 == server.url }, "\(resources)")
        // Removing the account: the bridge's next request fails with one line naming the account.
        #expect(try await harness.authctl(["account", "remove", "sdk"]).status == 0)
        let removed = try await host.step(#"call echo {"text": "x"}"#)
        #expect(
            (removed["error"] as? String).map { $0.contains("sdk") } == true || removed["is_error"] as? Bool == true, "\(removed)"
        )
        host.closeInput()
        #expect(await host.process.waitForExit(timeout: 30) == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func theSDKServersNotificationsOnItsGETStreamReachTheSDKsClient() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let server = try await MCPSDK.Server(issuer: provider.issuer, directory: harness.root)
        defer { server.stop() }
        try await harness.signIn(sdkAccount: "sdk", resource: server.url, provider: provider)
        let host = try MCPSDK.Host(
            try MCPSDK.bridgedHost(harness), harness: harness)
        defer { host.stop() }
        #expect(try await host.next()["server"] as? String == "sdk-test-server", "\(host.stderr)")
        // The SDK server sends them on the session's standalone GET stream (they belong to no request),
        // a quarter second apart for 5 s: the bridge's stream is open by then.
        #expect(try await host.step(#"call announce {"times": 20}"#)["text"] as? String == "announced")
        let notified = try await host.step("notifications")["tool_list_changed"] as? Int ?? 0
        #expect(notified >= 1, "\(host.stderr)\n\(harness.daemonLog)")
        #expect(try await host.step(#"call echo {"text": "still here"}"#)["text"] as? String == "still here")
        host.closeInput()
        #expect(await host.process.waitForExit(timeout: 30) == 0)
        #expect(harness.daemonLog.contains("audit: mcp account=sdk method=GET"))
        // The stream's windows follow each other without an error (no 409 for a stream still open).
        #expect(!host.stderr.contains("authctl mcp:"), "\(host.stderr)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func theSDKServersInsufficientScopeIsAStepUpFromItsMetadata() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        // The server requires mcp:admin; the account was granted mcp:tools only.
        let server = try await MCPSDK.Server(
            issuer: provider.issuer, directory: harness.root, scopes: ["mcp:tools", "mcp:admin"])
        defer { server.stop() }
        try await harness.signIn(sdkAccount: "sdk", resource: server.url, provider: provider)
        let host = try MCPSDK.Host(
            try MCPSDK.bridgedHost(harness), harness: harness)
        defer { host.stop() }
        let refused = try await host.next()
        // The SDK's challenge has no scope=: the scopes come from its RFC 9728 metadata.
        #expect((refused["error"] as? String)?.contains("authctl login sdk") == true, "\(refused)\n\(host.stderr)")
        let status = try await harness.authctl(["status", "--json"])
        #expect(status.stdout.contains("mcp:admin"), "\(status)\n\(harness.daemonLog)")
        host.closeInput()
        _ = await host.process.waitForExit(timeout: 30)
        // After the login the step-up asked for, the same host session works.
        #expect(try await harness.login("sdk", provider: provider).status == 0)
        let again = try MCPSDK.Host(
            try MCPSDK.bridgedHost(harness), harness: harness)
        defer { again.stop() }
        #expect(try await again.next()["server"] as? String == "sdk-test-server", "\(again.stderr)")
        #expect(try await again.step(#"call echo {"text": "admin"}"#)["text"] as? String == "admin")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func twoSDKHostsOnOneAccountShareOneRefresh() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let server = try await MCPSDK.Server(issuer: provider.issuer, directory: harness.root)
        defer { server.stop() }
        try await harness.signIn(sdkAccount: "sdk", resource: server.url, provider: provider)
        let command = try MCPSDK.bridgedHost(harness)
        let (first, second) = (try MCPSDK.Host(command, harness: harness), try MCPSDK.Host(command, harness: harness))
        defer {
            first.stop()
            second.stop()
        }
        for host in [first, second] { #expect(try await host.next()["server"] as? String == "sdk-test-server") }
        // The provider revokes what it issued: both hosts' next calls meet a 401 at the server.
        let before = try await provider.stats.refreshes
        try await provider.rejectMCPTokens()
        async let one = first.step(#"call echo {"text": "one"}"#)
        async let two = second.step(#"call echo {"text": "two"}"#)
        let answers = try await [one, two]
        #expect(answers.map { $0["text"] as? String } == ["one", "two"], "\(answers)\n\(harness.daemonLog)")
        #expect(try await provider.stats.refreshes == before + 1)
        #expect(await harness.stopDaemon() == 0)
    }
}

extension BrokerHarness {
    /// An account of the SDK server at `resource` (issuer: the mock), logged in with `mcp:tools`.
    func signIn(sdkAccount name: String, resource: String, provider: MockProviderProcess) async throws {
        let add = try await authctl([
            "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url", resource,
            "--scope", "mcp:tools",
        ])
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(daemonLog)") }
        let login = try await login(name, provider: provider)
        guard login.status == 0 else { throw HarnessError.unexpected("login: \(login)\n\(daemonLog)") }
    }
}
