/// Caches of provider metadata (by issuer) and JWKS documents (by jwks_uri). Not secret, not sealed.
extension Vault {
    /// The two cache tables share one shape; the table name is never user input.
    private enum CacheTable: String {
        case providerMetadata = "provider_metadata"
        case jwks = "jwks_cache"

        var keyColumn: String { self == .providerMetadata ? "issuer" : "jwks_uri" }
    }

    public func providerMetadata(issuer: String) throws -> CachedDocument? {
        try cached(.providerMetadata, key: issuer)
    }

    public func storeProviderMetadata(_ document: CachedDocument, issuer: String) throws {
        try store(document, in: .providerMetadata, key: issuer)
    }

    public func jwks(uri: String) throws -> CachedDocument? {
        try cached(.jwks, key: uri)
    }

    public func storeJWKS(_ document: CachedDocument, uri: String) throws {
        try store(document, in: .jwks, key: uri)
    }

    private func cached(_ table: CacheTable, key: String) throws -> CachedDocument? {
        try connection.query(
            "SELECT document, fetched_at FROM \(table.rawValue) WHERE \(table.keyColumn) = ?", [.text(key)]
        ) { CachedDocument(json: $0.text(0), fetchedAt: $0.double(1)) }.first
    }

    private func store(_ document: CachedDocument, in table: CacheTable, key: String) throws {
        try connection.run(
            """
            INSERT INTO \(table.rawValue) (\(table.keyColumn), document, fetched_at) VALUES (?, ?, ?)
            ON CONFLICT (\(table.keyColumn)) DO UPDATE SET document = excluded.document, fetched_at = excluded.fetched_at
            """, [.text(key), .text(document.json), .real(document.fetchedAt)])
    }
}
