import BrokerCore
import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Foundation
import Testing

/// docs/security.md "Rekey": "Keys from a credential or a passphrase file are not replaced by the
/// daemon (`400 invalid_request`, saying where the key comes from): rotate those by hand."
@Suite struct TokenBrokerRekeyRefusalTests {
    /// `rekey()` on a broker whose vault is keyed by `source`: the refusal, and whether the key
    /// material at `keyPath` was left byte for byte as it was, with no pending `.new` key beside it.
    func refusal(_ harness: BrokerHarness, source: KeySource, keyPath: String) async throws -> (WireError?, untouched: Bool) {
        let before = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        let vault = try await openVault {
            try Vault.open(
                databasePath: harness.directory.appending("refusal.db"), keySource: source,
                passphraseParameters: KeyDerivation.ScryptParameters(n: 1 << 10, r: 8, p: 1))
        }
        let broker = TokenBroker(
            vault: vault, transport: harness.provider, options: TokenBroker.Options(), logger: harness.logs.logger)
        var refusal: WireError?
        do throws(WireError) { _ = try await broker.rekey() } catch { refusal = error }
        await broker.shutdown()
        let after = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        return (refusal, before == after && !FileManager.default.fileExists(atPath: keyPath + ".new"))
    }

    @Test func aPassphraseKeyIsNotReplacedAndTheRefusalNamesItsFile() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let passphrase = harness.directory.appending("passphrase")
        try #require(
            FileManager.default.createFile(
                atPath: passphrase, contents: Data("correct horse battery staple\n".utf8), attributes: [.posixPermissions: 0o600])
        )
        let (refusal, untouched) = try await refusal(harness, source: .passphraseFile(path: passphrase), keyPath: passphrase)
        #expect(refusal?.code == .invalidRequest, "\(String(describing: refusal))")
        #expect(refusal?.message.contains("passphrase file '\(passphrase)'") == true, "\(String(describing: refusal))")
        #expect(untouched)
    }

    @Test func aSystemdCredentialIsNotReplacedAndTheRefusalSaysHowToRotateIt() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let credential = harness.directory.appending("authbroker.key")
        _ = try KeyFile.generate(at: credential)
        let (refusal, untouched) = try await refusal(harness, source: .systemdCredential(path: credential), keyPath: credential)
        #expect(refusal?.code == .invalidRequest, "\(String(describing: refusal))")
        #expect(refusal?.message.contains("systemd credential '\(credential)'") == true, "\(String(describing: refusal))")
        #expect(refusal?.message.contains("systemd-creds") == true)
        #expect(untouched)
    }
}
