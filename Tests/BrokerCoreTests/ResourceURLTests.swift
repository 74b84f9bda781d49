import Testing

@testable import BrokerCore

/// `EndpointURL+Resource`: the canonical resource URI (RFC 8707 §2, MCP "canonical server URI")
/// and the well-known URLs of RFC 9728 §3.1 and RFC 8414 §3.1 in the MCP spec's order.
@Suite struct ResourceURLTests {
    @Test(arguments: [
        ("https://MCP.Example.com/mcp", "https://mcp.example.com/mcp"),
        ("HTTPS://mcp.example.com:443/MCP", "https://mcp.example.com/MCP"),
        ("https://mcp.example.com:8443", "https://mcp.example.com:8443"),
        ("http://127.0.0.1:80/server/mcp", "http://127.0.0.1/server/mcp"),
        ("http://localhost:3000/mcp?tenant=a", "http://localhost:3000/mcp?tenant=a"),
    ])
    func canonicalForms(_ written: String, _ canonical: String) throws {
        #expect(try EndpointURL.canonicalResource(written).string == canonical)
    }

    @Test(arguments: [
        ("http://mcp.example.com/mcp", "must use https"),
        ("https://mcp.example.com/mcp#frag", "fragment"),
        ("https://user@mcp.example.com/mcp", "user information"),
        ("mcp.example.com/mcp", "not an absolute URL"),
        ("ftp://mcp.example.com", "must use https"),
    ])
    func refusals(_ written: String, _ reason: String) {
        #expect {
            _ = try EndpointURL.canonicalResource(written)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func sameResourceIgnoresOnlyCaseDefaultPortAndAnEmptyPath() throws {
        func same(_ a: String, _ b: String) throws -> Bool {
            try EndpointURL.canonicalResource(a).isSameResource(as: EndpointURL.canonicalResource(b))
        }
        #expect(try same("https://A.example/mcp", "https://a.example:443/mcp"))
        #expect(try same("https://a.example", "https://a.example/"))
        #expect(try !same("https://a.example/mcp", "https://a.example/mcp/"))
        #expect(try !same("https://a.example/mcp", "https://a.example/other"))
        #expect(try !same("https://a.example/mcp", "https://b.example/mcp"))
        #expect(try !same("https://a.example:8443/mcp", "https://a.example/mcp"))
        #expect(try !same("http://localhost/mcp", "https://localhost/mcp"))
    }

    @Test func protectedResourceMetadataIsPathInsertedThenAtTheRoot() throws {
        let url = try EndpointURL.canonicalResource("https://api.example.com/public/mcp")
        #expect(
            url.protectedResourceMetadataURLs == [
                "https://api.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://api.example.com/.well-known/oauth-protected-resource",
            ])
        // RFC 9728 §3.1: a terminating slash goes; a query stays after the inserted path.
        let slashed = try EndpointURL.canonicalResource("https://api.example.com/mcp/?x=1")
        #expect(
            slashed.protectedResourceMetadataURLs.first == "https://api.example.com/.well-known/oauth-protected-resource/mcp?x=1")
        for root in ["https://api.example.com", "https://api.example.com/"] {
            #expect(
                try EndpointURL.canonicalResource(root).protectedResourceMetadataURLs
                    == ["https://api.example.com/.well-known/oauth-protected-resource"])
        }
    }

    @Test func authorizationServerMetadataFollowsTheMCPOrder() throws {
        let tenant = try EndpointURL.canonicalResource("https://auth.example.com/tenant1")
        #expect(
            tenant.authorizationServerMetadataURLs == [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ])
        for root in ["https://auth.example.com", "https://auth.example.com/"] {
            #expect(
                try EndpointURL.canonicalResource(root).authorizationServerMetadataURLs == [
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration",
                ])
        }
        // Discovery's RFC 8414 URL is the same rule.
        #expect(
            try Discovery.authorizationServerMetadataURL(issuer: "https://auth.example.com/tenant1/")
                == "https://auth.example.com/.well-known/oauth-authorization-server/tenant1")
    }
}
