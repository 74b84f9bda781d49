/// Caches of provider metadata (by issuer and the discovery document it came from) and JWKS
/// documents (by jwks_uri). Not secret, not sealed.
extension Vault {
    /// The two cache tables share one shape; table and column names are never user input.
    private enum CacheTable: String {
        case providerMetadata = "provider_metadata"
        case jwks = "jwks_cache"

        var keyColumns: [String] { self == .providerMetadata ? ["issuer", "document_url"] : ["jwks_uri"] }
    }

    /// The metadata of `issuer` as read from `documentURL` — never a copy another document gave.
    public func providerMetadata(issuer: String, documentURL: String) throws -> CachedDocument? {
        try cached(.providerMetadata, key: [issuer, documentURL])
    }

    public func storeProviderMetadata(_ document: CachedDocument, issuer: String, documentURL: String) throws {
        try store(document, in: .providerMetadata, key: [issuer, documentURL])
    }

    public func jwks(uri: String) throws -> CachedDocument? {
        try cached(.jwks, key: [uri])
    }

    public func storeJWKS(_ document: CachedDocument, uri: String) throws {
        try store(document, in: .jwks, key: [uri])
    }

    private func cached(_ table: CacheTable, key: [String]) throws -> CachedDocument? {
        let condition = table.keyColumns.map { "\($0) = ?" }.joined(separator: " AND ")
        return try connection.query(
            "SELECT document, fetched_at FROM \(table.rawValue) WHERE \(condition)", key.map { .text($0) }
        ) { CachedDocument(json: $0.text(0), fetchedAt: $0.double(1)) }.first
    }

    private func store(_ document: CachedDocument, in table: CacheTable, key: [String]) throws {
        let columns = table.keyColumns.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: key.count).joined(separator: ", ")
        try connection.run(
            """
            INSERT INTO \(table.rawValue) (\(columns), document, fetched_at) VALUES (\(placeholders), ?, ?)
            ON CONFLICT (\(columns)) DO UPDATE SET document = excluded.document, fetched_at = excluded.fetched_at
            """, key.map { .text($0) } + [.text(document.json), .real(document.fetchedAt)])
    }
}
