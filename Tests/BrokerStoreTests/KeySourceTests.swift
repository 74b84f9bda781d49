import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

@Suite struct KeySourceTests {
    /// A valid key line whose base64 uses both '+' and '/' (0xfb 0xef 0xbe → "++++", 0xff… → "////").
    private let plusSlashKey = Data([UInt8](repeating: 0xfb, count: 1) + [0xef, 0xbe] + [UInt8](repeating: 0xff, count: 29))
        .base64EncodedString()

    @Test func keyFileReadableByGroupOrOtherIsRefusedLikeSSH() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for mode: mode_t in [0o644, 0o640, 0o604, 0o660, 0o602] {
            let path = directory.appending("key-\(String(mode, radix: 8))")
            try writeFile(path, plusSlashKey + "\n", mode: mode)
            let error = storeError { _ = try KeyFile.read(path) }
            #expect(error == .permissionsTooOpen(path: path, mode: UInt32(S_IFREG) | UInt32(mode)))
            #expect(
                error?.description
                    == "permissions 0\(String(mode, radix: 8)) for '\(path)' are too open; run: chmod 600 '\(path)'")
        }
        let strict = directory.appending("key-400")
        try writeFile(strict, plusSlashKey, mode: 0o400)
        #expect(try KeyFile.read(strict).secret.revealBytes() == [0xfb, 0xef, 0xbe] + [UInt8](repeating: 0xff, count: 29))
    }

    @Test(arguments: [
        ("", "found 0 bytes"),
        ("\n", "found 0 bytes"),
        (Data(count: 16).base64EncodedString(), "found 24 bytes"),  // 16-byte key
        (Data(count: 33).base64EncodedString(), "not 32"),  // 44 characters, no padding: 33 bytes
        (Data(count: 31).base64EncodedString(), "not 32"),  // 44 characters, "==": 31 bytes
        ("not a key at all, just some garbage text!!!=", "not standard base64"),
        (String(repeating: "-", count: 43) + "=", "not standard base64"),  // base64url alphabet
        (Data(count: 32).base64EncodedString() + "\n\n", "found 45 bytes"),  // two lines
        (" " + Data(count: 32).base64EncodedString(), "found 45 bytes"),
        (String(repeating: "A", count: 42) + "B=", "not standard base64"),  // non-canonical trailing bits
    ])
    func malformedKeyFilesAreRefused(contents: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("bad.key")
        try writeFile(path, contents)
        let error = storeError { _ = try KeyFile.read(path) }
        guard case .invalidKeyFile(let reported, let why) = error else {
            Issue.record("expected invalidKeyFile, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
        #expect(why.contains(reason), "\(why)")
    }

    @Test func keyFileRoundTripsThroughStandardBase64() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try SymmetricKey.generate()
        let path = directory.appending("sub/dir/k")
        try KeyFile.write(key, to: path)
        #expect(try KeyFile.read(path) == key)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 45 && text.hasSuffix("=\n"))
        #expect(Data(base64Encoded: String(text.dropLast())) == Data(key.secret.revealBytes()))
        #expect(try fileMode(path) == 0o600)
        #expect(try fileMode(directory.appending("sub/dir")) == 0o700)
        // generate refuses to overwrite an existing key.
        #expect(throws: StoreError.self) { _ = try KeyFile.generate(at: path) }
        #expect(try KeyFile.read(path) == key)
    }

    @Test func credentialsDirectoryBeatsExplicitBeatsPassphraseBeatsDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let credentials = directory.appending("creds")
        try writeFile(credentials + "/authbroker.key", plusSlashKey)
        let environment = [
            "CREDENTIALS_DIRECTORY": credentials, "XDG_CONFIG_HOME": directory.appending("xdg"), "HOME": "/home/u",
        ]
        #expect(
            try KeySource.resolve(environment: environment, keyFile: "/k", passphraseFile: "/p")
                == .systemdCredential(path: credentials + "/authbroker.key"))
        var noCredential = environment
        noCredential["CREDENTIALS_DIRECTORY"] = directory.appending("empty-creds")
        #expect(try KeySource.resolve(environment: noCredential, keyFile: "/k", passphraseFile: "/p") == .keyFile(path: "/k"))
        #expect(try KeySource.resolve(environment: noCredential, passphraseFile: "/p") == .passphraseFile(path: "/p"))
        #expect(
            try KeySource.resolve(environment: noCredential)
                == .defaultKeyFile(path: directory.appending("xdg") + "/authbroker/master.key"))
        #expect(
            try KeySource.resolve(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "relative"])
                == .defaultKeyFile(path: "/home/u/.config/authbroker/master.key"))
        #expect(storeError { _ = try KeySource.resolve(environment: [:]) } == .noDefaultKeyLocation)
    }

    @Test func systemdCredentialKeysTheVault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let credentials = directory.appending("creds")
        try writeFile(credentials + "/authbroker.key", plusSlashKey, mode: 0o400)
        let source = try KeySource.resolve(
            environment: ["CREDENTIALS_DIRECTORY": credentials, "HOME": directory.path], keyFile: "/nonexistent")
        let database = directory.appending("state/v.db")
        let vault = try Vault.open(databasePath: database, keySource: source)
        try vault.addAccount(sampleAccount("cred"), owner: 1000, now: 0)
        #expect(try Vault.open(databasePath: database, keySource: source).accounts().count == 1)
    }

    @Test func defaultKeyFileIsGeneratedOnFirstUseAndRequiredAfterwards() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = try KeySource.resolve(environment: ["XDG_CONFIG_HOME": directory.appending("config")])
        let database = directory.appending("state/v.db")
        let account = try Vault.open(databasePath: database, keySource: source).addAccount(
            sampleAccount("d"), owner: 1000, now: 0)
        #expect(try fileMode(source.path) == 0o600)
        #expect(try fileMode(directory.appending("config/authbroker")) == 0o700)
        let key = try KeyFile.read(source.path)
        let vault = try Vault.open(databasePath: database, keySource: source)
        #expect(try vault.clientSecret(for: account) != nil)
        #expect(try KeyFile.read(source.path) == key)
        // Losing the key never silently makes a new one for an existing database.
        try FileManager.default.removeItem(atPath: source.path)
        #expect(
            storeError { _ = try Vault.open(databasePath: database, keySource: source) }
                == .keyFileMissing(keySource: source.description, database: database))
        #expect(!SecureFiles.exists(source.path))
    }

    @Test func passphraseFileRoundTripAndRefusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cheap = KeyDerivation.ScryptParameters(n: 1 << 10, r: 8, p: 1)  // fast tests; the default is 2^16
        let passphrase = directory.appending("pass")
        try writeFile(passphrase, "correct horse battery staple\n")
        let database = directory.appending("state/v.db")
        let source = KeySource.passphraseFile(path: passphrase)
        let tokens = sampleTokens("p")
        let account = try Vault.open(databasePath: database, keySource: source, passphraseParameters: cheap)
            .addAccount(sampleAccount("p"), owner: 1000, now: 0)
        try Vault.open(databasePath: database, keySource: source).saveTokens(tokens, accountID: account.id)
        #expect(try Vault.open(databasePath: database, keySource: source).loadTokens(accountID: account.id) == tokens)

        let wrong = directory.appending("wrong")
        try writeFile(wrong, "Tr0ub4dor&3\n")
        #expect(
            storeError { _ = try Vault.open(databasePath: database, keySource: .passphraseFile(path: wrong)) }
                == .wrongKey(keySource: "passphrase file '\(wrong)'", database: database))
        let keyFile = directory.appending("k")
        _ = try KeyFile.generate(at: keyFile)
        #expect(
            storeError { _ = try Vault.open(databasePath: database, keySource: .keyFile(path: keyFile)) }
                == .keyKindMismatch(keySource: "key file '\(keyFile)'", database: database, databaseUsesPassphrase: true))
        let loose = directory.appending("loose")
        try writeFile(loose, "correct horse battery staple\n", mode: 0o644)
        #expect(
            storeError { _ = try Vault.open(databasePath: database, keySource: .passphraseFile(path: loose)) }
                == .permissionsTooOpen(path: loose, mode: UInt32(S_IFREG) | 0o644))
    }

    /// docs/security.md: a passphrase is stretched with scrypt N=2^16, r=8, p=1, salt and cost stored
    /// in the database. The other tests use cheap parameters; this one pins the default.
    @Test func aPassphraseVaultUsesTheDocumentedScryptCostAndAFreshSalt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let passphrase = directory.appending("pass")
        try writeFile(passphrase, "correct horse battery staple\n")
        func record(_ name: String) throws -> VaultMeta.KDFRecord? {
            try VaultMeta(
                connection: Vault.open(
                    databasePath: directory.appending("\(name)/v.db"), keySource: .passphraseFile(path: passphrase)
                )
                .connection
            ).kdfRecord()
        }
        let first = try #require(try record("a"))
        #expect(first.parameters == KeyDerivation.ScryptParameters(n: 1 << 16, r: 8, p: 1))
        #expect(first.salt.count == 16)
        #expect(try record("b")?.salt != first.salt, "two vaults share a salt")
    }

    @Test func rekeyFromPassphraseToKeyFileAndBack() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let cheap = KeyDerivation.ScryptParameters(n: 1 << 10, r: 8, p: 1)
        let vault = try fixture.open()
        let account = try vault.addAccount(sampleAccount("r"), owner: 1000, now: 0)
        let tokens = sampleTokens("r")
        try vault.saveTokens(tokens, accountID: account.id)
        let passphrase = fixture.directory.appending("pass")
        try writeFile(passphrase, "a long passphrase")
        try vault.rekey(toPassphraseFile: passphrase, parameters: cheap)
        #expect(throws: StoreError.self) { _ = try fixture.open() }
        let viaPassphrase = try Vault.open(databasePath: fixture.databasePath, keySource: .passphraseFile(path: passphrase))
        #expect(try viaPassphrase.loadTokens(accountID: account.id) == tokens)
        try viaPassphrase.rekey(to: fixture.key, keySource: fixture.keySource)
        #expect(try fixture.open().loadTokens(accountID: account.id) == tokens)
    }
}
