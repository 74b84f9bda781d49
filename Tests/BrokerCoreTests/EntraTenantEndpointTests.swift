import Testing

@testable import BrokerCore

/// Issue 12 item 3: a multi-tenant Entra login refreshes at its own tenant's token endpoint
/// (`EntraIssuer.tenantTokenEndpoint`, used by `ProviderMetadata.forRefreshing`).
@Suite struct EntraTenantEndpointTests {
    static let common = "https://login.microsoftonline.com/common/v2.0"
    static let commonToken = "https://login.microsoftonline.com/common/oauth2/v2.0/token"
    static let tenant = EntraIssuerTests.tenant

    @Test func theCommonTokenEndpointBecomesTheTenantsForMultiTenantIssuersOnly() {
        #expect(
            EntraIssuer.tenantTokenEndpoint(Self.commonToken, configured: Self.common, tenantID: Self.tenant)
                == "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token")
        let organizations = "https://login.microsoftonline.com/organizations/v2.0"
        #expect(
            EntraIssuer.tenantTokenEndpoint(
                "https://login.microsoftonline.com/organizations/oauth2/v2.0/token", configured: organizations,
                tenantID: Self.tenant)
                == "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token")
        let single = "https://login.microsoftonline.com/\(Self.tenant)/v2.0"
        #expect(EntraIssuer.tenantTokenEndpoint(Self.commonToken, configured: single, tenantID: Self.tenant) == nil)
        #expect(
            EntraIssuer.tenantTokenEndpoint(Self.commonToken, configured: "https://sso.example.com", tenantID: Self.tenant) == nil
        )
    }

    @Test func aTenantThatIsNotAGUIDOrAnEndpointOfAnotherShapeKeepsTheDocumentsEndpoint() {
        for tid in ["common", "../evil", "9122040D-6C67-4C5B-B112-36A304B66DAD", ""] {
            #expect(EntraIssuer.tenantTokenEndpoint(Self.commonToken, configured: Self.common, tenantID: tid) == nil, "\(tid)")
        }
        for endpoint in ["https://evil.example/common/oauth2/v2.0/token", "https://login.microsoftonline.com/oauth2/token"] {
            #expect(
                EntraIssuer.tenantTokenEndpoint(endpoint, configured: Self.common, tenantID: Self.tenant) == nil, "\(endpoint)")
        }
    }

    @Test func refreshMetadataUsesTheTenantEndpointOnlyWhenTheTokensNameATenant() {
        let metadata = ProviderMetadata(issuer: Self.common, tokenEndpoint: Self.commonToken)
        #expect(metadata.forRefreshing(tenantID: nil) == metadata)
        var expected = metadata
        expected.tokenEndpoint = "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token"
        #expect(metadata.forRefreshing(tenantID: Self.tenant) == expected)
    }
}
