import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

@Suite struct VaultTamperAndRekeyTests {
    /// Two accounts with tokens; returns their ids.
    private func twoAccounts(_ vault: Vault) throws -> (a: Int64, b: Int64) {
        let a = try vault.addAccount(sampleAccount("alice"), owner: 1000, now: 0).id
        let b = try vault.addAccount(sampleAccount("bob"), owner: 1000, now: 0).id
        try vault.saveTokens(sampleTokens("alice"), accountID: a)
        try vault.saveTokens(sampleTokens("bob"), accountID: b)
        return (a, b)
    }

    private func column(_ connection: SQLiteConnection, _ field: String, _ id: Int64) throws -> [UInt8] {
        try #require(
            try connection.query("SELECT \(field) FROM tokens WHERE account_id = ?", [.integer(id)]) { $0.blob(0) }.first)
    }

    @Test func flippedByteFailsOnlyThatAccount() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let ids = try twoAccounts(vault)
        let bobTokens = try vault.loadTokens(accountID: ids.b)
        let raw = try fixture.rawConnection()
        var sealed = try column(raw, "access_token", ids.a)
        sealed[sealed.count / 2] ^= 0x01
        try raw.run("UPDATE tokens SET access_token = ? WHERE account_id = ?", [.blob(sealed), .integer(ids.a)])

        let reopened = try fixture.open()  // the key check is fine: only alice's row is damaged
        #expect(
            storeError { _ = try reopened.loadTokens(accountID: ids.a) }
                == .cannotDecrypt(account: "alice", field: "access_token"))
        #expect(try reopened.loadTokens(accountID: ids.b) == bobTokens)
        #expect(try reopened.accounts().count == 2)
    }

    @Test func swappedCiphertextsFailBothAccounts() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let ids = try twoAccounts(vault)
        let raw = try fixture.rawConnection()
        let refreshA = try column(raw, "refresh_token", ids.a)
        let refreshB = try column(raw, "refresh_token", ids.b)
        try raw.transaction {
            try raw.run("UPDATE tokens SET refresh_token = ? WHERE account_id = ?", [.blob(refreshB), .integer(ids.a)])
            try raw.run("UPDATE tokens SET refresh_token = ? WHERE account_id = ?", [.blob(refreshA), .integer(ids.b)])
        }
        #expect(
            storeError { _ = try vault.loadTokens(accountID: ids.a) } == .cannotDecrypt(account: "alice", field: "refresh_token"))
        #expect(
            storeError { _ = try vault.loadTokens(accountID: ids.b) } == .cannotDecrypt(account: "bob", field: "refresh_token"))
    }

    @Test func ciphertextMovedToAnotherFieldFails() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let ids = try twoAccounts(vault)
        try vault.connection.run("UPDATE tokens SET id_token = access_token WHERE account_id = ?", [.integer(ids.a)])
        #expect(storeError { _ = try vault.loadTokens(accountID: ids.a) } == .cannotDecrypt(account: "alice", field: "id_token"))
        // A truncated envelope is the same clear error, not a crash.
        try vault.connection.run("UPDATE tokens SET access_token = x'01' WHERE account_id = ?", [.integer(ids.b)])
        #expect(
            storeError { _ = try vault.loadTokens(accountID: ids.b) } == .cannotDecrypt(account: "bob", field: "access_token"))
    }

    @Test func tamperedClientSecretFailsOnlyThatAccount() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        _ = try twoAccounts(vault)
        try vault.connection.run(
            "UPDATE accounts SET client_secret = substr(client_secret, 1, length(client_secret) - 1) WHERE name = 'alice'")
        let accounts = try vault.accounts()
        #expect(accounts.map(\.name) == ["alice", "bob"])
        #expect(
            storeError { _ = try vault.clientSecret(for: accounts[0]) }
                == .cannotDecrypt(account: "alice", field: "client_secret"))
        #expect(try vault.clientSecret(for: accounts[1]) != nil)
    }

    @Test func wrongKeyIsRefusedUpFrontNamingKeyFileAndDatabase() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        _ = try twoAccounts(try fixture.open())
        let otherKey = fixture.directory.appending("other.key")
        _ = try KeyFile.generate(at: otherKey)
        let error = storeError { _ = try Vault.open(databasePath: fixture.databasePath, keySource: .keyFile(path: otherKey)) }
        #expect(error == .wrongKey(keySource: "key file '\(otherKey)'", database: fixture.databasePath))
        let text = error?.description ?? ""
        #expect(text.contains(otherKey))
        #expect(text.contains(fixture.databasePath))
        #expect(text.contains("never re-keys silently"))
        // Nothing was re-keyed: the right key still opens everything.
        #expect(try fixture.open().accounts().count == 2)
    }

    @Test func rotateKeyFileReencryptsEverythingAndRefusesTheOldKey() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let ids = try twoAccounts(vault)
        let before = try [vault.loadTokens(accountID: ids.a), vault.loadTokens(accountID: ids.b)]
        let secrets = try vault.accounts().map { try vault.clientSecret(for: $0) }
        let oldKeyCopy = fixture.directory.appending("old.key")
        try KeyFile.write(fixture.key, to: oldKeyCopy)
        let oldSealed = try vault.connection.query("SELECT access_token FROM tokens ORDER BY account_id") { $0.blob(0) }

        try vault.rotateKeyFile(at: fixture.keyPath)

        #expect(!SecureFiles.exists(fixture.keyPath + ".new"))
        #expect(try fileMode(fixture.keyPath) == 0o600)
        #expect(try KeyFile.read(fixture.keyPath) != fixture.key)
        let newSealed = try vault.connection.query("SELECT access_token FROM tokens ORDER BY account_id") { $0.blob(0) }
        #expect(newSealed != oldSealed)
        #expect(
            storeError { _ = try Vault.open(databasePath: fixture.databasePath, keySource: .keyFile(path: oldKeyCopy)) }
                == .wrongKey(keySource: "key file '\(oldKeyCopy)'", database: fixture.databasePath))
        let reopened = try fixture.open()
        #expect(try [reopened.loadTokens(accountID: ids.a), reopened.loadTokens(accountID: ids.b)] == before)
        #expect(try reopened.accounts().map { try reopened.clientSecret(for: $0) } == secrets)
    }

    @Test func rekeyWithADamagedFieldChangesNothing() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let ids = try twoAccounts(vault)
        try vault.connection.run("UPDATE tokens SET id_token = x'00112233' WHERE account_id = ?", [.integer(ids.b)])
        let newKey = try SymmetricKey.generate()
        #expect(
            storeError { try vault.rekey(to: newKey, keySource: .keyFile(path: "/nonexistent")) }
                == .cannotDecrypt(account: "bob", field: "id_token"))
        // Still entirely under the old key.
        let reopened = try fixture.open()
        #expect(try reopened.loadTokens(accountID: ids.a) != nil)
        #expect(reopened.keySource == fixture.keySource)
    }

    @Test func interruptedRotationPointsAtThePendingKey() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        _ = try twoAccounts(vault)
        // Simulate a crash between the re-encryption commit and the final rename.
        let pending = fixture.keyPath + ".new"
        let newKey = try KeyFile.generate(at: pending)
        try vault.rekey(to: newKey, keySource: .keyFile(path: pending))
        let error = storeError { _ = try fixture.open() }
        #expect(
            error
                == .interruptedRotation(
                    keySource: fixture.keySource.description, pendingKeyFile: pending, database: fixture.databasePath))
        #expect(error?.description.contains(pending) == true)
        #expect(try Vault.open(databasePath: fixture.databasePath, keySource: .keyFile(path: pending)).accounts().count == 2)
    }
}
