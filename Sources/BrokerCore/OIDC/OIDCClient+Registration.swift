import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials

/// A client registered by RFC 7591 (the answer's members the broker keeps).
public struct RegisteredClient: Sendable {
    public var clientID: String
    public var registrationClientURI: String?
    public var registrationAccessToken: Secret?
}

extension OIDCClient {
    /// RFC 7591 §3.1: a public native client of the code grant (MCP authorization spec,
    /// "Dynamic Client Registration") for exactly `redirectURI`, the one the account will use.
    public func registerClient(at endpoint: String, redirectURI: String, scopes: [String]) async throws(OIDCError)
        -> RegisteredClient
    {
        let url = try EndpointURL.secure(endpoint, what: "registration_endpoint")
        var metadata: [String: JSONValue] = [
            "client_name": .string("authbroker"), "application_type": .string("native"),
            "token_endpoint_auth_method": .string("none"), "response_types": .array([.string("code")]),
            "grant_types": .array([.string("authorization_code"), .string("refresh_token")]),
            "redirect_uris": .array([.string(redirectURI)]),
        ]
        if !scopes.isEmpty { metadata["scope"] = .string(scopes.joined(separator: " ")) }
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "application/json")])
        let request = HTTPClientRequest(
            method: "POST", url: url.string, headers: headers, body: WireJSON.serialize(.object(metadata)))
        let response = try await OIDCHTTP.send(request, transport)
        guard response.status == 201 || response.status == 200 else {
            let reason = (try? ProviderJSON.object(from: response.body)).flatMap { fields -> String? in
                guard case .string(let error)? = fields["error"] else { return nil }
                guard case .string(let description)? = fields["error_description"] else { return error }
                return "\(error): \(description)"
            }
            throw .invalidConfiguration(
                "the authorization server refused dynamic client registration (HTTP \(response.status)"
                    + (reason.map { ", \(ProviderText.sanitize($0))" } ?? "") + ")")
        }
        let fields = try OIDCHTTP.jsonObject(response, endpoint: url.string)
        guard case .string(let clientID)? = fields["client_id"], !clientID.isEmpty,
            clientID.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { throw .malformedResponse(endpoint: url.string, reason: "no usable client_id in the registration answer") }
        var registered = RegisteredClient(clientID: clientID)
        if case .string(let uri)? = fields["registration_client_uri"] {
            registered.registrationClientURI = try EndpointURL.secure(uri, what: "registration_client_uri").string
        }
        if case .string(let token)? = fields["registration_access_token"], !token.isEmpty {
            registered.registrationAccessToken = Secret(Array(token.utf8))
        }
        return registered
    }

    /// RFC 7592 §2.3: deletes the registration at `uri` with its access token. Best effort: false
    /// when the server could not be reached or answered anything but 204/200 (or 401/404: gone).
    public func deleteRegistration(at uri: String, token: Secret) async -> Bool {
        guard let url = try? EndpointURL.secure(uri, what: "registration_client_uri") else { return false }
        let headers = HTTPHeaders([("Authorization", "Bearer " + token.revealString())])
        guard
            let response = try? await OIDCHTTP.send(
                HTTPClientRequest(method: "DELETE", url: url.string, headers: headers), transport)
        else { return false }
        return [200, 204, 401, 404].contains(response.status)
    }
}

extension RegisteredClient {
    init(clientID: String) { self.init(clientID: clientID, registrationClientURI: nil, registrationAccessToken: nil) }
}
