import BrokerProtocol
import BrokerStore
import FoundationEssentials

/// Start-up's provider metadata for the restored accounts, looked up once per provider source
/// instead of once per account: the discovery document URL (deriving it parses the issuer as a
/// URL), the cached document (a vault read) and the metadata decoded from it. Accounts of one
/// source get the same value. Measured with 1,000 accounts of one provider: the per-account
/// look-ups were about a fifth of the start-up's CPU (docs/BENCHMARKS-archive.md, "Daemon idle: the link").
struct ProviderSources {
    /// What the document URL follows for an account without manual endpoints.
    private struct Source: Hashable {
        var issuer: String
        var discoveryURL: String?
    }

    /// One box per source: every account of the source holds the same one (`OutOfLine`), not a
    /// copy of the ≈ 230-byte value each (docs/BENCHMARKS-archive.md, "Memory per account").
    private var resolved: [Source: OutOfLine<CachedProviderMetadata?>] = [:]

    /// The cached metadata of `configuration`'s discovery source; `read(issuer, documentURL)`
    /// reads the vault's copy the first time a source is asked for. Nil for manual endpoints (the
    /// runtime builds those), an issuer without a document URL, nothing cached, or a cached
    /// document that does not decode or names another issuer.
    mutating func cachedMetadata(
        for configuration: AccountConfiguration, read: (_ issuer: String, _ documentURL: String) -> CachedDocument?
    ) -> CachedProviderMetadata? {
        sharedMetadata(for: configuration, read: read).wrappedValue
    }

    /// `cachedMetadata`, in the box that every account of the same source shares.
    mutating func sharedMetadata(
        for configuration: AccountConfiguration, read: (_ issuer: String, _ documentURL: String) -> CachedDocument?
    ) -> OutOfLine<CachedProviderMetadata?> {
        guard !configuration.hasManualEndpoints else { return OutOfLine(wrappedValue: nil) }
        let source = Source(issuer: configuration.issuer, discoveryURL: configuration.discoveryURL)
        if let known = resolved[source] { return known }
        let metadata = OutOfLine(wrappedValue: Self.resolve(configuration, read: read))
        resolved[source] = metadata
        return metadata
    }

    /// Issuers, scope lists and granted scopes seen so far, each kept once.
    private var issuers: Set<String> = []
    private var scopeLists: Set<[String]> = []
    private var grantedScopes: Set<String> = []

    /// Makes `configuration`'s issuer and scopes the same instances as an earlier account's equal
    /// ones, so 1,000 accounts of one provider hold one copy (each decoded document made its own:
    /// a 64-byte string and a 64-byte array per account; docs/BENCHMARKS-archive.md, "Memory per account").
    mutating func share(_ configuration: inout AccountConfiguration) {
        configuration.issuer = issuers.insert(configuration.issuer).memberAfterInsert
        configuration.scopes = scopeLists.insert(configuration.scopes).memberAfterInsert
    }

    /// One copy of each granted scope string among the restored token sets (the accounts of one
    /// client mostly share it; each row read made its own, 64 bytes from 16 characters on).
    mutating func share(_ tokens: inout TokenSet) {
        guard let scope = tokens.scope else { return }
        tokens.scope = grantedScopes.insert(scope).memberAfterInsert
    }

    private static func resolve(
        _ configuration: AccountConfiguration, read: (String, String) -> CachedDocument?
    ) -> CachedProviderMetadata? {
        guard let documentURL = configuration.metadataDocumentURL, let document = read(configuration.issuer, documentURL),
            let decoded = CachedProviderMetadata.storedMetadata(document.json), decoded.issuer == configuration.issuer
        else { return nil }
        return CachedProviderMetadata(
            metadata: decoded, documentURL: documentURL, fetchedAt: Date(timeIntervalSince1970: document.fetchedAt))
    }
}
