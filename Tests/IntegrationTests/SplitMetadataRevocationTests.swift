import Foundation
import Testing

/// Issue 12, defect 1, with the real binaries: the provider's OpenID document has no
/// `revocation_endpoint`, its RFC 8414 document has one. `account add` stores the OpenID document
/// as it is — exactly what the vault of a daemon before the fix holds — so logout must complete the
/// cached metadata from the RFC 8414 document when it needs the endpoint, and revoke.
@Suite struct SplitMetadataRevocationTests {
    @Test(.timeLimit(.minutes(1)))
    func logoutRevokesThroughTheEndpointOnlyRFC8414Lists() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"onlyInRFC8414": ["revocation_endpoint"]}"#)
        try await harness.signIn("work", provider: provider)
        try await harness.signIn("home", provider: provider)
        let token = try await harness.token("work")
        // From here on the metadata comes from the vault, as account add stored it.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        #expect(try await provider.stats.liveRefreshTokens == 2)

        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("tokens revoked at the provider"), "\(logout)\n\(harness.daemonLog)")
        let stats = try await provider.stats
        #expect(stats.revokedHints == ["refresh_token", "access_token"], "\(stats)")
        #expect(stats.liveRefreshTokens == 1, "the refresh token of 'work' is still live at the provider: \(stats)")
        #expect(try await provider.accepts(token) == false)

        // The completed metadata was stored for every account of the document: after a restart the
        // second logout revokes without asking for either document again.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let second = try await harness.authctl(["logout", "home"])
        #expect(second.stderr.contains("tokens revoked at the provider"), "\(second)")
        let after = try await provider.stats
        #expect(after.discoveryRequests == stats.discoveryRequests, "\(after)")
        #expect(after.revocations == 4 && after.liveRefreshTokens == 0, "\(after)")
        #expect(await harness.stopDaemon() == 0)
    }
}

extension SplitMetadataRevocationTests {
    /// The same gap for the device grant: `login --device` needs `device_authorization_endpoint`,
    /// which only the RFC 8414 document lists.
    @Test(.timeLimit(.minutes(1)))
    func deviceLoginFindsTheEndpointOnlyRFC8414Lists() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"onlyInRFC8414": ["device_authorization_endpoint"], "deviceInterval": 1}"#)
        try await harness.addAccount("work", provider: provider)
        let login = try await harness.authctl(["login", "work", "--device", "--timeout", "30"])
        #expect(login.status == 0 && login.stderr.contains("MOCK-CODE"), "\(login)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(try await harness.token("work")))
        #expect(try await provider.stats.devicePolls >= 1)
        #expect(await harness.stopDaemon() == 0)
    }
}
