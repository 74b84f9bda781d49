import BrokerCrypto
import Testing

@testable import BrokerStore

/// A set whose ID token is held as `.stored` (in the vault only) saves every other field and keeps
/// the stored ID token: a retried save or a refresh that carried the token over never erases it.
@Suite struct VaultStoredIDTokenTests {
    @Test func aStoredIDTokenIsKeptByASaveThatDoesNotHoldIt() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let id = try vault.addAccount(sampleAccount("work"), owner: 1000, now: 1).id
        let login = sampleTokens("login")
        try vault.saveTokens(login, accountID: id)

        var refreshed = sampleTokens("refresh", obtainedAt: 1_700_000_100)
        refreshed.idToken = .stored(identity: IDTokenIdentity(subject: "u1", tenantID: nil))
        try vault.saveTokens(refreshed, accountID: id)
        let read = try #require(try vault.loadTokens(accountID: id))
        #expect(read.accessToken == refreshed.accessToken && read.refreshToken == refreshed.refreshToken)
        #expect(read.obtainedAt == 1_700_000_100)
        #expect(read.idToken?.token == login.idToken?.token, "the stored ID token is kept")
        #expect(try vault.loadIDToken(accountID: id) == login.idToken?.token)

        // A set that holds one replaces it; a set without one clears it.
        let next = sampleTokens("next")
        try vault.saveTokens(next, accountID: id)
        #expect(try vault.loadIDToken(accountID: id) == next.idToken?.token)
        var none = next
        none.idToken = nil
        try vault.saveTokens(none, accountID: id)
        #expect(try vault.loadIDToken(accountID: id) == nil)
        #expect(try vault.loadTokens(accountID: id)?.idToken == nil)
    }

    @Test func aStoredIDTokenWithNoRowInventsNothing() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let id = try vault.addAccount(sampleAccount("work"), owner: 1000, now: 1).id
        // Logged out meanwhile (the row deleted): the save writes the tokens, and no ID token.
        var tokens = sampleTokens("late")
        tokens.idToken = .stored(identity: nil)
        try vault.saveTokens(tokens, accountID: id)
        #expect(try vault.loadTokens(accountID: id)?.accessToken == tokens.accessToken)
        #expect(try vault.loadIDToken(accountID: id) == nil)
    }

    @Test func aStoredIDTokenThatDoesNotOpenIsAnError() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let id = try vault.addAccount(sampleAccount("work"), owner: 1000, now: 1).id
        try vault.saveTokens(sampleTokens("t"), accountID: id)
        try vault.connection.run("UPDATE tokens SET id_token = x'01deadbeef' WHERE account_id = ?", [.integer(id)])
        #expect(throws: StoreError.cannotDecrypt(account: "work", field: "id_token")) { try vault.loadIDToken(accountID: id) }
    }
}
