import Foundation
import MockProvider
import TestSupport
import Testing

/// Provider metadata belongs to the document it was read from. An API client that adds an
/// account with a victim's issuer and its own `--discovery-url` (a document that claims that
/// issuer but names its own token endpoint) must never redirect the victim's refresh — before
/// or after a restart of the real daemon.
@Suite struct DaemonMetadataSourceTests {
    @Test func anotherAccountsDiscoveryDocumentNeverServesTheVictim() async throws {
        var short = MockProviderConfiguration()
        short.accessTokenLifetime = 20
        let genuine = try MockProvider(configuration: short)
        let attacker = try MockProvider(configuration: MockProviderConfiguration())
        attacker.configure { $0.discoveryIssuer = genuine.issuer }
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        var daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        let scopes = ["--scope", "openid", "--scope", "offline_access"]
        let victim = try await harness.authctl(
            ["account", "add", "victim", "--issuer", genuine.issuer, "--client-id", "mock-client"] + scopes)
        try #require(victim.status == 0, "\(victim.stderr)\n\(daemon.log)")
        try await harness.login("victim")
        let evil = try await harness.authctl(
            [
                "account", "add", "evil", "--issuer", genuine.issuer, "--client-id", "mock-client",
                "--discovery-url", attacker.url(".well-known/openid-configuration"),
            ] + scopes)
        try #require(evil.status == 0, "\(evil.stderr)\n\(daemon.log)")
        #expect(attacker.stats.discoveryRequests >= 1, "the attack was not staged")

        #expect(try await daemon.stop() == 0)
        let restarted = try NotifyListener()
        daemon = try harness.launch(notify: restarted, name: "daemon-2")
        try #require(await restarted.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        // Past the brand-new tenth of its 20 s lifetime, so --min-ttl forces a refresh now.
        try await Task.sleep(for: .seconds(2.5))
        let token = try await harness.authctl(["token", "victim", "--min-ttl", "3600"])
        #expect(token.status == 0, "\(token.stderr)\n\(daemon.log)")
        #expect(genuine.stats.refreshes == 1, "the victim's refresh did not reach its own token endpoint")
        #expect(attacker.stats.refreshes == 0 && attacker.stats.codeExchanges == 0, "the victim's refresh token went elsewhere")
        #expect(attacker.stats.tokensIssued == 0)

        #expect(try await daemon.stop() == 0)
        await genuine.stop()
        await attacker.stop()
    }
}
