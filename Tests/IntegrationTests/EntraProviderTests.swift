import Foundation
import Testing

/// Issue 12, item 3, with the real binaries against the mock's Entra mode (shaped by Microsoft's
/// "OpenID Connect on the Microsoft identity platform", "ID tokens" and "error codes" pages): a
/// `common` issuer whose document names `{tenantid}`, ID tokens whose `iss` and `tid` name the
/// user's tenant, the tenant allow-list, `tid` pinned on refresh, refreshes at the tenant's own
/// token endpoint, and AADSTS answers explained.
@Suite struct EntraProviderTests {
    static let tenant = "9122040d-6c67-4c5b-b112-36a304b66dad"
    static let otherTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    static func addAccount(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess, allow: [String] = [])
        async throws
    {
        let add = try await harness.authctl(
            [
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
                "--scope", "offline_access",
            ] + allow.flatMap { ["--tenant-allow", $0] })
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
    }

    @Test(.timeLimit(.minutes(1)))
    func commonLoginRefreshesUntilAnAADSTSAnswerAsksForALoginAndSaysWhy() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"entraTenant": "\#(Self.tenant)", "accessTokenLifetime": 20}"#)
        #expect(provider.issuer.hasSuffix("/common/v2.0"))
        try await Self.addAccount("work", harness, provider, allow: [Self.tenant])
        let login = try await harness.login("work", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        let first = try await harness.token("work")
        let second = try await GitHubProviderTests.refreshedToken(harness)
        #expect(second.status == 0 && second.line != first, "\(second)\n\(harness.daemonLog)")
        let stats = try await provider.stats
        #expect(stats.refreshes == 1)
        // The login's code goes to the document's `/common` endpoint, the refresh to the tenant's.
        #expect(stats.entraTokenTenants == ["common", Self.tenant], "\(stats)")

        // The user's password was reset: Entra answers 400 invalid_grant with AADSTS50173.
        try await provider.configure(#"{"faults": {"token": {"kind": "aadsts", "aadstsCode": 50173}}}"#)
        let refused = try await GitHubProviderTests.refreshedToken(harness)
        #expect(refused.status == 77, "\(refused)\n\(harness.daemonLog)")
        #expect(refused.stderr.contains("the password was changed or reset since this login"), "\(refused)")
        #expect(refused.stderr.contains("AADSTS50173") && refused.stderr.contains("authctl login work"), "\(refused)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aTenantOutsideTheAllowListIsRefusedAndATenantChangeAtRefreshToo() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"entraTenant": "\#(Self.otherTenant)", "accessTokenLifetime": 20}"#)
        try await Self.addAccount("allowed", harness, provider, allow: [Self.tenant])
        let outsider = try await harness.login("allowed", provider: provider)
        #expect(outsider.status != 0, "\(outsider)")
        #expect(outsider.stderr.contains("\(Self.otherTenant)") && outsider.stderr.contains("--tenant-allow"), "\(outsider)")
        #expect(try await harness.authctl(["token", "allowed"]).status == 77)

        // Without a list any tenant may log in, but a refresh must stay in the login's tenant.
        try await Self.addAccount("any", harness, provider)
        let login = try await harness.login("any", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        _ = try await harness.token("any")
        try await provider.configure(#"{"entraTenant": "\#(Self.tenant)"}"#)
        try await Task.sleep(for: .milliseconds(2200))
        let switched = try await harness.authctl(["token", "any", "--min-ttl", "19"])
        #expect(switched.status == 77 && switched.stderr.contains("another tenant"), "\(switched)\n\(harness.daemonLog)")
        // That answer came from the login's tenant endpoint, and was still checked against its tid.
        #expect(try await provider.stats.entraTokenTenants.last == Self.otherTenant)
        #expect(await harness.stopDaemon() == 0)
    }
}
