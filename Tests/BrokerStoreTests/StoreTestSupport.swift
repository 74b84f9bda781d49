import BrokerCrypto
import BrokerProtocol
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// A temporary state directory with a key file and a database path inside it.
struct VaultFixture {
    let directory: TemporaryDirectory
    let databasePath: String
    let keyPath: String
    let key: SymmetricKey

    init() throws {
        directory = try TemporaryDirectory(prefix: "authbroker-store")
        databasePath = directory.appending("state/vault.db")
        keyPath = directory.appending("config/master.key")
        key = try KeyFile.generate(at: keyPath)
    }

    var keySource: KeySource { .keyFile(path: keyPath) }

    func open() throws -> Vault {
        try Vault.open(databasePath: databasePath, keySource: keySource)
    }

    /// A raw connection to the same database, for tampering with rows the way an attacker would.
    func rawConnection() throws -> SQLiteConnection {
        try SQLiteConnection(path: databasePath)
    }

    func remove() { directory.remove() }
}

/// Writes `text` to `path` with `mode` (creating parents), the way a user would make a key file.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) throws {
    let parent = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    #expect(chmod(path, mode) == 0)
}

func fileMode(_ path: String) throws -> mode_t {
    var info = stat()
    try #require(stat(path, &info) == 0, "stat \(path)")
    return info.st_mode & 0o7777
}

/// A typical confidential-client account.
func sampleAccount(_ name: String, secret: String? = "client-secret-\(UUID().uuidString)") -> AccountConfiguration {
    AccountConfiguration(
        name: name, issuer: "https://idp.example/\(name)", clientID: "client-\(name)",
        clientSecret: secret, scopes: ["openid", "email", "offline_access"], audience: "api")
}

func sampleTokens(_ tag: String, obtainedAt: Double = 1_700_000_000) -> TokenSet {
    TokenSet(
        accessToken: Secret("access-\(tag)-\(UUID().uuidString)"),
        refreshToken: Secret("refresh-\(tag)-\(UUID().uuidString)"),
        idToken: Secret("id-\(tag)-\(UUID().uuidString)"), tokenType: "Bearer", scope: "openid email",
        expiresAt: obtainedAt + 3600, obtainedAt: obtainedAt)
}

/// Runs `body` expecting a `StoreError`, and returns it (nil, with a recorded issue, otherwise).
func storeError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
    do {
        try body()
        Issue.record("expected a StoreError, got success", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
