import Foundation
import MockProvider
import TestSupport
import Testing

/// `authctl account apply` against the real daemon and the mock provider (issue 6): create, no-op,
/// a change that keeps the tokens, a change that logs out, removal — each checked with
/// `authctl status --json`.
@Suite(.timeLimit(.minutes(2)))
struct DaemonAccountApplyTests {
    struct Status: Decodable, Equatable {
        var name: String
        var state: String
        var expiresAt: String?
        var subject: String?

        enum CodingKeys: String, CodingKey {
            case name, state, subject
            case expiresAt = "expires_at"
        }
    }

    @Test func applyCreatesKeepsLogsOutAndRemoves() async throws {
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try harness.launch()
        let file = harness.root + "/accounts.json"
        func apply(_ extra: String) async throws -> String {
            try """
            {"accounts": [{"name": "work", "issuer": "\(provider.issuer)", "client_id": "mock-client",
              "scopes": ["openid", "offline_access"]\(extra)}]}
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await harness.authctl(["account", "apply", file])
            try #require(result.status == 0, "\(result.stderr)\n\(daemon.log)")
            return result.stdout
        }
        func status() async throws -> [Status] {
            let result = try await harness.authctl(["status", "--json"])
            try #require(result.status == 0, "\(result.stderr)")
            struct List: Decodable { var accounts: [Status] }
            return try JSONDecoder().decode(List.self, from: Data(result.stdout.utf8)).accounts
        }
        try #require(await waitForSocket(harness), "daemon did not start:\n\(daemon.log)")

        #expect(try await apply("") == "added work\n")
        #expect(try await status() == [Status(name: "work", state: "logged_out")])
        try await harness.login("work")
        let active = try await status()
        #expect(active.first?.state == "active" && active.first?.subject == "mock-user")
        let token = try await harness.authctl(["token", "work"]).stdout

        #expect(try await apply("") == "unchanged work\n")
        #expect(try await status() == active)

        #expect(try await apply(#", "git_url_prefix": "https://git.example/", "git_username": "alice""#) == "updated work\n")
        #expect(
            try await apply(#", "git_url_prefix": "https://git.example/", "git_username": "alice", "browser": "firefox -P work""#)
                == "updated work\n")
        #expect(try await status() == active)
        #expect(try await harness.authctl(["token", "work"]).stdout == token)
        #expect(provider.stats.refreshes == 0)

        #expect(try await apply(#", "redirect_port": 8765"#) == "signed-out work\n")
        #expect(try await status() == [Status(name: "work", state: "login_required")])
        #expect(try await harness.authctl(["token", "work"]).status == 77)

        try #"{"accounts": []}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await harness.authctl(["account", "apply", file]).stdout == "unlisted work\n", "kept without --prune")
        let removed = try await harness.authctl(["account", "apply", file, "--prune"])
        #expect(removed.status == 0 && removed.stdout == "removed work\n", "\(removed.stderr)")
        #expect(try await status() == [])

        #expect(try await daemon.stop() == 0)
        #expect(!daemon.log.contains(token.trimmingCharacters(in: .newlines)))
        await provider.stop()
    }

    /// Accounts files get committed: an inline `client_secret` is refused before anything is sent
    /// (it was silently ignored when the file had its own field list).
    @Test func anInlineClientSecretIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try harness.launch()
        try #require(await waitForSocket(harness), "daemon did not start:\n\(daemon.log)")
        let file = harness.root + "/accounts.json"
        try
            #"{"accounts": [{"name": "work", "issuer": "https://idp.example", "client_id": "c", "client_secret": "s3cret-inline"}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await harness.authctl(["account", "apply", file])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.stderr.contains("inline client_secret") && result.stderr.contains("client_secret_file"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret-inline"))
        let list = try await harness.authctl(["account", "list", "--json"])
        let accounts = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["accounts"]
        #expect(list.status == 0 && (accounts as? [Any])?.isEmpty == true, "\(list.stdout)")
        #expect(try await daemon.stop() == 0)
    }
}

/// Polls `authctl ping` until the daemon answers (bounded).
func waitForSocket(_ harness: DaemonHarness, timeout: Double = 30) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if (try? await harness.authctl(["ping"]).status) == 0 { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
