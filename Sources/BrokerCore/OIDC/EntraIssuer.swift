import BrokerProtocol

/// Microsoft Entra's multi-tenant issuers (Microsoft identity platform, "ID tokens" and "OpenID
/// Connect on the Microsoft identity platform").
///
/// An app registered for several tenants discovers `https://login.microsoftonline.com/common/v2.0`
/// (or `organizations`, `consumers`). That document names the issuer
/// `https://login.microsoftonline.com/{tenantid}/v2.0` with a literal placeholder, while every ID
/// token carries its tenant's GUID in `tid` and that GUID in place of the placeholder in `iss`.
/// Only this exact shape is relaxed: the configured issuer must be one of the three multi-tenant
/// issuers and the document must name exactly the template; the token's `iss` must be exactly the
/// template filled with the token's own `tid`. Every other issuer keeps the exact-match rule.
/// A loopback origin with the same path (`http://127.0.0.1:PORT/common/v2.0`) is treated alike, as
/// loopback issuers are for plain http: that is how the tests' mock provider stands in for Entra.
public enum EntraIssuer {
    static let host = "login.microsoftonline.com"
    static let multiTenantSegments: Set<String> = ["common", "organizations", "consumers"]
    static let placeholder = "{tenantid}"

    /// The `{tenantid}` template a multi-tenant `configured` issuer's document names; nil for every
    /// other issuer (single-tenant Entra included).
    public static func template(forConfigured configured: String) -> String? {
        guard let url = try? EndpointURL(parsing: configured, what: "issuer"), url.query == nil,
            (url.scheme == "https" && url.host == host && url.port == nil) || url.isLoopback
        else { return nil }
        let segments = url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[0].isEmpty, multiTenantSegments.contains(String(segments[1])),
            segments[2] == "v2.0"
        else { return nil }
        return url.origin + "/" + placeholder + "/v2.0"
    }

    /// True when a document naming `documentIssuer` may serve an account configured with `configured`.
    static func acceptsDocument(issuer documentIssuer: String, configured: String) -> Bool {
        documentIssuer == configured || documentIssuer == template(forConfigured: configured)
    }

    /// The issuer a token of tenant `tenantID` must carry: the template with the placeholder filled.
    static func issuer(template: String, tenantID: String) -> String {
        template.replacing(placeholder, with: tenantID)
    }

    /// The token endpoint of the login's tenant for a multi-tenant `configured` issuer: the
    /// document's `…/common/oauth2/v2.0/token` with the tenant segment replaced by `tenantID`, so a
    /// refresh stays with the tenant that issued the grant (as MSAL refreshes). nil for every other
    /// issuer, a `tenantID` that is not a GUID, or an endpoint of another origin or shape (then the
    /// document's endpoint is used as it is).
    static func tenantTokenEndpoint(_ endpoint: String, configured: String, tenantID: String) -> String? {
        guard template(forConfigured: configured) != nil, TenantID.isValid(tenantID),
            let issuerURL = try? EndpointURL(parsing: configured, what: "issuer"),
            let url = try? EndpointURL(parsing: endpoint, what: "token_endpoint"), url.origin == issuerURL.origin,
            let segment = issuerURL.path.split(separator: "/").first, url.path.hasPrefix("/\(segment)/")
        else { return nil }
        return url.origin + "/" + tenantID + url.path.dropFirst(segment.count + 1) + (url.query.map { "?" + $0 } ?? "")
    }
}

extension EntraIssuer {
    /// Whether `issuer` is a Microsoft Entra (v2.0) issuer, single- or multi-tenant.
    static func isEntra(_ issuer: String) -> Bool {
        guard let url = try? EndpointURL(parsing: issuer, what: "issuer") else { return false }
        return url.scheme == "https" && url.host == host && url.path.hasSuffix("/v2.0")
    }
}
