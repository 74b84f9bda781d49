import BrokerCrypto
import BrokerHTTP

/// RP-Initiated Logout 1.0: the URL that ends the provider's browser session.
public enum EndSession {
    /// `end_session_endpoint` with `id_token_hint` (when we hold an ID token), `client_id`,
    /// and `post_logout_redirect_uri` (+ `state`) when one is configured — the spec allows the
    /// redirect only when the provider can tie it to a client, which id_token_hint/client_id do.
    public static func logoutURL(
        metadata: ProviderMetadata, client: ClientConfiguration, idToken: Secret?, state: String? = nil
    ) throws(OIDCError) -> String {
        let endpoint = try metadata.endpoint(.endSession)
        var parameters: [FormField] = []
        if let idToken { parameters.append(FormField("id_token_hint", idToken.revealString())) }
        parameters.append(FormField("client_id", client.clientID))
        if let redirect = client.postLogoutRedirectURI {
            parameters.append(FormField("post_logout_redirect_uri", redirect))
            if let state { parameters.append(FormField("state", state)) }
        }
        return AuthorizationRequest.merge(endpoint, parameters)
    }
}
