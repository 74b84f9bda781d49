/// The knobs of a `MockProvider`, settable while it runs (`MockProvider.configure`, or
/// `POST /_mock/config` with a partial JSON object from another process). Defaults describe a
/// well-behaved public-client OpenID provider with refresh-token rotation and reuse detection.
public struct MockProviderConfiguration: Codable, Sendable, Equatable {
    public var clientID = "mock-client"
    /// "none" (public client), "client_secret_basic" or "client_secret_post".
    public var clientAuthentication = "none"
    public var clientSecret: String?
    public var subject = "mock-user"
    public var email = "user@mock.example"

    /// Seconds; also the `expires_in` sent unless `includeExpiresIn` is false.
    public var accessTokenLifetime = 3600
    public var idTokenLifetime = 3600
    public var includeExpiresIn = true
    public var issueRefreshTokens = true
    /// Every refresh answers with a new refresh token and retires the one used.
    public var rotateRefreshTokens = true
    /// Using a retired (rotated-out) refresh token revokes its whole family (RFC 9700 §4.14.2).
    public var detectRefreshTokenReuse = true

    /// "RS256" or "ES256": the algorithm (and key type) of newly minted ID tokens.
    public var signingAlgorithm = "RS256"
    /// A client registered for exactly this private-use scheme redirect URI (RFC 8252 §7.1, e.g.
    /// `shop.4242.app://callback`, as Shopify's public clients are): the authorization and token
    /// endpoints accept only it, compared exactly, and refuse loopback redirects. nil: loopback only.
    public var registeredRedirectURI: String?
    /// Send the RFC 9207 `iss` parameter in authorization responses.
    public var issParameter = true
    /// Advertise `authorization_response_iss_parameter_supported` in metadata.
    public var advertiseIssParameter = true
    /// Send this value as `iss` in authorization responses instead of the issuer (mix-up tests).
    public var authorizationResponseIssuer: String?
    /// Put this issuer in both discovery documents instead of the real one.
    public var discoveryIssuer: String?
    /// Serve `/.well-known/openid-configuration` (else 404, so clients fall back to RFC 8414).
    public var serveOpenIDConfiguration = true
    /// The authorization endpoint answers `error=access_denied` (the user said no).
    public var denyConsent = false
    /// Mint every ID token with this defect.
    public var idTokenDefect: IDTokenDefect?
    /// Injected failures per endpoint: "discovery", "jwks", "authorize", "token", "revocation",
    /// "userinfo", "device", "end_session", "par".
    public var faults: [String: MockFault] = [:]

    /// Device grant script per device code: first `deviceSlowDownPolls` polls answer
    /// slow_down, the next `devicePendingPolls` authorization_pending, then tokens (or
    /// access_denied when `deviceDenies`).
    public var deviceSlowDownPolls = 0
    public var devicePendingPolls = 1
    public var deviceDenies = false
    public var deviceInterval = 1
    public var deviceCodeLifetime = 600

    /// WorkOS User Management mode: `/user_management/authorize` (requires `provider=authkit`),
    /// `/user_management/authenticate` (JSON bodies only; answers with a JWT access token, a
    /// rotated refresh token and a `user`, no token_type/expires_in/ID token) and
    /// `/user_management/sessions/logout?session_id=`. Off: those paths answer 404.
    public var userManagement = false
    /// Split metadata like the provider of issue 12: these members (e.g. `revocation_endpoint`) are
    /// missing from `/.well-known/openid-configuration`; only the RFC 8414
    /// `/.well-known/oauth-authorization-server` document lists them.
    public var onlyInRFC8414: [String] = []
    /// GitHub mode, shaped by GitHub's "Authorizing OAuth apps" and "Refreshing user access tokens"
    /// documentation: `/login/oauth/authorize` (no `iss`), `/login/oauth/access_token` and
    /// `/login/device/code`. Every token-endpoint error is answered with HTTP 200 and GitHub's codes
    /// (`bad_verification_code`, `bad_refresh_token`, `incorrect_client_credentials`,
    /// `incorrect_device_code`; device polling's `authorization_pending`, `slow_down` with the new
    /// `interval`, `expired_token`, `access_denied`); answers are form-encoded unless the request
    /// says `Accept: application/json`; no ID token; lowercase `bearer`; comma-separated scopes;
    /// `refresh_token_expires_in` (six months); a refresh also retires the old access token. No
    /// discovery or revocation endpoint is part of GitHub's API (the routes stay, unused). Off:
    /// the `/login/` paths answer 404.
    public var github = false

    /// Shopify Customer Account API mode, for this shop id (e.g. "4242"; read at start-up only, as
    /// `--config`): the issuer is `http://127.0.0.1:PORT/authentication/ID`, and its origin serves no
    /// discovery; the discovery document lives on a second listener, the shop's domain (another
    /// origin, `MockProvider.shopDomain`), shaped like Shopify's: authorization, token, end-session
    /// (`…/logout`) and JWKS endpoints under the issuer, no revocation, userinfo or device endpoint.
    /// The shop domain also serves `/.well-known/customer-account-api` (`graphql_api`). Combine with
    /// `registeredRedirectURI` `shop.ID.app://callback`, as Shopify's public clients are registered.
    public var shopifyShopID: String?
    /// Microsoft Entra multi-tenant mode, for this tenant id (a lowercase GUID), shaped by
    /// Microsoft's "OpenID Connect on the Microsoft identity platform" and "ID tokens" pages: the
    /// issuer is `http://127.0.0.1:PORT/common/v2.0` (its path read at start-up only, as `--config`);
    /// its discovery document names the issuer `http://127.0.0.1:PORT/{tenantid}/v2.0` with the
    /// literal placeholder and no RFC 9207 support (Entra sends no `iss` in the redirect); every ID
    /// token carries `tid` = this tenant (read per token, so a test may switch tenants) and `iss` =
    /// the template filled with it. Its document's token endpoint is `/common/oauth2/v2.0/token`
    /// and each tenant's `/{tenant}/oauth2/v2.0/token` answers too (`entraTokenTenants` counts
    /// which). Pair with the `aadsts` token fault for Entra's error bodies.
    public var entraTenant: String?
    /// An issuer with a path, as Keycloak's realm URL (`/realms/REALM`) or Dex's `issuer:` setting
    /// (`/dex`): the issuer is `http://127.0.0.1:PORT` + this path and every route, discovery
    /// included, is served below it (read at start-up only; Shopify mode's path wins).
    public var issuerPath: String?
    /// DPoP (RFC 9449, `MockProvider+DPoP`): `off` ignores `DPoP` headers and issues Bearer tokens;
    /// `accepted` verifies a proof when one comes (token endpoint) and binds what it issues to the
    /// proof's key — `token_type` DPoP, a JWT access token with `cnf.jkt`, refresh tokens usable
    /// only with that key; `required` also refuses a token request without a proof
    /// (`invalid_dpop_proof`). Not off: metadata lists `dpop_signing_alg_values_supported`.
    public var dpop = MockDPoPMode.off
    /// With `dpop` on, demand server nonces (RFC 9449 §8, §9): a proof without the current (or the
    /// previous) nonce gets `400 use_dpop_nonce` at the token endpoint, `401 WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"` at `/resource`; each server has its own nonce, rotated after every
    /// accepted proof and sent as `DPoP-Nonce` on every answer.
    public var dpopNonces = false
    /// Google mode, shaped by Google's "OAuth 2.0 for Mobile & Desktop Apps" and "OpenID Connect"
    /// pages (`MockProvider+Google.swift`): a discovery document without end-session endpoint,
    /// RFC 9207 flag or `offline_access` scope (which the authorization endpoint refuses); a
    /// desktop client's secret accepted in the body or as Basic (pair with `clientAuthentication`
    /// and `clientSecret`); a refresh token only for `access_type=offline`, and after the first
    /// consent only with `prompt=consent`; refreshes that never rotate or restate the refresh token;
    /// opaque `ya29.` access tokens; `/revoke` taking `token=` in the query or body without client
    /// authentication, revoking the whole grant, and answering 400 `invalid_token` for a token
    /// that is already dead.
    public var google = false
    /// Protected-resource mode (RFC 9728, MCP): `MockProtectedResource.swift`; nil: off.
    public var protectedResource: MockProtectedResource?

    /// Whether a refresh answer carries a new ID token. OpenID Connect Core §12.2 lets a provider
    /// leave it out (the client keeps the one it has); off: refreshes answer without one.
    public var idTokenOnRefresh = true

    /// Whether a refresh retires the refresh token it used (Google's never do).
    var rotates: Bool { rotateRefreshTokens && !google }
    /// RFC 9126: serve `/par` and list it as `pushed_authorization_request_endpoint`; the
    /// authorization endpoint then also takes `client_id` + `request_uri` (single use, expiring).
    public var pushedAuthorizationRequests = false
    /// RFC 9126 §5/§6: the authorization endpoint refuses requests without a `request_uri` (an
    /// `invalid_request` error redirect, or 400 for an untrusted redirect URI). Implies the endpoint.
    public var requirePAR = false
    /// With `requirePAR`, also say `require_pushed_authorization_requests: true` in the metadata;
    /// false: required for this client only (RFC 9126 §6 client metadata, which a client cannot see).
    public var advertiseRequirePAR = true
    /// Seconds a pushed `request_uri` stays usable (its `expires_in`).
    public var requestURILifetime = 60
    /// A refresh that names a `scope` narrows the refresh token's grant for good: later refreshes
    /// without a scope (or restating the original one) get only the narrowed scope, as
    /// django-oauth-toolkit does. Off: the grant is kept (RFC 6749 §6: "the scope originally
    /// granted"), and a scope outside it is `invalid_scope`.
    public var narrowsGrantOnRefresh = false
    /// RFC 8707 resources the token endpoint knows: a `resource` among them gets an access token
    /// (a JWT) whose `aud` is that resource; any other is `invalid_target` (§2). Empty: `resource`
    /// is ignored, as by a provider without RFC 8707.
    public var resources: [String] = []
    /// Access token lifetime (seconds) per RFC 8707 resource; a resource without one gets `accessTokenLifetime`.
    public var resourceTokenLifetimes: [String: Int] = [:]
    /// An OAuth error code (`consent_required`, `interaction_required`, `invalid_grant`) answered
    /// with 400 to every refresh that names a `resource` or `audience`, before its refresh token is
    /// redeemed — a provider refusing a narrowing (Entra's AADSTS65001) while the grant stays good.
    public var narrowedRefusal: String?
    /// A file the mock appends one line to per request, `METHOD PATH MICROSECONDS`: its own time
    /// from the parsed request to the built answer (bench/forced-refresh.sh: "the provider's
    /// time, from its log"). Nil: no log.
    public var timingLog: String?
    /// With `dpop` on, `/revoke` asks for a DPoP proof (RFC 9449 §4.3, nonces included) to revoke a
    /// DPoP-bound token, as Okta does: without one, or with a proof of another key, it answers
    /// `400 invalid_dpop_proof` and the token stays valid (`MockProvider+DPoPRevocation.swift`).
    public var revocationRequiresDPoP = false

    public init() {}
}

/// One way to make an ID token invalid; each must be refused by a correct client.
public enum IDTokenDefect: String, Codable, Sendable, CaseIterable {
    case badSignature, wrongIssuer, wrongAudience, expired, futureIssuedAt, badNonce, algNone, unknownKid
    /// Another `sub` than the login's (only matters for refreshed ID tokens).
    case changedSubject
    /// A correctly signed payload that nests 10,000 arrays deep.
    case deepPayload
}

/// A failure injected at one endpoint.
public struct MockFault: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Answer `status` (e.g. 500, 503) with a plain-text body and `retryAfter` if set.
        case status
        /// 200 with a body that is not JSON.
        case garbageJSON
        /// 400 `{"error":"invalid_grant"}`.
        case invalidGrant
        /// `status` (default 200) with 10,000 nested arrays, or objects: valid JSON no parser of
        /// the daemon may accept (`DeepJSON`).
        case deepArrays, deepObjects
        /// Wait `delayMilliseconds`, then answer normally — or, when `status` is set, answer that
        /// status without processing the request (a gateway that timed out before the provider saw
        /// it: a refresh token sent this way is not rotated).
        case slow
        /// `status` (default 502) with an HTML page, as a proxy or load balancer sends (200: a
        /// captive portal's login page).
        case html
        /// `status` (default 400) with exactly `body` as `contentType` (default application/json):
        /// error bodies as they come (no `error`, a non-string one, arrays, truncated JSON…).
        case raw
        /// Microsoft Entra's error body (its "error codes" page): 400 `invalid_grant` whose
        /// `error_description` starts `AADSTS<aadstsCode>:` (default 50173), with `error_codes`,
        /// `timestamp`, `trace_id`, `correlation_id` and `error_uri`.
        case aadsts
    }

    public var kind: Kind
    public var status: Int?
    public var retryAfter: String?
    public var delayMilliseconds: Int?
    /// How many requests it affects; nil: all of them.
    public var remaining: Int?
    /// Levels of `deepArrays` / `deepObjects` (default 10,000). FoundationEssentials' scanner
    /// refuses more than 512 by itself; 175–512 is what overflowed a 512 KiB thread.
    public var depth: Int?
    /// The body of a `raw` fault, and its Content-Type.
    public var body: String?
    public var contentType: String?
    /// The AADSTS number of an `aadsts` fault.
    public var aadstsCode: Int?

    public init(
        _ kind: Kind, status: Int? = nil, retryAfter: String? = nil, delayMilliseconds: Int? = nil, remaining: Int? = nil,
        depth: Int? = nil, body: String? = nil, contentType: String? = nil
    ) {
        self.kind = kind
        self.depth = depth
        self.body = body
        self.contentType = contentType
        self.status = status
        self.retryAfter = retryAfter
        self.delayMilliseconds = delayMilliseconds
        self.remaining = remaining
    }
}

/// Counters a test reads (`MockProvider.stats`, or `GET /_mock/stats`).
public struct MockProviderStats: Codable, Sendable, Equatable {
    /// Protected-resource mode's counters (`MockProtectedResource.swift`).
    public var protectedResource = MockProtectedResourceStats()
    public var discoveryRequests = 0
    public var jwksRequests = 0
    public var authorizationRequests = 0
    public var codeExchanges = 0
    public var refreshes = 0
    /// Access tokens issued by any grant.
    public var tokensIssued = 0
    public var deviceAuthorizations = 0
    public var devicePolls = 0
    /// Revocation requests received (each token counts once per request).
    public var revocations = 0
    /// `token_type_hint` values of the revocation requests, in order.
    public var revokedHints: [String] = []
    /// Refresh-token families revoked because a retired refresh token was used again.
    public var familyRevocations = 0
    public var userinfoRequests = 0
    public var endSessionRequests = 0
    /// Requests refused with invalid_client.
    public var clientAuthenticationFailures = 0
    /// Whether the last end_session request carried an ID token this provider issued.
    public var lastEndSessionHadValidIDTokenHint: Bool?
    /// User Management: authenticate requests refused for not being JSON, and sessions ended.
    public var nonJSONAuthenticateRequests = 0
    public var endedSessions = 0
    /// Refresh tokens the token endpoint would accept now (filled in when the stats are read).
    public var liveRefreshTokens = 0
    /// GitHub mode: answers sent form-encoded because the request did not accept JSON.
    public var formEncodedAnswers = 0
    /// DPoP: proofs that passed every check, refusals by `MockDPoPRefusal` name, and the refusals
    /// that were replays of a seen `jti`.
    public var dpopProofsVerified = 0
    public var dpopProofsRefused: [String: Int] = [:]
    public var dpopReplays = 0
    /// Entra mode: the tenant segment of each token request's path (`common`, or a tenant id when
    /// the request went to the tenant's `/{tenant}/oauth2/v2.0/token`), in order.
    public var entraTokenTenants: [String] = []
    /// Pushed authorization requests received (RFC 9126), and `request_uri`s refused at the
    /// authorization endpoint as unknown, reused or expired.
    public var parRequests = 0
    public var refusedRequestURIs = 0
    /// Each refresh's `scope` and `resource` fields as sent ("-" when absent; resources joined by spaces).
    public var refreshScopes: [String] = []
    public var refreshResources: [String] = []

    public init() {}
}
