import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials
import Testing

@testable import BrokerCore

/// What the broker derives from an account's runtime, without the actor: the OAuth client follows
/// the configuration, the secret and the metadata it has at the moment of use.
@Suite struct AccountRuntimeTests {
    static func runtime(
        secret: String? = nil, methods: [String]? = nil, method: TokenEndpointAuthMethod? = nil
    ) -> AccountRuntime {
        var configuration = BrokerProtocol.AccountConfiguration(
            name: "work", issuer: testIssuer, clientID: "cli", scopes: ["openid", "email"], audience: "api",
            extraParameters: ["prompt": "consent", "access_type": "offline"])
        configuration.tokenEndpointAuthMethod = method
        var metadata = testMetadata()
        metadata.tokenEndpointAuthMethodsSupported = methods
        return AccountRuntime(
            id: 1, owner: 1001, configuration: configuration, clientSecret: secret.map { Secret($0) },
            metadata: CachedProviderMetadata(metadata: metadata, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: 0)),
            machine: AccountStateMachine(account: "work", jitter: RefreshJitter(seed: 1)))
    }

    @Test func theClientCarriesTheConfigurationWithParametersInNameOrder() {
        let client = Self.runtime().client
        #expect(client.clientID == "cli")
        #expect(client.scopes == ["openid", "email"])
        #expect(client.audience == "api")
        #expect(client.extraParameters.map { "\($0.name)=\($0.value)" } == ["access_type=offline", "prompt=consent"])
        #expect(client.authentication == .none, "a client without a secret is public")
    }

    @Test func aSecretMeansBasicUnlessTheProviderOffersOnlyPost() {
        #expect(Self.runtime(secret: "s3").client.authentication == .clientSecretBasic(Secret("s3")))
        #expect(
            Self.runtime(secret: "s3", methods: ["client_secret_post", "client_secret_basic"]).client.authentication
                == .clientSecretBasic(Secret("s3")))
        #expect(
            Self.runtime(secret: "s3", methods: ["client_secret_post"]).client.authentication == .clientSecretPost(Secret("s3")))
    }

    /// Manual endpoints (GitHub) have no metadata to say so: the account's own method wins either way.
    @Test func theAccountsAuthMethodWinsOverTheMetadata() {
        #expect(Self.runtime(secret: "s3", method: .clientSecretPost).client.authentication == .clientSecretPost(Secret("s3")))
        #expect(
            Self.runtime(secret: "s3", methods: ["client_secret_post"], method: .clientSecretBasic).client.authentication
                == .clientSecretBasic(Secret("s3")))
        #expect(Self.runtime(method: .clientSecretPost).client.authentication == .none, "no secret, nothing to send")
    }

    @Test func theClientFollowsNewMetadataAndANewSecret() {
        var runtime = Self.runtime(secret: "s3")
        var postOnly = testMetadata()
        postOnly.tokenEndpointAuthMethodsSupported = ["client_secret_post"]
        runtime.metadata = CachedProviderMetadata(metadata: postOnly, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: 1))
        #expect(runtime.client.authentication == .clientSecretPost(Secret("s3")))
        runtime.clientSecret = Secret("s4")
        #expect(runtime.client.authentication == .clientSecretPost(Secret("s4")))
        runtime.configuration.clientID = "cli-2"
        #expect(runtime.client.clientID == "cli-2")
    }

    @Test func theLoopbackRedirectDefaultsToIPv4OnAnyPort() {
        var runtime = Self.runtime()
        #expect(runtime.loopbackRedirect == LoopbackRedirect(host: .ipv4, port: 0, path: RedirectURI.defaultPath))
        runtime.configuration.redirectHost = "[::1]"
        runtime.configuration.redirectPort = 8400
        runtime.configuration.redirectPath = "/cb"
        #expect(runtime.loopbackRedirect == LoopbackRedirect(host: .ipv6, port: 8400, path: "/cb"))
    }
}

/// `OutOfLine`: the runtime's large parts live behind a reference, with value semantics kept.
@Suite struct AccountRuntimeStorageTests {
    /// The accounts dictionary holds one runtime-sized slot per bucket (up to 2 per account):
    /// inline the runtime was 1,264 bytes, then 232 with its large parts in boxes of their own;
    /// now one reference (docs/BENCHMARKS-archive.md, "Daemon idle: the link", and
    /// "Memory per account").
    @Test func theRuntimeIsOneReferenceWide() {
        #expect(MemoryLayout<AccountRuntime>.size == MemoryLayout<AnyObject>.size)
    }

    @Test func aCopyIsIndependentOfTheOriginal() {
        let original = AccountRuntimeTests.runtime()
        var copy = original
        copy.configuration.clientID = "cli-2"
        copy.machine.lastRefreshAt = 42
        copy.metadata = nil
        #expect(original.configuration.clientID == "cli")
        #expect(original.machine.lastRefreshAt == nil)
        #expect(original.metadata != nil)
        #expect(copy.configuration.clientID == "cli-2" && copy.machine.lastRefreshAt == 42 && copy.metadata == nil)
    }

    @Test func aCopyThatSharesTheMetadataBoxStillWritesItsOwn() {
        let original = AccountRuntimeTests.runtime()
        var copy = AccountRuntimeTests.runtime()
        copy.metadataStorage = original.metadataStorage
        #expect(copy.metadataStorage.sharesStorage(with: original.metadataStorage))
        copy.metadata = nil
        #expect(original.metadata != nil && copy.metadata == nil)
        #expect(!copy.metadataStorage.sharesStorage(with: original.metadataStorage))
    }

    /// What stays inline in every account's runtime box (docs/BENCHMARKS-archive.md, "The ID token out of
    /// memory"): a token set and the manual endpoints are one reference each, and the machine keeps its rarely
    /// set fields (pending login, last error, failing save) out of line. Bounds, not exact sizes: a new field
    /// fits, a regression to the inline layouts (96, 128 and 40 bytes) does not.
    @Test func theLargeRarelySetPartsAreOutOfLine() {
        #expect(MemoryLayout<TokenSet>.size == MemoryLayout<AnyObject>.size)
        #expect(MemoryLayout<ManualEndpoints?>.size == MemoryLayout<AnyObject>.size)
        #expect(MemoryLayout<AccountStateMachine>.size <= 180, "\(MemoryLayout<AccountStateMachine>.size) bytes")
        var machine = AccountStateMachine(account: "work", jitter: RefreshJitter(seed: 1))
        let copy = machine
        machine.lastError = WireError(code: .internal, message: "m")
        #expect(copy.lastError == nil && machine.lastError?.message == "m", "value semantics")
    }

    @Test func aTokenSetCopyIsIndependentOfTheOriginal() {
        let original = TokenSet(accessToken: Secret("a"), refreshToken: Secret("r"), scope: "s", obtainedAt: 1)
        var copy = original
        #expect(copy.sharesStorage(with: original) && copy == original)
        copy.scope = "t"
        #expect(!copy.sharesStorage(with: original) && copy != original)
        #expect(original.scope == "s" && copy.scope == "t" && copy.refreshToken == original.refreshToken)
        var endpoints = ManualEndpoints(token: "https://idp.example/token")
        let before = endpoints
        endpoints.token = "https://idp.example/other"
        #expect(before.token == "https://idp.example/token" && endpoints.token == "https://idp.example/other")
    }
}
