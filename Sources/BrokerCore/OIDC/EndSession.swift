import BrokerCrypto
import BrokerHTTP
import BrokerStore

/// The URL that ends the provider's browser session, in the style the account's token request
/// format implies: RP-Initiated Logout 1.0 for `form`, WorkOS User Management's
/// `sessions/logout?session_id=` for `json`.
public enum EndSession {
    /// `form`: `end_session_endpoint` with `id_token_hint` (when we hold an ID token), `client_id`,
    /// and `post_logout_redirect_uri` (+ `state`) when one is configured — the spec allows the
    /// redirect only when the provider can tie it to a client, which id_token_hint/client_id do.
    /// `json`: the endpoint with `session_id`, the access token's `sid` claim (WorkOS: "This can be
    /// extracted from the sid claim of the access token"), and `return_to` when configured.
    public static func logoutURL(
        metadata: ProviderMetadata, client: ClientConfiguration, tokens: TokenSet?, state: String? = nil
    ) throws(OIDCError) -> String {
        let endpoint = try metadata.endpoint(.endSession)
        switch client.tokenRequestFormat {
        case .form:
            return AuthorizationRequest.merge(
                endpoint, rpInitiated(client: client, idToken: tokens?.idToken?.token, state: state))
        case .json:
            guard let accessToken = tokens?.accessToken, let sid = AccessTokenClaims.unverified(accessToken)?["sid"]?.stringValue
            else { throw .malformedResponse(endpoint: "end_session_endpoint", reason: "the access token names no session (sid)") }
            let returnTo = client.postLogoutRedirectURI.map { [FormField("return_to", $0)] } ?? []
            return AuthorizationRequest.merge(endpoint, [FormField("session_id", sid)] + returnTo)
        }
    }

    private static func rpInitiated(client: ClientConfiguration, idToken: Secret?, state: String?) -> [FormField] {
        var parameters: [FormField] = []
        if let idToken { parameters.append(FormField("id_token_hint", idToken.revealString())) }
        parameters.append(FormField("client_id", client.clientID))
        if let redirect = client.postLogoutRedirectURI {
            parameters.append(FormField("post_logout_redirect_uri", redirect))
            if let state { parameters.append(FormField("state", state)) }
        }
        return parameters
    }
}
