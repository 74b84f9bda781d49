import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// The DPoP key's custody in the vault: sealed in the tokens row with its own AAD, replaced and
/// deleted with the tokens bound to it, resealed by rekey.
@Suite struct VaultDPoPKeyTests {
    private func boundTokens(_ tag: String) throws -> TokenSet {
        var tokens = sampleTokens(tag)
        tokens.tokenType = "DPoP"
        tokens.dpopKey = try ECSigningKey.generate()
        return tokens
    }

    private func sealedKey(_ connection: SQLiteConnection, _ id: Int64) throws -> [UInt8]? {
        try connection.query("SELECT dpop_key FROM tokens WHERE account_id = ?", [.integer(id)]) { $0.optionalBlob(0) }.first
            ?? nil
    }

    /// Account "alice" with DPoP-bound tokens saved.
    private func alice(_ fixture: VaultFixture) throws -> (vault: Vault, id: Int64, tokens: TokenSet) {
        let vault = try fixture.open()
        let id = try vault.addAccount(sampleAccount("alice"), owner: 1000, now: 0).id
        let tokens = try boundTokens("alice")
        try vault.saveTokens(tokens, accountID: id)
        return (vault, id, tokens)
    }

    @Test func theKeyRoundTripsSealedAndTheColumnHoldsNoPlaintext() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let (_, id, tokens) = try alice(fixture)

        let loaded = try #require(try fixture.open().loadTokens(accountID: id))
        #expect(loaded == tokens)
        #expect(loaded.dpopKey?.publicJWK == tokens.dpopKey?.publicJWK)
        let pkcs8 = try #require(tokens.dpopKey).exportPKCS8().withUnsafeBytes { Array($0) }
        let sealed = try #require(try sealedKey(try fixture.rawConnection(), id))
        #expect(!sealed.isEmpty && sealed.firstRange(of: pkcs8) == nil && sealed.firstRange(of: pkcs8.suffix(32)) == nil)
    }

    @Test func aKeyMovedToAnotherAccountOrColumnDoesNotOpen() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let a = try vault.addAccount(sampleAccount("alice"), owner: 1000, now: 0).id
        let b = try vault.addAccount(sampleAccount("bob"), owner: 1000, now: 0).id
        try vault.saveTokens(try boundTokens("alice"), accountID: a)
        try vault.saveTokens(try boundTokens("bob"), accountID: b)
        let raw = try fixture.rawConnection()
        let aliceKey = try #require(try sealedKey(raw, a))
        try raw.run("UPDATE tokens SET dpop_key = ? WHERE account_id = ?", [.blob(aliceKey), .integer(b)])
        #expect(storeError { _ = try vault.loadTokens(accountID: b) } == .cannotDecrypt(account: "bob", field: "dpop_key"))
        try raw.run("UPDATE tokens SET refresh_token = dpop_key WHERE account_id = ?", [.integer(a)])
        #expect(storeError { _ = try vault.loadTokens(accountID: a) } == .cannotDecrypt(account: "alice", field: "refresh_token"))
    }

    @Test func newTokensReplaceTheKeyAndLogoutAndRemovalDeleteIt() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let (vault, id, _) = try alice(fixture)
        let relogin = try boundTokens("alice-2")
        try vault.saveTokens(relogin, accountID: id)
        #expect(try vault.loadTokens(accountID: id)?.dpopKey == relogin.dpopKey)
        // Bearer tokens saved over DPoP ones leave no key behind (one UPSERT, every column).
        try vault.saveTokens(sampleTokens("bearer"), accountID: id)
        #expect(try sealedKey(try fixture.rawConnection(), id) == nil)

        try vault.saveTokens(try boundTokens("alice-3"), accountID: id)
        try vault.deleteTokens(accountID: id)
        #expect(
            try fixture.rawConnection().query("SELECT count(*) FROM tokens WHERE dpop_key IS NOT NULL") { $0.int64(0) } == [0])
        try vault.saveTokens(try boundTokens("alice-4"), accountID: id)
        try vault.removeAccount(named: "alice", owner: 1000)
        #expect(
            try fixture.rawConnection().query("SELECT count(*) FROM tokens WHERE dpop_key IS NOT NULL") { $0.int64(0) } == [0])
    }

    @Test func rekeyResealsTheKey() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let (vault, id, tokens) = try alice(fixture)
        let before = try sealedKey(try fixture.rawConnection(), id)
        try vault.rotateKeyFile(at: fixture.keyPath)
        #expect(try sealedKey(try fixture.rawConnection(), id) != before)
        #expect(try fixture.open().loadTokens(accountID: id)?.dpopKey == tokens.dpopKey)
    }
}
