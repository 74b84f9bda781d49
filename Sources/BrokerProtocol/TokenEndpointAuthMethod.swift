/// How a confidential client sends its secret to the token endpoint (RFC 6749 §2.3.1, the names
/// of RFC 8414's `token_endpoint_auth_methods_supported`). nil on an account: HTTP Basic unless the
/// provider's metadata offers only `client_secret_post`. Manual endpoints carry no metadata, so a
/// provider that documents body parameters (GitHub) needs it set.
public enum TokenEndpointAuthMethod: String, Codable, Sendable, CaseIterable {
    /// `Authorization: Basic` with the form-urlencoded client id and secret.
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the request body.
    case clientSecretPost = "client_secret_post"
}
