import BrokerProtocol
import BrokerStore
import FoundationEssentials
import Testing

@testable import BrokerCore

/// Start-up's metadata look-ups (`ProviderSources`): one vault read and one decode per provider
/// source, shared by every account of that source; the same answers a per-account look-up gave.
@Suite struct ProviderSourcesTests {
    static func stored(_ metadata: ProviderMetadata, fetchedAt: Double) -> CachedDocument {
        let json = CachedProviderMetadata(metadata: metadata, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: 0))
            .storedJSON
        return CachedDocument(json: json ?? "", fetchedAt: fetchedAt)
    }

    static let document = stored(testMetadata(), fetchedAt: 1_700_000_000)

    static func account(_ name: String, discoveryURL: String? = nil, endpoints: ManualEndpoints? = nil) -> AccountConfiguration {
        AccountConfiguration(name: name, issuer: testIssuer, clientID: "cli", endpoints: endpoints, discoveryURL: discoveryURL)
    }

    @Test func accountsOfOneSourceReadTheVaultOnceAndShareTheMetadata() {
        var sources = ProviderSources()
        var reads: [[String]] = []
        let found = (1...1000).map { number in
            sources.cachedMetadata(for: Self.account("acct-\(number)")) { issuer, url in
                reads.append([issuer, url])
                return Self.document
            }
        }
        #expect(reads == [[testIssuer, testIssuer + "/.well-known/openid-configuration"]])
        #expect(Set(found.map { $0?.metadata.issuer }) == [testIssuer])
        #expect(found.allSatisfy { $0?.documentURL == testIssuer + "/.well-known/openid-configuration" })
        #expect(found.first??.fetchedAt == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func accountsOfOneProviderShareOneIssuerAndScopeList() {
        // Built at run time, as decoding builds them: separate heap copies of equal values (longer
        // than 15 bytes, which Swift would keep inline).
        func copy(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        func decoded(_ name: String) -> AccountConfiguration {
            AccountConfiguration(
                name: name, issuer: copy("https://login.provider.example/tenant"), clientID: "cli",
                scopes: ["openid", copy("offline_access")])
        }
        func address(_ text: String) -> UnsafeRawPointer? {
            text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        func address(_ list: [String]) -> UnsafeRawPointer? { list.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        var (first, second, other) = (decoded("a"), decoded("b"), decoded("c"))
        other.scopes = ["openid"]
        #expect(address(first.issuer) != address(second.issuer) && address(first.scopes) != address(second.scopes))
        var sources = ProviderSources()
        for index in [0, 1, 2] {
            switch index {
            case 0: sources.share(&first)
            case 1: sources.share(&second)
            default: sources.share(&other)
            }
        }
        #expect(address(first.issuer) == address(second.issuer) && address(first.issuer) == address(other.issuer))
        #expect(address(first.scopes) == address(second.scopes))
        #expect(other.scopes == ["openid"] && second.scopes == ["openid", "offline_access"])
    }

    @Test func anotherDiscoveryURLIsAnotherSource() {
        var sources = ProviderSources()
        var reads: [String] = []
        for url in [nil, "https://shop.example/.well-known/openid-configuration", nil] {
            _ = sources.cachedMetadata(for: Self.account("a", discoveryURL: url)) { _, documentURL in
                reads.append(documentURL)
                return nil
            }
        }
        #expect(
            reads == [testIssuer + "/.well-known/openid-configuration", "https://shop.example/.well-known/openid-configuration"])
    }

    @Test func manualEndpointsAndForeignOrUnreadableDocumentsGiveNothing() {
        var sources = ProviderSources()
        let manual = Self.account("gh", endpoints: ManualEndpoints(authorization: testIssuer + "/a", token: testIssuer + "/t"))
        #expect(
            sources.cachedMetadata(for: manual) { _, _ in
                Issue.record("manual endpoints read nothing")
                return nil
            } == nil)
        let foreign = Self.stored(testMetadata(issuer: "https://other.example"), fetchedAt: 1)
        var other = ProviderSources()
        #expect(other.cachedMetadata(for: Self.account("a")) { _, _ in foreign } == nil)
        var garbled = ProviderSources()
        #expect(garbled.cachedMetadata(for: Self.account("a")) { _, _ in CachedDocument(json: "{", fetchedAt: 1) } == nil)
    }
}
