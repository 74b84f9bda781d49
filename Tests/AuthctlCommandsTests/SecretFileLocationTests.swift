import BrokerProtocol
import Foundation
import TestSupport
import Testing

@testable import AuthctlCommands

/// An accounts file names secret files only below its own directory (or the user's authbroker
/// configuration directory): a shared file cannot send `~/.git-credentials` to its provider.
@Suite struct SecretFileLocationTests {
    /// The accounts file's directory `repo/` and, beside it, a file it must not reach.
    func layout() throws -> (TemporaryDirectory, repo: String, outside: String) {
        let root = try TemporaryDirectory()
        let repo = root.appending("repo")
        try FileManager.default.createDirectory(atPath: repo + "/secrets", withIntermediateDirectories: true)
        try "inside\n".write(toFile: repo + "/secrets/app.secret", atomically: true, encoding: .utf8)
        let outside = root.appending("credentials")
        try "https://user:token@git.example\n".write(toFile: outside, atomically: true, encoding: .utf8)
        return (root, repo, outside)
    }

    func load(_ secretFile: String, from repo: String) -> Result<String?, UsageError> {
        let text =
            #"{"accounts": [{"name": "w", "issuer": "https://idp.example", "client_id": "c", "client_secret_file": "\#(secretFile)"}]}"#
        do {
            return .success(
                try AccountsFile.entries(Array(text.utf8), source: "a.json", directory: repo).first?.configuration.clientSecret)
        } catch {
            return .failure(error)
        }
    }

    @Test func aSecretBelowTheAccountsFilesDirectoryIsRead() throws {
        let (root, repo, _) = try layout()
        defer { root.remove() }
        #expect(try load("secrets/app.secret", from: repo).get() == "inside")
        #expect(try load(repo + "/secrets/app.secret", from: repo).get() == "inside")
    }

    @Test func aPathOutsideIsRefusedWhateverItsSpelling() throws {
        let (root, repo, outside) = try layout()
        defer { root.remove() }
        try FileManager.default.createSymbolicLink(atPath: repo + "/link.secret", withDestinationPath: outside)
        for path in [outside, "../credentials", "secrets/../../credentials", "link.secret", "/proc/self/environ"] {
            guard case .failure(let error) = load(path, from: repo) else {
                Issue.record("\(path) was read")
                continue
            }
            #expect(
                error.message.contains("client_secret_file") && error.message.contains("a.json:1:"), "\(path): \(error.message)")
        }
    }

    @Test func onlyRegularFilesAreRead() throws {
        let (root, repo, _) = try layout()
        defer { root.remove() }
        guard case .failure(let error) = load("secrets", from: repo) else {
            Issue.record("a directory was read")
            return
        }
        #expect(error.message.contains("is not a regular file"), "\(error.message)")
    }
}
