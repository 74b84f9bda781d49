import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// Accounts have an owner uid: names are unique per owner, look-ups and removals are per owner,
/// and a vault written before owners existed migrates with its accounts given to the daemon's uid.
@Suite struct VaultOwnershipTests {
    @Test func twoOwnersEachHaveAnAccountOfTheSameName() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let alice = try vault.addAccount(sampleAccount("work"), owner: 1001, now: 0)
        let bob = try vault.addAccount(sampleAccount("work"), owner: 1002, now: 0)
        #expect(alice.id != bob.id)
        #expect((alice.ownerUID, bob.ownerUID) == (1001, 1002))
        #expect(
            storeError { try vault.addAccount(sampleAccount("work"), owner: 1001, now: 0) } == .duplicateAccount(name: "work"))
        #expect(try vault.account(named: "work", owner: 1001)?.id == alice.id)
        #expect(try vault.account(named: "work", owner: 1002)?.id == bob.id)
        #expect(try vault.account(named: "work", owner: 1003) == nil)

        // Renaming within one owner collides only with that owner's names.
        let home = try vault.addAccount(sampleAccount("home"), owner: 1002, now: 0)
        #expect(
            storeError { try vault.updateAccount(id: home.id, with: sampleAccount("work")) } == .duplicateAccount(name: "work"))
        let aliceHome = try vault.addAccount(sampleAccount("spare"), owner: 1001, now: 0)
        #expect(try vault.updateAccount(id: aliceHome.id, with: sampleAccount("home")).ownerUID == 1001)

        // A removal by one owner leaves the other's account of that name (and its tokens) alone.
        try vault.saveTokens(sampleTokens("bob"), accountID: bob.id)
        #expect(storeError { try vault.removeAccount(named: "work", owner: 1003) } == .unknownAccount(name: "work"))
        try vault.removeAccount(named: "work", owner: 1001)
        #expect(try vault.account(named: "work", owner: 1001) == nil)
        #expect(try vault.account(named: "work", owner: 1002)?.id == bob.id)
        #expect(try vault.loadTokens(accountID: bob.id) != nil)
        #expect(try vault.accounts().map { "\($0.ownerUID)/\($0.name)" } == ["1001/home", "1002/home", "1002/work"])
    }

    @Test func aVaultFromBeforeOwnersMigratesWithItsAccountsOwnedByTheDaemon() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let secret = Secret("client-secret-old")
        let access = Secret("access-old")
        let refresh = Secret("refresh-old")
        try writeFirstSchemaVault(fixture, secret: secret, access: access, refresh: refresh)

        let vault = try Vault.open(databasePath: fixture.databasePath, keySource: fixture.keySource, existingOwner: 4242)
        #expect(try Migrator.version(of: vault.connection) == Vault.schemaVersion)
        let accounts = try vault.accounts()
        #expect(accounts.map(\.name) == ["home", "work"])
        #expect(accounts.allSatisfy { $0.ownerUID == 4242 })
        let work = try #require(try vault.account(named: "work", owner: 4242))
        #expect(work.id == 1)
        // The sealed values still open: the ids (named in their AAD) were kept.
        #expect(try vault.clientSecret(for: work) == secret)
        let tokens = try #require(try vault.loadTokens(accountID: work.id))
        #expect((tokens.accessToken, tokens.refreshToken) == (access, refresh))
        #expect(try vault.status(accountID: work.id)?.subject == "old-subject")
        try vault.integrityCheck()
        #expect(try vault.connection.query("PRAGMA foreign_key_check") { $0.text(0) }.isEmpty)

        // The id of the account removed before the migration is still never reused.
        #expect(try vault.addAccount(sampleAccount("work"), owner: 1001, now: 0).id == 4)
        // The tokens still belong to their account: removing it removes them.
        try vault.removeAccount(named: "work", owner: 4242)
        #expect(try vault.connection.query("SELECT count(*) FROM tokens") { $0.int64(0) } == [0])
    }

    /// The database as authbroker wrote it before accounts had owners (every migration before
    /// `account-owners`): accounts 1 and 2 left (3 was added and removed), sealed tokens for account 1.
    private func writeFirstSchemaVault(_ fixture: VaultFixture, secret: Secret, access: Secret, refresh: Secret) throws {
        try FileManager.default.createDirectory(
            atPath: (fixture.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let connection = try SQLiteConnection(path: fixture.databasePath)
        let before = Array(VaultSchema.migrations(existingOwner: 0).prefix { $0.name != "account-owners" })
        try Migrator.migrate(connection, migrations: before)
        #expect(try Migrator.version(of: connection) == before.count)
        func sealed(_ value: Secret, _ id: Int64, _ field: SealedField) throws -> SQLValue {
            .blob(
                try value.withUnsafeBytes {
                    try AESGCM.seal($0, key: fixture.key, associatedData: field.associatedData(accountID: id))
                })
        }
        let insert =
            "INSERT INTO accounts (name, issuer, client_id, scopes, options, client_secret, created_at) "
            + "VALUES (?, 'https://idp.example', 'client', 'openid', '{}', ?, 0)"
        try connection.run(insert, [.text("work"), try sealed(secret, 1, .clientSecret)])
        try connection.run(insert, [.text("home"), .null])
        try connection.run(insert, [.text("gone"), .null])
        try connection.run("DELETE FROM accounts WHERE name = 'gone'")
        try connection.run(
            "INSERT INTO tokens (account_id, access_token, refresh_token, token_type, obtained_at, subject) "
                + "VALUES (1, ?, ?, 'Bearer', 5, 'old-subject')",
            [try sealed(access, 1, .accessToken), try sealed(refresh, 1, .refreshToken)])
    }
}
