import BrokerCrypto
import BrokerProtocol
import Testing
import WireFormats

@testable import BrokerStore

/// The vault stores the account model itself, as `{"version": 1, …}` with the model's own keys,
/// and reads it strictly: a document it cannot read is an error for that account, never a
/// configuration with options quietly missing.
@Suite struct AccountDocumentTests {
    static let everyField = VaultConfigurationMigrationTests.everyField

    @Test func everyFieldRoundTripsThroughARealVault() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        var configuration = Self.everyField
        configuration.clientSecret = "client-secret-doc"
        let id = try fixture.open().addAccount(configuration, owner: 1000, now: 0).id
        let reopened = try fixture.open()
        let account = try #require(try reopened.account(named: "full", owner: 1000))
        #expect(account.configuration == .success(Self.everyField))
        #expect(try reopened.clientSecret(for: account) == Secret("client-secret-doc"))

        var changed = Self.everyField
        changed.name = "renamed"
        changed.gitUsername = nil
        changed.endpoints = ManualEndpoints()
        _ = try reopened.updateAccount(id: id, with: changed)
        changed.endpoints = nil  // empty endpoints are stored as none
        #expect(try fixture.open().account(id: id).configuration == .success(changed))
    }

    @Test func theStoredDocumentIsVersionedWithTheModelsKeysWithoutNameOrSecret() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        var configuration = Self.everyField
        configuration.clientSecret = "client-secret-doc"
        let vault = try fixture.open()
        _ = try vault.addAccount(configuration, owner: 1000, now: 0)
        let text = try #require(try vault.connection.query("SELECT configuration FROM accounts") { $0.text(0) }.first)
        guard case .object(let fields) = try WireJSON.parse(Array(text.utf8)) else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(fields["version"] == .number("1"))
        guard case .object(let model) = try WireJSON.encodeValue(configuration) else { return }
        #expect(Set(fields.keys) == Set(model.keys).subtracting(["name", "client_secret"]).union(["version"]))
        #expect(model.keys.contains("client_secret") && model.keys.contains("git_username"))
        #expect(!text.contains("client-secret-doc"))
        #expect(fields["redirect_port"] == .number("8765"))
    }

    @Test(arguments: [
        (
            #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"surprise":1}"#,
            AccountDocumentError.unexpectedKey("surprise")
        ),
        (#"{"version":1,"issuer":"i","client_id":"c","scopes":[]}"#, .missingKey("extra_parameters")),
        (#"{"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{}}"#, .unknownVersion("none")),
        (
            #"{"version":"1","issuer":"i","client_id":"c","scopes":[],"extra_parameters":{}}"#,
            .unknownVersion("not a number")
        ),
        (#"[]"#, .malformed("not a JSON object")),
    ])
    func documentsThatCannotBeReadSayWhy(text: String, expected: AccountDocumentError) {
        #expect(AccountDocument.decode(text, name: "work") == .failure(expected))
    }

    @Test func aWrongTypeNamesTheKeyButNotTheValue() {
        let text = #"{"version":1,"issuer":"i","client_id":"c","scopes":"openid","extra_parameters":{},"audience":"s3cr3t-ish"}"#
        guard case .failure(.malformed(let reason)) = AccountDocument.decode(text, name: "work") else {
            Issue.record("a string for scopes was accepted")
            return
        }
        #expect(reason.contains("scopes"), "\(reason)")
        #expect(!reason.contains("openid"))
    }
}
