import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// Provokes every store error we can while secrets are present, and checks that no secret value
/// (token, client secret, key text, passphrase) appears in any error text or value description.
@Suite struct SecretLeakTests {
    @Test func noSecretAppearsInAnyErrorDescription() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let passphrase = "passphrase-\(UUID().uuidString)"
        let configuration = sampleAccount("leak")
        let tokens = sampleTokens("leak")
        let keyText = try String(contentsOfFile: fixture.keyPath, encoding: .utf8)
        var secrets = [passphrase, keyText.trimmingCharacters(in: .newlines)]
        secrets += [
            configuration.clientSecret.map { Secret($0) }, tokens.accessToken, tokens.refreshToken, tokens.idToken?.token,
        ]
        .compactMap { $0?.revealString() }

        var errors: [StoreError?] = []
        let vault = try fixture.open()
        let account = try vault.addAccount(configuration, owner: 1000, now: 0)
        try vault.saveTokens(tokens, accountID: account.id)

        // Duplicate account carrying a client secret; SQLite constraint with secret arguments.
        errors.append(storeError { try vault.addAccount(configuration, owner: 1000, now: 0) })
        errors.append(
            storeError {
                try vault.connection.run(
                    "INSERT INTO accounts (id, name) VALUES (?, ?)", [.integer(account.id), .text(secrets[2])])
            })
        errors.append(
            storeError { try vault.connection.run("INSERT INTO meta (key, value) VALUES ('key_check', ?)", [.text(secrets[3])]) })
        // Tampered fields.
        try vault.connection.run("UPDATE tokens SET refresh_token = access_token")
        errors.append(storeError { _ = try vault.loadTokens(accountID: account.id) })
        errors.append(storeError { try vault.rekey(to: fixture.key, keySource: fixture.keySource) })
        // Key files: too open, garbage holding a secret, wrong key, wrong kind, missing.
        let loose = fixture.directory.appending("loose.key")
        try writeFile(loose, keyText, mode: 0o644)
        errors.append(storeError { _ = try KeyFile.read(loose) })
        for garbage in [passphrase, keyText + keyText, String(keyText.dropLast(2)) + "-\n"] {
            let path = fixture.directory.appending("garbage-\(UUID().uuidString)")
            try writeFile(path, garbage)
            errors.append(storeError { _ = try KeyFile.read(path) })
        }
        let other = fixture.directory.appending("other.key")
        _ = try KeyFile.generate(at: other)
        errors.append(storeError { _ = try Vault.open(databasePath: fixture.databasePath, keySource: .keyFile(path: other)) })
        let passphraseFile = fixture.directory.appending("pass")
        try writeFile(passphraseFile, passphrase)
        errors.append(
            storeError {
                _ = try Vault.open(databasePath: fixture.databasePath, keySource: .passphraseFile(path: passphraseFile))
            })
        errors.append(
            storeError {
                _ = try Vault.open(databasePath: fixture.databasePath, keySource: .defaultKeyFile(path: fixture.keyPath + "x"))
            })
        try writeFile(passphraseFile + "-loose", passphrase, mode: 0o640)
        errors.append(storeError { _ = try PassphraseFile.read(passphraseFile + "-loose") })

        #expect(errors.count == 13)
        #expect(errors.allSatisfy { $0 != nil })
        for error in errors.compactMap({ $0 }) {
            for text in [error.description, String(describing: error), String(reflecting: error)] {
                for secret in secrets {
                    #expect(!text.contains(secret), "secret leaked into: \(error.description)")
                }
            }
        }
        // Value types holding secrets print nothing secret either.
        for text in [
            String(describing: tokens), String(reflecting: tokens), String(describing: configuration),
            String(describing: fixture.key), String(reflecting: fixture.key), "\(try KeyFile.read(fixture.keyPath))",
        ] {
            for secret in secrets { #expect(!text.contains(secret)) }
        }
        // A token set prints its fields (its box is no use in a failure message), tokens redacted.
        #expect(String(describing: tokens).contains("accessToken: <redacted>"), "\(tokens)")
    }
}
