import BrokerCrypto
import BrokerProtocol
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

@Suite struct VaultTests {
    @Test func accountsTokensStatusAndCachesRoundTrip() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let configuration = sampleAccount("work")
        let tokens = sampleTokens("work")
        let accountID: Int64
        do {
            let vault = try fixture.open()
            let account = try vault.addAccount(configuration, owner: 1000, now: 1_700_000_000)
            accountID = account.id
            #expect(account.name == "work")
            #expect(try account.configuration.get().scopes == ["openid", "email", "offline_access"])
            #expect(account.hasClientSecret)
            try vault.saveTokens(tokens, accountID: account.id)
            try vault.updateStatus(TokenStatus(lastRefreshAt: 5, subject: "user-1"), accountID: account.id)
            try vault.storeProviderMetadata(
                CachedDocument(json: #"{"issuer":"x"}"#, fetchedAt: 7), issuer: "x", documentURL: "https://x/d")
            // Another document claiming the same issuer is a separate entry, not a replacement.
            try vault.storeProviderMetadata(
                CachedDocument(json: #"{"issuer":"x","e":1}"#, fetchedAt: 9), issuer: "x", documentURL: "https://e/d")
            try vault.storeJWKS(CachedDocument(json: #"{"keys":[]}"#, fetchedAt: 8), uri: "https://x/jwks")
        }
        // A fresh open (new connection, key re-read from the file) sees everything.
        let vault = try fixture.open()
        let account = try #require(try vault.account(named: "work", owner: 1000))
        #expect(account.id == accountID)
        #expect(try account.configuration.get() == configuration.withoutSecret)
        #expect(try vault.clientSecret(for: account) == configuration.clientSecret.map { Secret($0) })
        #expect(try vault.loadTokens(accountID: accountID) == tokens)
        #expect(try vault.status(accountID: accountID) == TokenStatus(lastRefreshAt: 5, subject: "user-1"))
        #expect(
            try vault.providerMetadata(issuer: "x", documentURL: "https://x/d")
                == CachedDocument(json: #"{"issuer":"x"}"#, fetchedAt: 7))
        #expect(try vault.providerMetadata(issuer: "x", documentURL: "https://e/d")?.fetchedAt == 9)
        #expect(try vault.jwks(uri: "https://x/jwks") == CachedDocument(json: #"{"keys":[]}"#, fetchedAt: 8))
        #expect(try vault.providerMetadata(issuer: "other", documentURL: "https://x/d") == nil)
        #expect(try vault.providerMetadata(issuer: "x", documentURL: "https://other/d") == nil)

        try vault.deleteTokens(accountID: accountID)
        #expect(try vault.loadTokens(accountID: accountID) == nil)
        try vault.removeAccount(named: "work", owner: 1000)
        #expect(try vault.accounts().isEmpty)
    }

    @Test func publicClientAndMinimalTokensRoundTrip() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("public", secret: nil), owner: 1000, now: 0)
        #expect(!account.hasClientSecret)
        #expect(try vault.clientSecret(for: account) == nil)
        let tokens = TokenSet(accessToken: Secret("only-access"), obtainedAt: 3)
        try vault.saveTokens(tokens, accountID: account.id)
        #expect(try vault.loadTokens(accountID: account.id) == tokens)
    }

    @Test func duplicateAndUnknownAccountsAreCleanErrors() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let first = try vault.addAccount(sampleAccount("dup"), owner: 1000, now: 0)
        #expect(storeError { try vault.addAccount(sampleAccount("dup"), owner: 1000, now: 0) } == .duplicateAccount(name: "dup"))
        let other = try vault.addAccount(sampleAccount("other"), owner: 1000, now: 0)
        #expect(
            storeError { try vault.updateAccount(id: other.id, with: sampleAccount("dup")) }
                == .duplicateAccount(name: "dup"))
        #expect(storeError { try vault.removeAccount(named: "ghost", owner: 1000) } == .unknownAccount(name: "ghost"))
        #expect(storeError { try vault.saveTokens(sampleTokens("x"), accountID: 9999) } == .unknownAccountID(9999))
        #expect(try vault.accounts().map(\.name) == ["dup", "other"])
        // A configuration document that is not JSON is refused by the schema, without partial rows.
        let bad = try vault.addAccount(sampleAccount("bad"), owner: 1000, now: 0)
        #expect(throws: StoreError.self) {
            try vault.connection.run("UPDATE accounts SET configuration = '{not json' WHERE id = ?", [.integer(bad.id)])
        }
        #expect(try vault.account(named: "bad", owner: 1000)?.configuration == .success(sampleAccount("bad").withoutSecret))
        #expect(try vault.account(id: first.id).name == "dup")
    }

    @Test func removingAnAccountRemovesItsTokens() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("gone"), owner: 1000, now: 0)
        try vault.saveTokens(sampleTokens("gone"), accountID: account.id)
        try vault.removeAccount(named: "gone", owner: 1000)
        #expect(try vault.connection.query("SELECT count(*) FROM tokens") { $0.int64(0) } == [0])
    }

    /// The rotated refresh token and the new access token commit together or not at all.
    @Test func savingTokensIsAtomic() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("atomic"), owner: 1000, now: 0)
        let original = sampleTokens("v1", obtainedAt: 100)
        try vault.saveTokens(original, accountID: account.id)
        // Inject a failure after the row is written but before the commit.
        try vault.connection.execute(
            """
            CREATE TEMP TRIGGER fail_rotation AFTER UPDATE ON tokens WHEN NEW.obtained_at = 666
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        #expect(throws: StoreError.self) { try vault.saveTokens(sampleTokens("v2", obtainedAt: 666), accountID: account.id) }
        #expect(try vault.loadTokens(accountID: account.id) == original)
        // An enclosing transaction that fails also takes the whole token set back.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try vault.connection.transaction {
                try vault.saveTokens(sampleTokens("v3", obtainedAt: 300), accountID: account.id)
                throw Abort()
            }
        }
        #expect(try vault.loadTokens(accountID: account.id) == original)
        let rotated = sampleTokens("v4", obtainedAt: 400)
        try vault.saveTokens(rotated, accountID: account.id)
        #expect(try vault.loadTokens(accountID: account.id) == rotated)
    }

    @Test func savingTokensClearsTheLastErrorButKeepsOtherStatus() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("status"), owner: 1000, now: 0)
        try vault.updateStatus(
            TokenStatus(lastRefreshAt: 1, lastErrorCode: "invalid_grant", lastErrorMessage: "expired", subject: "s"),
            accountID: account.id)
        #expect(try vault.loadTokens(accountID: account.id) == nil)
        try vault.saveTokens(sampleTokens("s"), accountID: account.id)
        #expect(try vault.status(accountID: account.id) == TokenStatus(lastRefreshAt: 1, subject: "s"))
    }

    /// A refresh commits its tokens and their status together: one transaction, both or neither.
    @Test func savingTokensWithAStatusWritesBothInOneTransaction() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("refresh"), owner: 1000, now: 0)
        try vault.updateStatus(
            TokenStatus(lastRefreshAt: 1, lastErrorCode: "invalid_grant", lastErrorMessage: "expired", subject: "old"),
            accountID: account.id)
        let tokens = sampleTokens("rotated", obtainedAt: 9)
        try vault.saveTokens(tokens, status: TokenStatus(lastRefreshAt: 9, subject: "new"), accountID: account.id)
        #expect(try vault.loadTokens(accountID: account.id) == tokens)
        #expect(try vault.status(accountID: account.id) == TokenStatus(lastRefreshAt: 9, subject: "new"))
        // Inside a caller's transaction that rolls back, neither the tokens nor the status stay.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try vault.batch {
                try vault.saveTokens(
                    sampleTokens("lost", obtainedAt: 10), status: TokenStatus(lastRefreshAt: 10), accountID: account.id)
                throw Abort()
            }
        }
        #expect(try vault.loadTokens(accountID: account.id) == tokens)
        #expect(try vault.status(accountID: account.id) == TokenStatus(lastRefreshAt: 9, subject: "new"))
        #expect(throws: StoreError.unknownAccountID(account.id + 1)) {
            try vault.saveTokens(tokens, status: TokenStatus(lastRefreshAt: 11), accountID: account.id + 1)
        }
    }
}
