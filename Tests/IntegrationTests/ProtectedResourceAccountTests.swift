import Foundation
import Testing

/// `authctl account add NAME --resource-url URL` with no issuer, with the real binaries against the
/// mock's protected-resource mode: discovery through the 401 challenge or the well-known URLs
/// (RFC 9728, the MCP authorization spec's order), the refusals (a lying document, no S256, no way
/// to get a client), and the three client identities (RFC 7591 registration, a Client ID Metadata
/// Document, a pre-registered client).
@Suite(.serialized, .timeLimit(.minutes(4)))
struct ProtectedResourceAccountTests {
    /// The account's configuration as `account show --json` prints it.
    static func shown(_ harness: BrokerHarness, _ name: String) async throws -> [String: Any] {
        let run = try await harness.authctl(["account", "show", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return object?["configuration"] as? [String: Any] ?? [:]
    }

    /// A registration is reused only for the resource it was made for: another resource whose
    /// metadata names the same authorization server gets a client of its own, so it inherits no
    /// consent the server remembers for the first one's client (hostile review).
    @Test func aRegistrationIsNotSharedWithAnotherResourceAtTheSameServer() async throws {
        let (harness, server) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        let directory = harness.root + "/other-resource"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let other = try await MockProviderProcess(
            directory: directory, configuration: #"{"protectedResource": {"authorizationServer": "\#(server.issuer)"}}"#)
        let first = try await harness.authctl(["account", "add", "first", "--resource-url", server.origin + "/mcp"])
        #expect(first.status == 0, "\(first)\n\(harness.daemonLog)")
        let second = try await harness.authctl(["account", "add", "second", "--resource-url", other.origin + "/mcp"])
        #expect(second.status == 0, "\(second)\n\(harness.daemonLog)")
        let (one, two) = (try await Self.shown(harness, "first"), try await Self.shown(harness, "second"))
        #expect(two["issuer"] as? String == server.issuer, "\(two)")
        #expect(two["client_registration"] as? String == "dynamic")
        #expect(one["client_id"] as? String != two["client_id"] as? String, "\(one)\n\(two)")
        #expect(try await server.protectedResourceStats.registrations == 2)
    }

    @Test func theChallengeNamesTheMetadataAndARegisteredClientIsKeptAcrossRestartsThenDeleted() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"protectedResource": {"challengeScope": "mcp:read mcp:write"}}"#)
        let resource = provider.origin + "/mcp"
        let add = try await harness.authctl(["account", "add", "mcp", "--resource-url", resource])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        #expect(add.stderr.contains("authorization server \(provider.issuer)") && add.stderr.contains("dynamic"), "\(add)")
        let configuration = try await Self.shown(harness, "mcp")
        #expect(configuration["issuer"] as? String == provider.issuer)
        #expect(configuration["resource_url"] as? String == resource)
        #expect(configuration["client_registration"] as? String == "dynamic")
        #expect(configuration["scopes"] as? [String] == ["mcp:read", "mcp:write"])
        let port = try #require(configuration["redirect_port"] as? Int, "a registered account keeps one port")
        var stats = try await provider.protectedResourceStats
        #expect(stats.challenges == 1 && stats.metadataRequests == 1 && stats.registrations == 1, "\(stats)")
        #expect(stats.serverMetadataRequests.first == "rfc8414", "\(stats)")

        #expect(try await harness.login("mcp", provider: provider).status == 0, "\(harness.daemonLog)")
        #expect(try await provider.callResource(token: try await harness.token("mcp")) == 200)
        // Restarted, the daemon keeps the client and its port: a new login needs no new registration.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let login = try await harness.login("mcp", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        #expect(try await Self.shown(harness, "mcp")["redirect_port"] as? Int == port)
        #expect(try await harness.authctl(["refresh", "mcp"]).status == 0)
        stats = try await provider.protectedResourceStats
        #expect(stats.registrations == 1, "\(stats)")
        #expect(
            stats.resourceParameters.allSatisfy { $0.hasSuffix("=" + resource) } && stats.resourceParameters.count == 5,
            "\(stats)")

        let remove = try await harness.authctl(["account", "remove", "mcp"])
        #expect(remove.status == 0, "\(remove)")
        stats = try await provider.protectedResourceStats
        #expect(stats.registrationDeletes == 1, "\(stats)")
        #expect(!harness.daemonLog.contains("rat-"), "the registration access token must never be logged")
        #expect(await harness.stopDaemon() == 0)
    }

    /// No hint: the path-inserted metadata URL (404 here), then the root one; an issuer with a
    /// path whose metadata only the OIDC-appended URL serves, tried last in the spec's order.
    @Test func withoutAHintTheWellKnownURLsAreTriedInTheSpecsOrder() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"""
                {"issuerPath": "/as", "protectedResource": {"metadataHint": false, "metadataAt": "root",
                 "scopesSupported": ["files:read"], "serverDocuments": ["oidc-appended"]}}
                """#)
        let add = try await harness.authctl(["account", "add", "files", "--resource-url", provider.origin + "/mcp"])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let configuration = try await Self.shown(harness, "files")
        #expect(configuration["issuer"] as? String == provider.issuer && provider.issuer.hasSuffix("/as"))
        #expect(configuration["scopes"] as? [String] == ["files:read"])
        let stats = try await provider.protectedResourceStats
        #expect(stats.metadataRequests == 1 && stats.challenges == 1, "\(stats)")
        #expect(Array(stats.serverMetadataRequests.prefix(3)) == ["rfc8414", "oidc-inserted", "oidc-appended"], "\(stats)")
        #expect(try await harness.login("files", provider: provider).status == 0, "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// A plain OAuth server (RFC 8414 only, no ID token): the account logs in and refreshes.
    @Test func aPlainOAuthServerNeedsNoIDToken() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"""
                {"issuerPath": "/tenant", "protectedResource": {"plainOAuth": true, "serverDocuments": ["rfc8414"]}}
                """#)
        let add = try await harness.authctl(["account", "add", "plain", "--resource-url", provider.origin + "/mcp"])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        let configuration = try await Self.shown(harness, "plain")
        #expect(configuration["discovery_url"] as? String == provider.origin + "/.well-known/oauth-authorization-server/tenant")
        #expect(configuration["scopes"] as? [String] ?? [] == [])
        #expect(try await harness.login("plain", provider: provider).status == 0, "\(harness.daemonLog)")
        #expect(try await harness.authctl(["refresh", "plain"]).status == 0, "\(harness.daemonLog)")
        #expect(try await provider.callResource(token: try await harness.token("plain")) == 200)
        #expect(await harness.stopDaemon() == 0)
    }

    /// An accounts file naming only the resource: added once, then unchanged when applied again
    /// (what the daemon discovered and registered is kept, not registered again).
    @Test func anAccountsFileWithOnlyTheResourceIsAppliedIdempotently() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        let file = harness.root + "/accounts.json"
        try Data(#"{"accounts": [{"name": "mcp", "resource_url": "\#(provider.origin)/mcp"}]}"#.utf8).write(
            to: URL(fileURLWithPath: file))
        let first = try await harness.authctl(["account", "apply", file])
        #expect(first.status == 0 && first.stdout.contains("added mcp"), "\(first)\n\(harness.daemonLog)")
        let again = try await harness.authctl(["account", "apply", file])
        #expect(again.status == 0 && again.stdout.contains("unchanged mcp"), "\(again)\n\(harness.daemonLog)")
        #expect(try await provider.protectedResourceStats.registrations == 1)
        // The registered client id is never offered to another authorization server.
        let clientID = try #require(try await Self.shown(harness, "mcp")["client_id"] as? String)
        let moved =
            #"{"accounts": [{"name": "mcp", "resource_url": "\#(provider.origin)/mcp", "issuer": "https://other.example", "client_id": "\#(clientID)"}]}"#
        try Data(moved.utf8).write(to: URL(fileURLWithPath: file))
        let refused = try await harness.authctl(["account", "apply", file])
        #expect(refused.status != 0 && refused.stderr.contains("never sent to another authorization server"), "\(refused)")
        #expect(try await Self.shown(harness, "mcp")["issuer"] as? String == provider.issuer)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aDocumentForAnotherResourceIsRefusedBeforeAnythingIsRegistered() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"protectedResource": {"claimedResource": "https://evil.example/mcp"}}"#)
        let add = try await harness.authctl(["account", "add", "mcp", "--resource-url", provider.origin + "/mcp"])
        #expect(
            add.status != 0 && add.stderr.contains("https://evil.example/mcp") && add.stderr.contains("RFC 9728 §3.3"), "\(add)")
        #expect(add.stderr.split(separator: "\n").count == 1, "one line: \(add)")
        let stats = try await provider.protectedResourceStats
        #expect(stats.registrations == 0 && stats.serverMetadataRequests.isEmpty, "\(stats)")
        #expect(try await harness.authctl(["account", "show", "mcp"]).status != 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aServerWithoutS256IsRefused() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {"withoutS256": true}}"#)
        // What the daemon can judge alone is judged before the resource is asked anything.
        let early = try await harness.authctl([
            "account", "add", "mcp", "--resource-url", provider.origin + "/mcp", "--redirect-host", "example.com",
        ])
        #expect(early.status != 0 && early.stderr.contains("redirect host"), "\(early)")
        #expect(try await provider.protectedResourceStats.challenges == 0)
        let add = try await harness.authctl(["account", "add", "mcp", "--resource-url", provider.origin + "/mcp"])
        #expect(add.status != 0 && add.stderr.contains("does not list S256 in code_challenge_methods_supported"), "\(add)")
        #expect(try await provider.protectedResourceStats.registrations == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    /// A Client ID Metadata Document where the server accepts them; without registration or a
    /// document, one line says what the server needs; a pre-registered client always works.
    @Test func theClientIdentityFollowsTheSpecsOrder() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"protectedResource": {"dynamicRegistration": false, "clientIDMetadataDocuments": true}}"#)
        let resource = provider.origin + "/mcp"
        let document = provider.origin + "/client-metadata.json"
        let none = try await harness.authctl(["account", "add", "none", "--resource-url", resource])
        #expect(none.status != 0 && none.stderr.contains("--client-metadata-url URL"), "\(none)")
        let add = try await harness.authctl([
            "account", "add", "cimd", "--resource-url", resource, "--client-metadata-url", document,
        ])
        #expect(add.status == 0, "\(add)\n\(harness.daemonLog)")
        var configuration = try await Self.shown(harness, "cimd")
        #expect(configuration["client_id"] as? String == document)
        #expect(configuration["client_registration"] as? String == "metadata-document")
        #expect(try await harness.login("cimd", provider: provider).status == 0, "\(harness.daemonLog)")

        try await provider.configure(#"{"protectedResource": {"dynamicRegistration": false}}"#)
        let refused = try await harness.authctl([
            "account", "add", "x", "--resource-url", resource, "--client-metadata-url", document,
        ])
        #expect(refused.status != 0 && refused.stderr.contains("needs a pre-registered client"), "\(refused)")
        let pre = try await harness.authctl(["account", "add", "pre", "--resource-url", resource, "--client-id", "mock-client"])
        #expect(pre.status == 0, "\(pre)")
        configuration = try await Self.shown(harness, "pre")
        #expect(configuration["client_registration"] as? String == "preregistered")
        #expect(try await harness.login("pre", provider: provider).status == 0, "\(harness.daemonLog)")
        #expect(try await provider.protectedResourceStats.registrations == 0)
        #expect(await harness.stopDaemon() == 0)
    }
}
