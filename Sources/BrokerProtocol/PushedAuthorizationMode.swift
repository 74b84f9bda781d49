/// `--par`: whether a browser login pushes its authorization parameters to the provider first
/// (RFC 9126, pushed authorization requests) and opens the browser on
/// `authorization_endpoint?client_id=…&request_uri=…` only.
public enum PushedAuthorizationMode: String, Codable, Sendable, CaseIterable {
    /// Push when the metadata lists `pushed_authorization_request_endpoint`. The default.
    case auto
    /// Always push; a login is refused when the provider has no such endpoint.
    case always
    /// Never push; a login is refused when the metadata says `require_pushed_authorization_requests`.
    case never
}
