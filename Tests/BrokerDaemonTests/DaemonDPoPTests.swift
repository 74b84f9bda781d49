import BrokerCrypto
import BrokerStore
import Foundation
import MockProvider
import TestSupport
import Testing
import WireFormats

/// DPoP (RFC 9449) end to end: the real authbrokerd and authctl against the mock with proofs
/// required and server nonces on. Login, `token --json`, refresh, device login, PAR; then the key
/// is read back from the real vault file (with the master key, as only the daemon could) to prove
/// it is the key the tokens are bound to and that it appears in no output, log or route.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DaemonDPoPTests {
    static func setup(_ change: (inout MockProviderConfiguration) -> Void = { _ in }) throws -> (MockProvider, DaemonHarness) {
        var configuration = MockProviderConfiguration()
        configuration.dpop = .required
        configuration.dpopNonces = true
        configuration.accessTokenLifetime = 20
        change(&configuration)
        return (try MockProvider(configuration: configuration), try DaemonHarness())
    }

    static func add(_ provider: MockProvider, _ extra: [String] = []) -> [String] {
        [
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
            "--scope", "offline_access", "--dpop",
        ] + extra
    }

    /// A daemon that has said READY=1.
    static func ready(_ harness: DaemonHarness, _ arguments: [String]? = nil) async throws -> DaemonProcess {
        let notify = try NotifyListener()
        let daemon = try harness.launch(arguments, notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        return daemon
    }

    /// The tokens as stored, opened with the master key (the daemon must be stopped: it holds the state lock).
    static func storedTokens(_ harness: DaemonHarness) throws -> TokenSet? {
        let vault = try Vault.open(databasePath: harness.database, keySource: .keyFile(path: harness.defaultKeyFile))
        let account = try #require(try vault.accounts().first { $0.name == "work" })
        return try vault.loadTokens(accountID: account.id)
    }

    /// The `cnf.jkt` the mock put in a JWT access token.
    static func boundThumbprint(_ accessToken: String) throws -> String? {
        let payload = try Base64URL.decode(try #require(accessToken.split(separator: ".").dropFirst().first))
        let claims = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        return (claims?["cnf"] as? [String: Any])?["jkt"] as? String
    }

    /// What must never be shown of `key`: its PKCS#8 DER in base64 and base64url, and the private
    /// scalar `d` (the 32 bytes after ECPrivateKey's `04 20`) as a JWK would spell it, and in hex.
    static func privateForms(_ key: ECSigningKey) throws -> [String] {
        let der = try key.exportPKCS8().withUnsafeBytes { Array($0) }
        let marker = try #require(der.indices.dropLast(33).first { der[$0] == 0x04 && der[$0 + 1] == 0x20 })
        let d = Array(der[(marker + 2)..<(marker + 34)])
        return [
            Data(der).base64EncodedString(), Base64URL.encode(der), Base64URL.encode(d),
            d.map { String(format: "%02x", $0) }.joined(),
        ]
    }

    @Test func loginRefreshAndLogoutWithTheKeySealedInTheVaultAndNowhereElse() async throws {
        let (provider, harness) = try Self.setup()
        defer { harness.remove() }
        let daemon = try await Self.ready(harness, harness.daemonArguments + ["--log-level", "debug"])
        try #require(try await harness.authctl(Self.add(provider)).status == 0, "\(daemon.log)")
        try await harness.login("work")

        var printed: [String] = []
        let json = try await harness.authctl(["token", "work", "--json"])
        printed += [json.stdout, json.stderr]
        let grant = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        #expect(grant["token_type"] as? String == "DPoP", "\(json.stdout)")
        let first = try #require(grant["access_token"] as? String)
        try await Task.sleep(for: .seconds(2.5))  // past the brand-new tenth, so --min-ttl refreshes
        let refreshed = try await harness.authctl(["token", "work", "--min-ttl", "3600"])
        #expect(refreshed.status == 0 && refreshed.stdout.trimmingCharacters(in: .newlines) != first, "\(refreshed)")
        for command in [["status", "--json"], ["status", "work"], ["account", "show", "work", "--json"]] {
            let run = try await harness.authctl(command)
            printed += [run.stdout, run.stderr]
        }
        for route in ["/v1/accounts", "/v1/accounts/work", "/v1/accounts/work/token"] {
            printed.append(try await harness.rawRequest(route))
        }
        let stats = provider.stats
        #expect(stats.codeExchanges == 1 && stats.refreshes >= 1, "\(stats)")
        #expect(stats.dpopProofsVerified >= 2 && stats.dpopReplays == 0, "\(stats)")
        // The first proof had no nonce (none known yet); every later one used the remembered one.
        #expect(stats.dpopProofsRefused == ["nonceRequired": 1], "\(stats.dpopProofsRefused)")
        #expect(try await daemon.stop() == 0)

        // The refresh was accepted, so the mock's binding held: the stored key is the tokens' key.
        let stored = try #require(try Self.storedTokens(harness))
        let key = try #require(stored.dpopKey)
        #expect(stored.tokenType == "DPoP")
        #expect(try Self.boundThumbprint(stored.accessToken.revealString()) == key.publicJWK.thumbprint)
        for form in try Self.privateForms(key) {
            #expect(!daemon.log.contains(form), "the DPoP private key reached the daemon log")
            #expect(!printed.contains { $0.contains(form) }, "the DPoP private key reached an output")
        }

        let keyRows = "SELECT count(*) FROM tokens WHERE dpop_key IS NOT NULL"
        #expect(try await harness.run(["/usr/bin/sqlite3", harness.database, keyRows]).stdout == "1\n")
        let again = try await Self.ready(harness)
        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try await again.stop() == 0)
        let rows = try await harness.run(["/usr/bin/sqlite3", harness.database, keyRows])
        #expect(rows.stdout == "0\n", "\(rows)")
        await provider.stop()
    }

    @Test func aDeviceLoginAndAPushedLoginAreProvedAndBoundToTheirOwnKeys() async throws {
        let (provider, harness) = try Self.setup { $0.requirePAR = true }
        defer { harness.remove() }
        let daemon = try await Self.ready(harness)
        try #require(try await harness.authctl(Self.add(provider)).status == 0, "\(daemon.log)")
        try await harness.login("work")
        #expect(provider.stats.parRequests == 1, "\(provider.stats)")
        #expect(try await daemon.stop() == 0)
        let pushed = try #require(try Self.storedTokens(harness)?.dpopKey)

        let device = try await Self.ready(harness)
        let login = try await harness.authctl(["login", "work", "--device", "--timeout", "30"])
        #expect(login.status == 0, "\(login.stderr)\n\(device.log)")
        let token = try await harness.authctl(["token", "work", "--json"])
        let grant = try JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any]
        #expect(grant?["token_type"] as? String == "DPoP", "\(token)")
        #expect(try await device.stop() == 0)
        let stored = try #require(try Self.storedTokens(harness))
        let key = try #require(stored.dpopKey)
        #expect(key != pushed, "a new login makes a new key")
        #expect(try Self.boundThumbprint(stored.accessToken.revealString()) == key.publicJWK.thumbprint)
        #expect(provider.stats.devicePolls >= 1 && provider.stats.dpopProofsRefused["missing"] == nil, "\(provider.stats)")
        await provider.stop()
    }
}
