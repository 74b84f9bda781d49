import BrokerHTTP
import Foundation

// Microsoft Entra multi-tenant mode (`MockProviderConfiguration.entraTenant`).
extension MockProvider {
    /// `/common/v2.0` in Entra mode, else empty: the issuer's path, below which routes are matched.
    static func entraIssuerPath(_ configuration: MockProviderConfiguration) -> String {
        configuration.entraTenant == nil ? "" : "/common/v2.0"
    }

    /// This provider's origin, e.g. `http://127.0.0.1:PORT`.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// What Entra's `common` document names as its issuer: a literal `{tenantid}` placeholder.
    var entraTemplateIssuer: String { origin + "/{tenantid}/v2.0" }

    /// The `iss` of a token issued to a user of `tenant`.
    func entraIssuer(tenant: String) -> String { origin + "/\(tenant)/v2.0" }

    /// Entra's token endpoints sit beside the issuer, not below it: the document names
    /// `/common/oauth2/v2.0/token`, and each tenant has `/{tenant}/oauth2/v2.0/token`. In Entra mode
    /// such a path stands for the issuer's `/token` (answered alike, whichever tenant: the ID
    /// token names the configured one) and its tenant segment is recorded in
    /// `MockProviderStats.entraTokenTenants`; nil for every other path.
    func entraTokenPath(_ path: String) -> String? {
        guard configuration.entraTenant != nil else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5, segments[0].isEmpty, segments[2...] == ["oauth2", "v2.0", "token"] else { return nil }
        state.withLock { $0.stats.entraTokenTenants.append(String(segments[1])) }
        return "/token"
    }
}

extension MockResponse {
    /// An Entra token-endpoint error as its "error codes" page shows one: `invalid_grant`, the
    /// AADSTS code at the start of `error_description`, then diagnostics members.
    static func entraError(code: Int) -> HTTPResponse {
        let trace = "0000aaaa-11bb-cccc-dd22-eeeeee333333"
        let description =
            "AADSTS\(code): The provided grant has expired due to it being revoked, a fresh auth token is needed."
            + "\r\nTrace ID: \(trace)\r\nCorrelation ID: aaaa0000-bb11-2222-33cc-444444dddddd\r\nTimestamp: 2026-12-01 17:00:00Z"
        return json(
            [
                "error": "invalid_grant", "error_description": description, "error_codes": [code],
                "timestamp": "2026-12-01 17:00:00Z", "trace_id": trace, "correlation_id": "aaaa0000-bb11-2222-33cc-444444dddddd",
                "error_uri": "https://login.microsoftonline.com/error?code=\(code)",
            ], status: 400)
    }
}
