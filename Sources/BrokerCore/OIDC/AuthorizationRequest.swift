import BrokerCrypto
import BrokerHTTP
import FoundationEssentials

/// Everything the broker must remember between sending the browser to the provider and the
/// redirect coming back. Lives in memory only: a daemon restart abandons pending logins.
public struct PendingAuthorization: Sendable, Equatable {
    public let issuer: String
    public let clientID: String
    public let redirectURI: RedirectURI
    public let codeVerifier: Secret
    /// ≥ 128 bits (here 256) of randomness, base64url; compared in constant time.
    public let state: String
    /// Present when `openid` was requested; the ID token must echo it.
    public let nonce: String?
    public let scopes: [String]
    public let deadline: Date
    /// RFC 9207: the provider promised `iss` in every authorization response.
    public let requiresIssuerParameter: Bool
    /// The DPoP key whose thumbprint the request sent as `dpop_jkt`: the code exchange must be
    /// proved with it, and the tokens are bound to it. Nil: a Bearer login.
    public var dpopKey: ECSigningKey? = nil
}

/// An authorization request (RFC 6749 §4.1.1 + PKCE + OIDC Core §3.1.2.1): the URL to open in
/// the browser and the pending login that will validate the answer.
public struct AuthorizationRequest: Sendable {
    public let url: String
    public let pendingLogin: PendingAuthorization
    /// The authorization endpoint and every parameter the URL carries: what a pushed request
    /// (RFC 9126) sends instead, `byReference` then makes the URL.
    let endpoint: EndpointURL
    let parameters: [FormField]

    /// How long a login may stay pending by default (the 5 minutes).
    public static let defaultLifetime: Duration = .seconds(300)

    /// Parameters the engine sets itself; configuration may not override them.
    static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method", "resource", "audience", "request_uri", "dpop_jkt",
    ]

    public static func make(
        metadata: ProviderMetadata, client: ClientConfiguration, redirectURI: RedirectURI, now: Date,
        lifetime: Duration = defaultLifetime, randomBytes: RandomBytes = .system
    ) throws(OIDCError) -> AuthorizationRequest {
        let endpoint = try metadata.endpoint(.authorization)
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains(PKCE.method) {
            throw .invalidConfiguration("the provider does not support PKCE S256, which the broker requires")
        }
        if let clash = client.extraParameters.first(where: { reservedParameters.contains($0.name) }) {
            throw .invalidConfiguration("extra parameter '\(clash.name)' is set by the broker and cannot be configured")
        }
        let pkce = try PKCE.generate(randomBytes: randomBytes)
        let state = try randomBytes.base64URL(count: 32)
        let nonce = client.isOpenIDConnect ? try randomBytes.base64URL(count: 32) : nil
        var pending = PendingAuthorization(
            issuer: metadata.issuer, clientID: client.clientID, redirectURI: redirectURI,
            codeVerifier: pkce.codeVerifier, state: state, nonce: nonce, scopes: client.scopes,
            deadline: now.addingTimeInterval(Double(lifetime.components.seconds)),
            requiresIssuerParameter: metadata.requiresIssuerInAuthorizationResponse)
        pending.dpopKey = client.dpopKey
        var parameters = queryParameters(client: client, redirectURI: redirectURI, pkce: pkce, state: state, nonce: nonce)
        // RFC 9449 §10: binds the code to the key, so a stolen code is useless without it.
        if let key = client.dpopKey { parameters.append(FormField("dpop_jkt", key.publicJWK.thumbprint)) }
        return AuthorizationRequest(
            url: merge(endpoint, parameters), pendingLogin: pending, endpoint: endpoint, parameters: parameters)
    }

    /// This request after its parameters were pushed (RFC 9126 §4): the browser URL carries only
    /// `client_id` and the `request_uri` the provider answered; the pending login is unchanged.
    func byReference(requestURI: String) -> AuthorizationRequest {
        let reference = [FormField("client_id", pendingLogin.clientID), FormField("request_uri", requestURI)]
        return AuthorizationRequest(
            url: Self.merge(endpoint, reference), pendingLogin: pendingLogin, endpoint: endpoint, parameters: parameters)
    }

    static func queryParameters(
        client: ClientConfiguration, redirectURI: RedirectURI, pkce: PKCE, state: String, nonce: String?
    ) -> [FormField] {
        var parameters = [
            FormField("response_type", "code"),
            FormField("client_id", client.clientID),
            FormField("redirect_uri", redirectURI.description),
        ]
        if !client.scopes.isEmpty { parameters.append(FormField("scope", client.scopeParameter)) }
        parameters.append(FormField("state", state))
        if let nonce { parameters.append(FormField("nonce", nonce)) }
        parameters.append(FormField("code_challenge", pkce.codeChallenge))
        parameters.append(FormField("code_challenge_method", PKCE.method))
        parameters += client.resources.map { FormField("resource", $0) }
        if let audience = client.audience { parameters.append(FormField("audience", audience)) }
        return parameters + client.extraParameters
    }

    /// Appends `parameters` to the endpoint's own query (RFC 6749 §3.1 says it must be kept),
    /// dropping any endpoint field we set ourselves, since a parameter may appear only once.
    static func merge(_ endpoint: EndpointURL, _ parameters: [FormField]) -> String {
        let ours = Set(parameters.map(\.name))
        let kept = (endpoint.query ?? "").split(separator: "&").filter { field in
            let name = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return !((try? FormURLEncoding.decodeComponent(name.utf8)).map(ours.contains) ?? false)
        }
        // The form encoder writes a space as "+" (and a literal "+" as %2B), so every "+" is a
        // space: write it as %20, which URL decoders that are not form decoders also read as a space.
        let added = FormURLEncoding.encode(parameters).split(separator: "+", omittingEmptySubsequences: false)
            .joined(separator: "%20")
        var url = endpoint
        url.query = (kept.map(String.init) + [added]).joined(separator: "&")
        return url.string
    }
}
