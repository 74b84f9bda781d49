import Foundation
import MockProvider
import TestSupport
import Testing

/// `authctl git-credential` with the real git, the real daemon and the mock provider: a smart-HTTP
/// server (git-http-backend behind Tests/IntegrationTests/Fixtures/fake_servers.py) accepts only the
/// token in its token file. A refused token makes git `erase` it; the daemon then refreshes once.
@Suite(.timeLimit(.minutes(2)))
struct DaemonGitCredentialTests {
    @Test func getServesTheTokenAndEraseMakesTheNextGetRefresh() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is needed (apt-get install git)")
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try harness.launch()
        try #require(await waitForSocket(harness), "daemon did not start:\n\(daemon.log)")
        let root = harness.root
        let workspace = try await GitWorkspace.create(in: root)
        let git = { (arguments: [String]) in try await workspace.run(arguments) }
        let tokenFile = root + "/valid-token"
        try "none-yet".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try await GitHTTPServer(root: root + "/repos", tokenFile: tokenFile, directory: root)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)/"

        let add = try await harness.authctl([
            "account", "add", "forge", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
            "--scope", "offline_access", "--git-url-prefix", base, "--git-username", "alice",
        ])
        try #require(add.status == 0, "\(add.stderr)")
        try await harness.login("forge")
        let first = try await harness.authctl(["token", "forge"]).stdout.trimmingCharacters(in: .newlines)
        try #require(!first.isEmpty)
        let helper = "!\(try DaemonHarness.binary("authctl")) --socket \(harness.socket) git-credential"
        let config = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"]

        // The server takes the daemon's token: git gets it from the helper.
        try first.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let accepted = try await git(config + ["ls-remote", base + "project.git"])
        #expect(accepted.status == 0, "\(accepted.stderr)\n\(daemon.log)")
        #expect(accepted.stdout.contains("refs/heads/main"))
        #expect(provider.stats.refreshes == 0)

        // The server refuses it (as after a revocation): git erases it, the daemon refreshes once.
        try "something-else".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        #expect(try await git(config + ["ls-remote", base + "project.git"]).status != 0)
        let second = try await harness.authctl(["token", "forge"]).stdout.trimmingCharacters(in: .newlines)
        #expect(!second.isEmpty && second != first)
        #expect(provider.stats.refreshes == 1)
        #expect(provider.stats.familyRevocations == 0)

        try second.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let clone = try await git(config + ["clone", "-q", base + "project.git", root + "/clone"])
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/clone/.git"))
        let status = try await harness.authctl(["status", "forge", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let accounts = object?["accounts"] as? [[String: Any]]
        #expect(accounts?.first?["state"] as? String == "active", "\(status.stdout)")
        #expect(provider.stats.refreshes == 1)

        #expect(try await daemon.stop() == 0)
        #expect(!daemon.log.contains(first) && !daemon.log.contains(second))
        await provider.stop()
    }
}

/// The git smart-HTTP server of the integration fixtures on 127.0.0.1; exits when its stdin closes.
final class GitHTTPServer {
    let process: Subprocess
    let port: String

    init(root: String, tokenFile: String, directory: String) async throws {
        var script = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { script.deleteLastPathComponent() }
        let path = script.path + "/IntegrationTests/Fixtures/fake_servers.py"
        let output = directory + "/git-server.out"
        process = try Subprocess(
            ["/usr/bin/env", "python3", path, "git", root, tokenFile], stdin: .pipe, stdout: .file(output),
            stderr: .file(directory + "/git-server.err"))
        let ready = try #require(await process.firstLine(in: output, startingWith: "ready ", timeout: .seconds(20)))
        port = String(ready.dropFirst(6))
    }

    func stop() { process.kill() }
}
