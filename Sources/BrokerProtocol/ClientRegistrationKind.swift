/// How an account of a protected resource got its client id (MCP authorization spec 2025-11-25,
/// "Client Registration Approaches", in the order the daemon tries them).
public enum ClientRegistrationKind: String, Codable, Sendable, CaseIterable {
    /// `--client-id`: registered with the authorization server beforehand.
    case preregistered
    /// `--client-metadata-url`: the URL of a Client ID Metadata Document is the client id.
    case metadataDocument = "metadata-document"
    /// RFC 7591 dynamic registration by the daemon; kept in the vault (`client_registrations`) and
    /// deleted (RFC 7592) when the account is removed.
    case dynamic
}
