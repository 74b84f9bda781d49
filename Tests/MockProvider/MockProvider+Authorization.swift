import BrokerCrypto
import BrokerHTTP
import Foundation

// The authorization endpoint (no UI), client authentication and device authorization.
extension MockProvider {
    /// Checks the request like a real provider, then redirects straight back: `code` + `state`
    /// (+ `iss`), or `error=access_denied` when consent is denied. Requests that cannot be
    /// redirected safely (unknown client, non-loopback redirect) get a 400 page instead. The
    /// parameters are the pushed ones for a `request_uri` (`authorizationParameters`, RFC 9126).
    func authorize(_ request: HTTPRequest, sendsIss: Bool = true) -> HTTPResponse {
        let configuration = state.withLock { state in
            state.stats.authorizationRequests += 1
            return state.configuration
        }
        let fields: [String: String]
        switch authorizationParameters(request, sendsIss: sendsIss) {
        case .fields(let parameters): fields = parameters
        case .refused(let response): return response
        }
        let dynamic = dynamicClientAccepts(fields["client_id"], redirectURI: fields["redirect_uri"])
        guard fields["client_id"] == configuration.clientID || dynamic != nil else {
            return .plainText(status: 400, "unknown client_id")
        }
        guard let redirectURI = fields["redirect_uri"], dynamic ?? Self.accepts(redirectURI, configuration) else {
            return .plainText(
                status: 400,
                configuration.registeredRedirectURI == nil
                    ? "redirect_uri must be a loopback http URI" : "redirect_uri is not the client's registered redirect URI")
        }
        var answer: [FormField] = []
        if configuration.denyConsent {
            answer = [FormField("error", "access_denied"), FormField("error_description", "The user denied the request")]
        } else if fields["response_type"] != "code" {
            answer = [FormField("error", "unsupported_response_type")]
        } else if fields["code_challenge_method"] != "S256" || (fields["code_challenge"] ?? "").count != 43 {
            answer = [FormField("error", "invalid_request"), FormField("error_description", "PKCE S256 is required")]
        } else if let refusal = resourceRefusal(fields, grant: "authorize") {
            answer = [FormField("error", "invalid_target"), FormField("error_description", refusal)]
        } else {
            let code = Self.randomToken("code")
            let grant = MockProviderState.AuthorizationGrant(
                clientID: fields["client_id"] ?? configuration.clientID, redirectURI: redirectURI,
                codeChallenge: fields["code_challenge"] ?? "",
                nonce: fields["nonce"], scope: fields["scope"] ?? "", dpopJKT: fields["dpop_jkt"])
            state.withLock { state in
                state.codes[code] = grant
                state.issuedCodes.append(code)
            }
            answer = [FormField("code", code)]
        }
        return authorizationResponse(answer, state: fields["state"], to: redirectURI, sendsIss: sendsIss, configuration)
    }

    /// The redirect back to the client: `answer` (a code or an error), `state`, and `iss` when configured.
    func authorizationResponse(
        _ answer: [FormField], state: String?, to redirectURI: String, sendsIss: Bool, _ configuration: MockProviderConfiguration
    ) -> HTTPResponse {
        var answer = answer
        if let state { answer.append(FormField("state", state)) }
        if sendsIss && configuration.issParameter && configuration.entraTenant == nil {
            answer.append(FormField("iss", configuration.authorizationResponseIssuer ?? issuer))
        }
        return MockResponse.redirect(to: MockResponse.appending(answer, to: redirectURI))
    }

    /// A client with a registered private-use redirect takes exactly that one; others any loopback one.
    static func accepts(_ redirectURI: String, _ configuration: MockProviderConfiguration) -> Bool {
        configuration.registeredRedirectURI.map { $0 == redirectURI } ?? isLoopbackRedirect(redirectURI)
    }

    static func isLoopbackRedirect(_ uri: String) -> Bool {
        ["http://127.0.0.1:", "http://localhost:", "http://[::1]:"].contains { uri.hasPrefix($0) }
    }

    /// RFC 6749 §2.3 as configured: nil when the client authenticated, else the 401 answer.
    func authenticateClient(_ request: HTTPRequest, _ fields: [String: String]) -> HTTPResponse? {
        let configuration = self.configuration
        // A registered or metadata-document client is public (token_endpoint_auth_method none).
        if isDynamicPublicClient(fields["client_id"]), request.headers["Authorization"] == nil, fields["client_secret"] == nil {
            return nil
        }
        let basic = Self.basicCredentials(request.headers["Authorization"])
        let basicOK =
            basic?.id == configuration.clientID && basic?.secret == configuration.clientSecret
            && fields["client_secret"] == nil
        let postOK =
            basic == nil && fields["client_id"] == configuration.clientID
            && fields["client_secret"] == configuration.clientSecret
        let ok: Bool
        switch configuration.clientAuthentication {
        // Google takes a client secret either way (its discovery document lists both).
        case "client_secret_basic": ok = basicOK || (configuration.google && postOK)
        case "client_secret_post": ok = postOK || (configuration.google && basicOK)
        default:
            ok = basic == nil && fields["client_id"] == configuration.clientID && fields["client_secret"] == nil
        }
        if ok { return nil }
        state.withLock { $0.stats.clientAuthenticationFailures += 1 }
        return MockResponse.oauthError("invalid_client", status: 401, description: "client authentication failed")
    }

    /// `Basic base64(urlencode(id):urlencode(secret))` decoded (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.hasPrefix("Basic "), let data = Data(base64Encoded: String(header.dropFirst(6))) else {
            return nil
        }
        let parts = Array(data).split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let id = try? FormURLEncoding.decodeComponent(parts[0]),
            let secret = try? FormURLEncoding.decodeComponent(parts[1])
        else { return nil }
        return (id, secret)
    }

    /// RFC 8628 §3.1–3.2.
    func deviceAuthorization(_ request: HTTPRequest) -> HTTPResponse {
        let fields = Self.form(request)
        if let refusal = authenticateClient(request, fields) { return refusal }
        let deviceCode = Self.randomToken("device")
        let configuration = state.withLock { state in
            state.stats.deviceAuthorizations += 1
            state.deviceCodes[deviceCode] = .init(
                scope: fields["scope"] ?? "",
                expiresAt: Date().addingTimeInterval(Double(state.configuration.deviceCodeLifetime)))
            return state.configuration
        }
        return MockResponse.json([
            "device_code": deviceCode, "user_code": "MOCK-CODE", "verification_uri": url("device"),
            "verification_uri_complete": url("device") + "?user_code=MOCK-CODE",
            "expires_in": configuration.deviceCodeLifetime, "interval": configuration.deviceInterval,
        ])
    }

    /// The decoded query (first value of each name).
    static func query(_ request: HTTPRequest) -> [String: String] {
        Dictionary(((try? request.queryFields()) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The decoded form body (first value of each name).
    static func form(_ request: HTTPRequest) -> [String: String] {
        Dictionary(((try? request.formFields()) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// An opaque random token with a readable prefix.
    static func randomToken(_ prefix: String) -> String {
        prefix + "-" + ((try? Random.base64URL(byteCount: 24)) ?? UUID().uuidString)
    }
}
