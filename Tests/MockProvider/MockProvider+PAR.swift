import BrokerHTTP
import Foundation

// Pushed authorization requests (RFC 9126): the `/par` endpoint and how the authorization
// endpoint reads a `request_uri` (`pushedAuthorizationRequests`, `requirePAR`).
extension MockProvider {
    /// What was pushed under one `request_uri`.
    struct PushedRequest {
        var fields: [String: String]
        var expiresAt: Date
    }

    /// The authorization parameters of a request, or the answer that refuses it.
    enum AuthorizationParameters {
        case fields([String: String])
        case refused(HTTPResponse)
    }

    var offersPAR: Bool { configuration.pushedAuthorizationRequests || configuration.requirePAR }

    /// RFC 9126 §2: authenticates the client like the token endpoint, refuses a pushed
    /// `request_uri` (§2.1) and redirect URIs the authorization endpoint would refuse, then answers
    /// 201 with a single-use `request_uri` that expires after `requestURILifetime` seconds.
    func pushedAuthorization(_ request: HTTPRequest) -> HTTPResponse {
        guard offersPAR else { return .plainText(status: 404, "no such endpoint") }
        let fields = Self.form(request)
        let configuration = state.withLock { state in
            state.stats.parRequests += 1
            return state.configuration
        }
        if let refusal = authenticateClient(request, fields) { return refusal }
        if fields["client_id"].map({ $0 != configuration.clientID }) == true {
            return MockResponse.oauthError("invalid_request", description: "client_id does not name the authenticated client")
        }
        if fields["request_uri"] != nil {
            return MockResponse.oauthError("invalid_request", description: "request_uri must not be pushed")
        }
        guard let redirectURI = fields["redirect_uri"], Self.accepts(redirectURI, configuration) else {
            return MockResponse.oauthError("invalid_request", description: "redirect_uri is not registered for the client")
        }
        let requestURI = "urn:ietf:params:oauth:request_uri:" + Self.randomToken("par")
        let lifetime = configuration.requestURILifetime
        var pushed = fields
        pushed["client_id"] = configuration.clientID
        state.withLock { state in
            state.pushedRequests = state.pushedRequests.filter { $0.value.expiresAt > Date() }
            state.pushedRequests[requestURI] = PushedRequest(
                fields: pushed, expiresAt: Date().addingTimeInterval(Double(lifetime)))
        }
        return MockResponse.json(["request_uri": requestURI, "expires_in": lifetime], status: 201)
    }

    /// RFC 9126 §4: with `request_uri`, the parameters are the pushed ones (taken once, before they
    /// expire, by the client that pushed them) and the URL's others are ignored; without one, the
    /// URL's own — unless `requirePAR`, which refuses with an `invalid_request` redirect (400 when the
    /// redirect URI cannot be trusted).
    func authorizationParameters(_ request: HTTPRequest, sendsIss: Bool) -> AuthorizationParameters {
        let query = Dictionary(((try? request.queryFields()) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let configuration = self.configuration
        guard let requestURI = query["request_uri"] else {
            guard configuration.requirePAR else { return .fields(query) }
            guard query["client_id"] == configuration.clientID, let redirectURI = query["redirect_uri"],
                Self.accepts(redirectURI, configuration)
            else { return .refused(.plainText(status: 400, "pushed authorization requests are required")) }
            let answer = [
                FormField("error", "invalid_request"),
                FormField("error_description", "pushed authorization requests are required"),
            ]
            return .refused(
                authorizationResponse(answer, state: query["state"], to: redirectURI, sendsIss: sendsIss, configuration))
        }
        let pushed = state.withLock { state -> PushedRequest? in
            defer { state.pushedRequests[requestURI] = nil }  // single use, even when refused
            return state.pushedRequests[requestURI]
        }
        guard let pushed, pushed.expiresAt > Date(), query["client_id"] == pushed.fields["client_id"] else {
            state.withLock { $0.stats.refusedRequestURIs += 1 }
            return .refused(.plainText(status: 400, "request_uri is unknown, used or expired"))
        }
        return .fields(pushed.fields)
    }
}
