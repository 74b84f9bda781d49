import BrokerCrypto
import BrokerHTTP
import BrokerProtocol

/// A grant sent to the token endpoint, and the one place that turns it into a request in the
/// account's `TokenRequestFormat`: a form post (RFC 6749) or WorkOS User Management's JSON body.
enum TokenEndpointGrant {
    /// RFC 6749 §4.1.3 + RFC 7636 §4.5, with the account's RFC 8707 `resource`s (§2.2).
    case authorizationCode(code: Secret, codeVerifier: Secret, redirectURI: String, resources: [String] = [])
    /// RFC 6749 §6; `scope` restated so the grant keeps its scope (form only). A narrowed refresh
    /// names a narrower `scope`, RFC 8707 `resource`s and/or an `audience` (Auth0).
    case refreshToken(Secret, scope: String?, resources: [String] = [], audience: String? = nil)
    /// RFC 8628 §3.4. Always a form post, like the device authorization request before it: the
    /// JSON-bodied authenticate endpoint has no device grant.
    case deviceCode(Secret)

    /// The request for `client`'s format, secrets revealed only into its bytes.
    func request(to endpoint: EndpointURL, client: ClientConfiguration) -> HTTPClientRequest {
        if client.tokenRequestFormat == .json, let fields = jsonFields {
            return OIDCHTTP.jsonPost(endpoint, fields: fields, client: client)
        }
        return OIDCHTTP.formPost(endpoint, fields: formFields, client: client)
    }

    /// RFC 6749's fields, before client authentication.
    private var formFields: [(String, String)] {
        switch self {
        case .authorizationCode(let code, let verifier, let redirectURI, let resources):
            [
                ("grant_type", "authorization_code"), ("code", code.revealString()), ("redirect_uri", redirectURI),
                ("code_verifier", verifier.revealString()),
            ] + resources.map { ("resource", $0) }
        case .refreshToken(let token, let scope, let resources, let audience):
            [("grant_type", "refresh_token"), ("refresh_token", token.revealString())] + (scope.map { [("scope", $0)] } ?? [])
                + resources.map { ("resource", $0) } + (audience.map { [("audience", $0)] } ?? [])
        case .deviceCode(let code):
            [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", code.revealString())]
        }
    }

    /// WorkOS's `POST /user_management/authenticate` fields: the redirect URI was bound to the code
    /// at authorization and the refresh keeps the session's grant, so neither is restated.
    private var jsonFields: [(String, String)]? {
        switch self {
        case .authorizationCode(let code, let verifier, _, _):
            [("grant_type", "authorization_code"), ("code", code.revealString()), ("code_verifier", verifier.revealString())]
        case .refreshToken(let token, _, _, _):
            [("grant_type", "refresh_token"), ("refresh_token", token.revealString())]
        case .deviceCode:
            nil
        }
    }
}
