import BrokerHTTP
import Foundation

/// Client registration in protected-resource mode: RFC 7591 dynamic registration at `/register`
/// (public native clients only, redirect URIs matched exactly afterwards), RFC 7592 read and
/// delete at `/register/{client_id}` with the registration access token, and a Client ID Metadata
/// Document at `/client-metadata.json` whose URL is the client id (a loopback redirect in it
/// matches on any port, RFC 8252 §7.3).
struct MockRegisteredClient {
    var redirectURIs: [String]
    var registrationAccessToken: String
    /// The client information response (RFC 7591 §3.2.1) without the access token, as JSON.
    var document: Data
}

extension MockProvider {
    /// The Client ID Metadata Document this mock serves, and the client id naming it.
    var clientMetadataDocumentURL: String { origin + "/client-metadata.json" }

    func registrationAnswer(_ request: HTTPRequest, _ mode: MockProtectedResource) -> HTTPResponse? {
        let path = String(request.path)
        if path == "/client-metadata.json" {
            return MockResponse.json([
                "client_id": clientMetadataDocumentURL, "client_name": "authbroker (mock)",
                "redirect_uris": ["http://127.0.0.1/callback"], "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"], "token_endpoint_auth_method": "none",
            ])
        }
        guard mode.dynamicRegistration else { return nil }
        if path == "/register" {
            return request.method == "POST" ? register(request) : .plainText(status: 405, "use POST")
        }
        guard path.hasPrefix("/register/") else { return nil }
        return manageRegistration(request, clientID: String(path.dropFirst("/register/".count)))
    }

    /// RFC 7591 §3.1–3.2: a public native client with loopback redirect URIs and the code grant.
    private func register(_ request: HTTPRequest) -> HTTPResponse {
        guard let metadata = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
            return MockResponse.oauthError("invalid_client_metadata", description: "the body must be a JSON object")
        }
        let redirects = metadata["redirect_uris"] as? [String] ?? []
        guard !redirects.isEmpty, redirects.allSatisfy(Self.isLoopbackRedirect) else {
            return MockResponse.oauthError("invalid_redirect_uri", description: "loopback http redirect URIs are required")
        }
        guard metadata["token_endpoint_auth_method"] as? String == "none",
            (metadata["grant_types"] as? [String] ?? []).contains("authorization_code")
        else {
            return MockResponse.oauthError("invalid_client_metadata", description: "public clients of the code grant only")
        }
        let clientID = Self.randomToken("dcr")
        var document = metadata
        document["client_id"] = clientID
        document["client_id_issued_at"] = Int(Date().timeIntervalSince1970)
        document["registration_client_uri"] = origin + "/register/" + clientID
        let registrationToken = Self.randomToken("rat")
        let stored = (try? JSONSerialization.data(withJSONObject: document)) ?? Data("{}".utf8)
        state.withLock { state in
            state.stats.protectedResource.registrations += 1
            state.registeredClients[clientID] = MockRegisteredClient(
                redirectURIs: redirects, registrationAccessToken: registrationToken, document: stored)
        }
        document["registration_access_token"] = registrationToken
        return MockResponse.json(document, status: 201)
    }

    /// RFC 7592 §2.1 (GET) and §2.3 (DELETE), authenticated by the registration access token.
    private func manageRegistration(_ request: HTTPRequest, clientID: String) -> HTTPResponse {
        let token = request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return state.withLock { state in
            guard let client = state.registeredClients[clientID], client.registrationAccessToken == token else {
                return MockResponse.oauthError("invalid_token", status: 401)
            }
            switch request.method {
            case "GET":
                state.stats.protectedResource.registrationReads += 1
                return MockResponse.json((try? JSONSerialization.jsonObject(with: client.document)) ?? [:])
            case "DELETE":
                state.stats.protectedResource.registrationDeletes += 1
                state.registeredClients[clientID] = nil
                return HTTPResponse(status: 204)
            default:
                return .plainText(status: 405, "use GET or DELETE")
            }
        }
    }

    /// Whether `clientID` is a registered or metadata-document client that may use `redirectURI`:
    /// nil when neither kind (the configured client's rules apply), else the verdict.
    func dynamicClientAccepts(_ clientID: String?, redirectURI: String?) -> Bool? {
        guard let clientID, configuration.protectedResource != nil else { return nil }
        if clientID == clientMetadataDocumentURL {
            return redirectURI.map { Self.withoutPort($0) == "http://127.0.0.1/callback" }
        }
        guard let client = state.withLock({ $0.registeredClients[clientID] }) else { return nil }
        return redirectURI.map { client.redirectURIs.contains($0) }
    }

    /// Whether `clientID` is one a public client may use at the token endpoint without a secret.
    func isDynamicPublicClient(_ clientID: String?) -> Bool {
        guard let clientID, configuration.protectedResource != nil else { return false }
        return clientID == clientMetadataDocumentURL || state.withLock { $0.registeredClients[clientID] != nil }
    }

    /// A loopback redirect URI without its port (RFC 8252 §7.3: any port matches).
    private static func withoutPort(_ uri: String) -> String {
        guard uri.hasPrefix("http://127.0.0.1:") else { return uri }
        let rest = uri.dropFirst("http://127.0.0.1:".count)
        return "http://127.0.0.1" + rest.drop { $0.isNumber }
    }
}
