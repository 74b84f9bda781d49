import BrokerCrypto
import BrokerProtocol
import Testing

@testable import BrokerStore

/// Start-up reads every account with `sealedAccounts()` (one statement) instead of `accounts()`
/// plus `loadTokens`, `clientSecret(for:)` and `status(accountID:)` per account: for every state an
/// account can be in, both ways must give the same accounts, tokens, secrets, status — and the same
/// errors, since those are what the user is shown.
@Suite struct VaultSealedAccountsTests {
    @Test func everyStoredStateReadsAsThePerAccountLookUpsReadIt() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        let full = try vault.addAccount(sampleAccount("full"), owner: 1000, now: 1).id
        var tokens = sampleTokens("full")
        tokens.dpopKey = try ECSigningKey.generate()
        try vault.saveTokens(tokens, accountID: full)
        try vault.updateStatus(TokenStatus(lastRefreshAt: 5, subject: "sub-full"), accountID: full)
        _ = try vault.addAccount(sampleAccount("public", secret: nil), owner: 1000, now: 2)
        let statusOnly = try vault.addAccount(sampleAccount("status-only"), owner: 1000, now: 3).id
        try vault.updateStatus(
            TokenStatus(lastRefreshAt: 7, lastErrorCode: "invalid_grant", lastErrorMessage: "revoked"), accountID: statusOnly)
        let badID = try vault.addAccount(sampleAccount("bad-id-token"), owner: 1000, now: 4).id
        try vault.saveTokens(sampleTokens("bad"), accountID: badID)
        try vault.connection.run("UPDATE tokens SET id_token = x'01deadbeef' WHERE account_id = ?", [.integer(badID)])
        let badSecret = try vault.addAccount(sampleAccount("bad-secret"), owner: 1000, now: 5).id
        try vault.saveTokens(sampleTokens("bs"), accountID: badSecret)
        try vault.connection.run("UPDATE accounts SET client_secret = x'01' WHERE id = ?", [.integer(badSecret)])
        let noAccess = try vault.addAccount(sampleAccount("no-access"), owner: 1001, now: 6).id
        try vault.saveTokens(sampleTokens("na"), accountID: noAccess)
        try vault.connection.run("UPDATE tokens SET access_token = NULL WHERE account_id = ?", [.integer(noAccess)])
        try vault.connection.run("UPDATE accounts SET configuration = '{\"version\":2}' WHERE id = ?", [.integer(noAccess)])

        let sealed = try fixture.open().sealedAccounts { $0 }
        let expected = try vault.accounts()
        #expect(sealed.map(\.account) == expected)
        #expect(sealed.count == 6)
        for (item, account) in zip(sealed, expected) {
            // The same set, except that start-up holds the ID token as stored (it stays in the vault).
            let looked = outcome { try vault.loadTokens(accountID: account.id).map(Self.keepingIDTokenStored) }
            #expect(outcome { try vault.tokens(of: item) } == looked, "\(account.name)")
            #expect(
                outcome { try vault.clientSecret(of: item) } == outcome { try vault.clientSecret(for: account) },
                "\(account.name)")
            #expect(item.status == (try vault.status(accountID: account.id)), "\(account.name)")
        }
        // The cases above are the ones meant: an opened token set, an error, a status without tokens.
        let byName = Dictionary(uniqueKeysWithValues: sealed.map { ($0.account.name, $0) })
        #expect(try vault.tokens(of: #require(byName["full"]))?.accessToken == tokens.accessToken)
        #expect(try vault.tokens(of: #require(byName["full"]))?.dpopKey != nil)
        #expect(try vault.tokens(of: #require(byName["full"]))?.idToken == .stored(identity: nil))
        #expect(try vault.loadIDToken(accountID: full) == tokens.idToken?.token)
        let badIDToken = try #require(byName["bad-id-token"])
        #expect(
            outcome { try vault.tokens(of: badIDToken) }
                == .error("\(StoreError.cannotDecrypt(account: "bad-id-token", field: "id_token"))"))
        #expect(try vault.tokens(of: #require(byName["status-only"])) == nil)
        #expect(byName["status-only"]?.status?.lastErrorCode == "invalid_grant")
        #expect(byName["public"]?.status == nil)
    }

    private static func keepingIDTokenStored(_ tokens: TokenSet) -> TokenSet {
        var kept = tokens
        if kept.idToken != nil { kept.idToken = .stored(identity: nil) }
        return kept
    }

    /// A value or an error's text, so the two readers' outcomes compare (values by equality:
    /// secrets print redacted).
    private enum Outcome<T: Equatable>: Equatable {
        case value(T)
        case error(String)
    }

    private func outcome<T: Equatable>(_ body: () throws -> T) -> Outcome<T> {
        do { return .value(try body()) } catch { return .error("\(error)") }
    }
}
