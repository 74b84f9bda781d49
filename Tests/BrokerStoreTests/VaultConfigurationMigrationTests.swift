import BrokerCrypto
import BrokerProtocol
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// Issue 10: a vault written by the schema before `account-configuration-document` (columns
/// issuer, client_id, scopes and the camelCase `options` JSON of the former StoredAccountOptions)
/// migrates to the versioned document with every field carried and its sealed values still opening.
@Suite struct VaultConfigurationMigrationTests {
    /// Exactly what main's `StoredAccountOptions.json` wrote with every option set: Foundation's
    /// JSONEncoder with `.sortedKeys` (slashes escaped).
    static let everyOption = #"""
        {"audience":"https:\/\/api.example","discoveryURL":"https:\/\/shop.example\/.well-known\/openid-configuration",\#
        "endpoints":{"authorization_endpoint":"https:\/\/idp.example\/auth","device_authorization_endpoint":\#
        "https:\/\/idp.example\/device","end_session_endpoint":"https:\/\/idp.example\/logout","jwks_uri":\#
        "https:\/\/idp.example\/jwks","revocation_endpoint":"https:\/\/idp.example\/revoke","token_endpoint":\#
        "https:\/\/idp.example\/token","userinfo_endpoint":"https:\/\/idp.example\/userinfo"},\#
        "extraParameters":{"access_type":"offline","prompt":"consent"},"gitURLPrefix":"https:\/\/git.example.com\/team\/",\#
        "gitUsername":"bot","redirectHost":"localhost","redirectPath":"\/cb","redirectPort":8765}
        """#

    static let everyField = AccountConfiguration(
        name: "full", issuer: "https://idp.example", clientID: "client-full", scopes: ["openid", "email", "offline_access"],
        audience: "https://api.example", redirectHost: "localhost", redirectPort: 8765, redirectPath: "/cb",
        extraParameters: ["access_type": "offline", "prompt": "consent"],
        endpoints: ManualEndpoints(
            authorization: "https://idp.example/auth", token: "https://idp.example/token",
            revocation: "https://idp.example/revoke", userinfo: "https://idp.example/userinfo",
            deviceAuthorization: "https://idp.example/device", endSession: "https://idp.example/logout",
            jwksURI: "https://idp.example/jwks"),
        discoveryURL: "https://shop.example/.well-known/openid-configuration",
        gitURLPrefix: "https://git.example.com/team/", gitUsername: "bot")

    @Test func everyOptionOfAnOldVaultIsCarriedIntoTheVersionedDocument() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let secret = Secret("client-secret-full")
        let access = Secret("access-full")
        try writeVaultBeforeDocuments(fixture, secret: secret, access: access)

        let vault = try fixture.open()
        #expect(try Migrator.version(of: vault.connection) == Vault.schemaVersion)
        let accounts = try vault.accounts()
        #expect(accounts.map(\.name) == ["bare", "full"])
        let full = try #require(accounts.last)
        #expect(full.configuration == .success(Self.everyField))
        #expect(full.id == 1 && full.ownerUID == 1000 && full.createdAt == 42)
        let bare = try #require(accounts.first)
        #expect(bare.configuration == .success(AccountConfiguration(name: "bare", issuer: "https://idp.example", clientID: "c")))
        // The sealed values still open: ids (named in their AAD) were kept.
        #expect(try vault.clientSecret(for: full) == secret)
        #expect(try vault.loadTokens(accountID: full.id)?.accessToken == access)
        // Only the document remains: no column restates a field of the model.
        let columns = try vault.connection.query("SELECT name FROM pragma_table_info('accounts')") { $0.text(0) }
        #expect(columns == ["id", "owner_uid", "name", "client_secret", "created_at", "configuration"])
        try vault.integrityCheck()
        #expect(try vault.connection.query("PRAGMA foreign_key_check") { $0.text(0) }.isEmpty)
    }

    @Test func optionsThatWereNotAnObjectMakeTheAccountUnreadableInsteadOfBeingDropped() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        try writeVaultBeforeDocuments(fixture, secret: Secret("s"), access: Secret("a"), fullOptions: "[1]")
        let full = try #require(try fixture.open().accounts().first { $0.name == "full" })
        #expect(full.configuration == .failure(.unexpectedKey("unmigrated_options")))
    }

    /// The database as main wrote it (every migration before `account-configuration-document`):
    /// "full" with every option, a client secret and tokens; "bare" with no options at all.
    private func writeVaultBeforeDocuments(
        _ fixture: VaultFixture, secret: Secret, access: Secret, fullOptions: String = everyOption
    ) throws {
        try FileManager.default.createDirectory(
            atPath: (fixture.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let connection = try SQLiteConnection(path: fixture.databasePath)
        let before = Array(VaultSchema.migrations(existingOwner: 0).prefix { $0.name != "account-configuration-document" })
        // Later migrations (restricted sockets…) come after it: only its presence matters here.
        #expect(before.count < Vault.schemaVersion, "no account-configuration-document migration")
        try Migrator.migrate(connection, migrations: before)
        func sealed(_ value: Secret, _ field: SealedField) throws -> SQLValue {
            .blob(
                try value.withUnsafeBytes {
                    try AESGCM.seal($0, key: fixture.key, associatedData: field.associatedData(accountID: 1))
                })
        }
        try connection.run(
            "INSERT INTO accounts (owner_uid, name, issuer, client_id, scopes, options, client_secret, created_at) "
                + "VALUES (1000, 'full', 'https://idp.example', 'client-full', 'openid email offline_access', ?, ?, 42)",
            [.text(fullOptions), try sealed(secret, .clientSecret)])
        try connection.run(
            "INSERT INTO accounts (owner_uid, name, issuer, client_id, scopes, created_at) "
                + "VALUES (1000, 'bare', 'https://idp.example', 'c', '', 43)")
        try connection.run(
            "INSERT INTO tokens (account_id, access_token, token_type, obtained_at) VALUES (1, ?, 'Bearer', 5)",
            [try sealed(access, .accessToken)])
    }
}
