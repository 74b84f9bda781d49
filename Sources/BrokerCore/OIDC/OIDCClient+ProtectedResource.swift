import BrokerHTTP
import BrokerProtocol
import FoundationEssentials

/// What the broker learned about a protected resource (an MCP server) and its authorization
/// server: enough to add an account from the resource's URL alone.
public struct ProtectedResourceDiscovery: Sendable, Equatable {
    /// The canonical resource URL (`EndpointURL.canonicalResource`).
    public var resource: String
    /// The authorization server, the first of the metadata's `authorization_servers`.
    public var issuer: String
    public var metadata: ProviderMetadata
    /// The authorization-server metadata document that answered, in the MCP spec's order.
    public var documentURL: String
    /// The challenge's `scope`, else the resource metadata's `scopes_supported` (may be empty).
    public var scopes: [String]
    /// RFC 7591's `registration_endpoint`, when the server offers dynamic registration.
    public var registrationEndpoint: String?
    /// `client_id_metadata_document_supported`.
    public var acceptsClientMetadataDocuments: Bool
}

/// RFC 9728 §2's members the broker reads.
private struct ProtectedResourceMetadata: Decodable {
    var resource: String
    var authorizationServers: [String]?
    var scopesSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case resource
        case authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported"
    }
}

/// The registration members of authorization-server metadata (RFC 8414 §2, the CIMD draft).
private struct RegistrationMetadata: Decodable {
    var registrationEndpoint: String?
    var clientIDMetadataDocumentSupported: Bool?

    enum CodingKeys: String, CodingKey {
        case registrationEndpoint = "registration_endpoint"
        case clientIDMetadataDocumentSupported = "client_id_metadata_document_supported"
    }
}

extension OIDCClient {
    /// The MCP authorization spec's discovery (2025-11-25, "Authorization Server Discovery"): an
    /// unauthenticated request to the resource; its 401's `Bearer resource_metadata` names the
    /// metadata document, else the path-inserted and root well-known URLs are tried. The document
    /// must name this resource (RFC 9728 §3.3); its first authorization server's metadata is read
    /// in the spec's order and must offer PKCE S256. Every URL passes the discovery rule (https,
    /// http only to loopback) and every fetch the client's size and time limits.
    public func discoverProtectedResource(_ resourceURL: String) async throws(OIDCError) -> ProtectedResourceDiscovery {
        let resource = try EndpointURL.canonicalResource(resourceURL)
        let headers = HTTPHeaders([("Accept", "application/json, text/event-stream")])
        let probe = try await OIDCHTTP.send(HTTPClientRequest(method: "GET", url: resource.string, headers: headers), transport)
        let bearer =
            probe.status == 401 ? AuthenticationChallenge.first("bearer", in: probe.headers.values("WWW-Authenticate")) : nil
        let hinted = bearer?.parameters["resource_metadata"]
        var found: (metadata: ProtectedResourceMetadata, url: String)?
        for url in hinted.map({ [$0] }) ?? resource.protectedResourceMetadataURLs where found == nil {
            found = try await fetchResourceMetadata(url).map { ($0, url) }
        }
        guard let (document, documentURL) = found else {
            let tried =
                hinted.map { "'\($0)'" } ?? resource.protectedResourceMetadataURLs.map { "'\($0)'" }.joined(separator: " and ")
            throw .invalidConfiguration(
                "\(resource.string) has no protected resource metadata (RFC 9728) at \(tried); "
                    + "add the account with --issuer URL instead")
        }
        let claimed = try? EndpointURL.canonicalResource(document.resource, what: "resource")
        guard let claimed, claimed.isSameResource(as: resource) else {
            throw .invalidConfiguration(
                "the protected resource metadata at \(documentURL) is for '\(ProviderText.sanitize(document.resource))', "
                    + "not \(resource.string) (RFC 9728 §3.3): refused")
        }
        guard let issuer = document.authorizationServers?.first else {
            throw .invalidConfiguration("the protected resource metadata at \(documentURL) names no authorization server")
        }
        try Discovery.checkIssuer(issuer)
        var discovery = try await fetchServerMetadata(issuer: issuer, resource: resource.string)
        let challenged = (bearer?.parameters["scope"] ?? "").split(separator: " ").map(String.init)
        discovery.scopes = challenged.isEmpty ? document.scopesSupported ?? [] : challenged
        return discovery
    }

    /// One metadata document; nil when absent (a 4xx or a body that is not the document).
    private func fetchResourceMetadata(_ url: String) async throws(OIDCError) -> ProtectedResourceMetadata? {
        let checked = try EndpointURL.secure(url, what: "resource_metadata")
        let response = try await OIDCHTTP.send(
            HTTPClientRequest(method: "GET", url: checked.string, headers: OIDCHTTP.acceptJSON), transport)
        let body = try Discovery.documentBody(response, url: url, now: time.now(), what: "the resource metadata")
        return body.flatMap { try? WireJSON.decode(ProtectedResourceMetadata.self, from: $0) }
    }

    /// The authorization server's metadata from the first of its URLs in the MCP spec's order that
    /// has it (`authorizationServerMetadataURLs`); its issuer must be `issuer` and it must list S256.
    private func fetchServerMetadata(issuer: String, resource: String) async throws(OIDCError) -> ProtectedResourceDiscovery {
        let urls = try EndpointURL.secure(issuer, what: "issuer").authorizationServerMetadataURLs
        for url in urls {
            let response = try await OIDCHTTP.send(
                HTTPClientRequest(method: "GET", url: url, headers: OIDCHTTP.acceptJSON), transport)
            guard let metadata = try Discovery.readDocument(response, url: url, expectedIssuer: issuer, now: time.now()) else {
                continue
            }
            guard metadata.codeChallengeMethodsSupported?.contains(PKCE.method) == true else {
                throw .invalidConfiguration(
                    "the authorization server \(issuer) does not list S256 in code_challenge_methods_supported "
                        + "(the MCP authorization spec requires PKCE S256): refused")
            }
            let registration = try? WireJSON.decode(RegistrationMetadata.self, from: response.body)
            if let endpoint = registration?.registrationEndpoint {
                _ = try EndpointURL.secure(endpoint, what: "registration_endpoint")
            }
            return ProtectedResourceDiscovery(
                resource: resource, issuer: issuer, metadata: metadata, documentURL: url, scopes: [],
                registrationEndpoint: registration?.registrationEndpoint,
                acceptsClientMetadataDocuments: registration?.clientIDMetadataDocumentSupported == true)
        }
        throw .invalidConfiguration(
            "the authorization server \(issuer) publishes no metadata at "
                + urls.map { "'\($0)'" }.joined(separator: ", "))
    }
}
