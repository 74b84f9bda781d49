import BrokerHTTP

/// Everything that can go wrong in the OIDC/OAuth engine. Each case says what happened and,
/// in `description`, what the user can do about it. No case carries a token, code, verifier
/// or client secret; text that came from the provider is sanitized before it is stored.
public enum OIDCError: Error, Sendable, Equatable, CustomStringConvertible {
    // Configuration and discovery
    /// A configured value (issuer, endpoint, redirect URI, parameter) cannot be used.
    case invalidConfiguration(String)
    /// The provider has no endpoint for this operation, in its metadata or the manual configuration.
    case missingEndpoint(ProviderEndpoint)
    /// The metadata document's `issuer` is not byte-for-byte the configured issuer.
    case issuerMismatch(expected: String, found: String)
    /// Neither discovery document could be fetched (HTTP status of the last attempt).
    case discoveryUnavailable(url: String, status: Int)

    // Authorization response (redirect callback)
    /// The pending login passed its deadline before the browser came back.
    case loginExpired
    /// A callback arrived for a login that had already completed or failed (replay).
    case loginAlreadyFinished
    /// The `state` parameter is absent or differs from the one we sent.
    case stateMismatch
    /// The callback carried neither `code` nor `error`.
    case missingCode
    /// The RFC 9207 `iss` parameter names another authorization server (mix-up attack).
    case callbackIssuerMismatch(expected: String, found: String)
    /// The provider promised an `iss` parameter (RFC 9207) but the callback has none.
    case callbackIssuerMissing
    /// The provider answered the authorization request with an error (e.g. access_denied).
    case authorizationFailed(error: String, description: String?)
    /// The callback's query could not be decoded or repeats a parameter.
    case malformedCallback(String)

    // Token, revocation, userinfo and device endpoints
    /// The endpoint answered with an RFC 6749 §5.2 error.
    case oauthError(OAuthErrorResponse, status: Int, retryAfter: Duration?)
    /// The endpoint answered with an HTTP status and no usable OAuth error body.
    case httpStatus(Int, endpoint: String, retryAfter: Duration?)
    /// The endpoint's answer was not the JSON it should be.
    case malformedResponse(endpoint: String, reason: String)
    /// The token response names a token type other than Bearer.
    case unsupportedTokenType(String)
    /// The request never got an HTTP answer.
    case transport(HTTPClientError)
    /// The ID token failed validation.
    case idToken(IDTokenError)
    /// The userinfo response is about another subject than the ID token.
    case userInfoSubjectMismatch
    /// A refresh was asked for but the provider never issued a refresh token.
    case noRefreshToken

    // Device authorization grant (RFC 8628)
    /// The device code expired before the user approved.
    case deviceCodeExpired
    /// The user (or the provider) refused the device authorization.
    case deviceAccessDenied
    /// The task waiting for the provider was cancelled (shutdown, logout).
    case cancelled
    /// The broker's own vault could not give what the request needs (the stored ID token a
    /// refresh checks its answer against): nothing the provider said, so it is retried.
    case storage(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let why):
            "invalid provider configuration: \(why)"
        case .missingEndpoint(let endpoint):
            "the provider has no \(endpoint.metadataKey); configure it manually or check the issuer"
        case .issuerMismatch(let expected, let found):
            "the provider's metadata names issuer '\(found)', not the configured '\(expected)'; fix the issuer (it must match exactly, including any trailing slash)"
        case .discoveryUnavailable(let url, let status):
            "no provider metadata at \(url) (HTTP \(status)); check the issuer or configure the endpoints manually"
        case .loginExpired:
            "the login took too long and expired; start it again"
        case .loginAlreadyFinished:
            "this login has already finished; start a new one if needed"
        case .stateMismatch:
            "the redirect's state does not match this login (stale or forged redirect); start the login again"
        case .missingCode:
            "the redirect carries no authorization code; start the login again"
        case .callbackIssuerMismatch(let expected, let found):
            "the redirect came from issuer '\(found)', expected '\(expected)' (possible mix-up attack); login refused"
        case .callbackIssuerMissing:
            "the provider promised an 'iss' parameter in the redirect but sent none; login refused"
        case .authorizationFailed(let error, let description):
            "the provider refused it: \(error)" + (description.map { " (\($0))" } ?? "")
        case .malformedCallback(let why):
            "the redirect could not be read: \(why)"
        case .oauthError(let response, let status, _):
            // Entra's own text is a long paragraph with trace ids: say why first, in words.
            (EntraErrorCode.explanation(of: response).map { "\($0); " } ?? "")
                + "the provider answered \(response.error) (HTTP \(status))"
                + (response.errorDescription.map { ": \($0)" } ?? "")
        case .httpStatus(let status, let endpoint, _):
            "\(endpoint) answered HTTP \(status)"
        case .malformedResponse(let endpoint, let reason):
            "\(endpoint) sent an unusable answer: \(reason)"
        case .unsupportedTokenType(let type) where type.isEmpty:
            "the token answer has no token_type, which RFC 6749 requires; if the provider takes JSON token requests "
                + "(WorkOS User Management), set the account's token request format to json"
        case .unsupportedTokenType(let type):
            "the provider issued a '\(type)' token; only Bearer tokens are supported"
        case .transport(let error):
            "cannot reach the provider: \(error)"
        case .idToken(let error):
            "ID token refused: \(error)"
        case .userInfoSubjectMismatch:
            "the userinfo response is about another user than the ID token; ignored"
        case .noRefreshToken:
            "the provider issued no refresh token, so the token cannot be renewed; log in again (\(Self.offlineAccessHint))"
        case .deviceCodeExpired:
            "the device code expired before the login was approved; start again"
        case .deviceAccessDenied:
            "the device login was denied"
        case .cancelled:
            "the operation was cancelled"
        case .storage(let why):
            "the token store failed: \(why)"
        }
    }
}

/// An RFC 6749 §5.2 error body: `{"error": "...", "error_description": "...", "error_uri": "..."}`.
public struct OAuthErrorResponse: Sendable, Equatable {
    public var error: String
    public var errorDescription: String?
    public var errorURI: String?
    /// A device poll's `slow_down` may name the new minimum polling interval (GitHub does).
    public var interval: Duration?

    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil, interval: Duration? = nil) {
        self.error = ProviderText.sanitize(error)
        self.errorDescription = errorDescription.map(ProviderText.sanitizeProse)
        self.errorURI = errorURI.map(ProviderText.sanitize)
        self.interval = interval
    }
}

/// Text that came from the provider (or from a redirect anyone can forge) is shown to people and
/// written to logs: capped at `maximumLength` scalars (read no further, whatever the input's size)
/// and stripped of anything that could inject terminal escapes, break a log line or reorder what
/// is shown. Codes, URIs and user codes keep only printable ASCII (RFC 6749 §5.2 limits them to
/// it, and `error` is compared against known codes); descriptions keep printable text in any
/// language, since providers localize them (Entra, Keycloak), losing only control, format (bidi
/// overrides, zero-width), separator, private-use and unassigned scalars.
enum ProviderText {
    static let maximumLength = 300

    static func sanitize(_ text: String) -> String {
        bounded(text) { (0x20...0x7E).contains($0.value) }
    }

    static func sanitizeProse(_ text: String) -> String {
        bounded(text) { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: false
            default: true
            }
        }
    }

    /// The first `maximumLength` scalars of `text`, each refused one shown as "?", and "…" when cut.
    private static func bounded(_ text: String, keeping isShown: (Unicode.Scalar) -> Bool) -> String {
        var kept = String.UnicodeScalarView()
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < maximumLength else { return String(kept) + "…" }
            kept.append(isShown(scalar) ? scalar : "?")
        }
        return String(kept)
    }
}

extension OIDCError {
    /// How to get a refresh token, for messages about its absence: providers differ in how a
    /// client asks for offline access.
    static let offlineAccessHint =
        "ask for offline access: the offline_access scope, or Google's access_type=offline and prompt=consent parameters, which --provider google sets"
}
