import TestSupport
import Testing

@testable import BrokerHTTP

/// CONNECT proxies and NO_PROXY, through the environment read as a parameter.
@Suite struct HTTPClientProxyTests {
    @Test func connectProxyCarriesATLSRequestWithCredentials() async throws {
        let certificates = try TestCertificates.shared()
        let server = try TestHTTPServer.answering("via proxy", tls: .init(certificate: certificates.otherHost))
        let proxy = try TestConnectProxy()
        defer {
            server.stop()
            proxy.stop()
        }
        let environment = ["HTTPS_PROXY": "http://user:p%40ss@127.0.0.1:\(proxy.port)", "NO_PROXY": "internal.example"]
        let configuration = try ProxyConfiguration(environment: environment)
        #expect(!configuration.description.contains("p@ss") && !configuration.description.contains("dXNlcj"))
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: certificates.caFile, totalTimeout: .seconds(10), proxy: configuration, idleTimeout: .seconds(60)))
        // other.example is never resolved here: the proxy connects, and the test proxy leads to 127.0.0.1.
        let response = try await client.send(HTTPClientRequest(url: "https://other.example:\(server.port)/p"))
        #expect(response.body == Array("via proxy".utf8))
        _ = try await client.send(HTTPClientRequest(url: "https://other.example:\(server.port)/again"))
        #expect(proxy.tunnelCount == 1)
        #expect(proxy.targets == ["other.example:\(server.port)"])
        #expect(proxy.authorizations == ["Basic dXNlcjpwQHNz"])
    }

    @Test func noProxyBypassesTheProxy() async throws {
        let proxy = try TestConnectProxy()
        defer { proxy.stop() }
        let configuration = try ProxyConfiguration(environment: [
            "https_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "localhost, .invalid",
        ])
        let client = try HTTPClient(configuration: HTTPClientConfiguration(totalTimeout: .seconds(5), proxy: configuration))
        // Direct: the name is resolved locally and fails, the proxy never hears of it.
        await #expect(
            throws: HTTPClientError.dnsFailure(
                host: "idp.invalid", reason: "\".invalid\" names never resolve (RFC 6761); check the URL")
        ) {
            _ = try await client.send(HTTPClientRequest(url: "https://idp.invalid/"))
        }
        #expect(proxy.tunnelCount == 0)
    }

    /// Backs docs/security.md "Outbound HTTPS": "loopback never proxied". With every proxy
    /// variable pointing at a recording proxy, loopback hosts (127.0.0.1, localhost, over https
    /// and plain http) are reached directly and the proxy never sees a connection.
    @Test func loopbackHostsAreReachedDirectlyWhateverTheProxyVariables() async throws {
        let certificates = try TestCertificates.shared()
        let tlsServer = try TestHTTPServer.answering("direct tls", tls: .init(certificate: certificates.localhost))
        let plainServer = try TestHTTPServer.answering("direct plain")
        let proxy = try TestConnectProxy()
        defer {
            tlsServer.stop()
            plainServer.stop()
            proxy.stop()
        }
        let address = "http://127.0.0.1:\(proxy.port)"
        let configuration = try ProxyConfiguration(environment: [
            "HTTPS_PROXY": address, "https_proxy": address, "HTTP_PROXY": address, "http_proxy": address,
        ])
        #expect(configuration.httpsProxy != nil && configuration.httpProxy != nil)
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: certificates.caFile, totalTimeout: .seconds(10), proxy: configuration))
        for url in ["https://127.0.0.1:\(tlsServer.port)/a", "https://localhost:\(tlsServer.port)/b"] {
            #expect(try await client.send(HTTPClientRequest(url: url)).body == Array("direct tls".utf8))
        }
        #expect(
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(plainServer.port)/c")).body
                == Array("direct plain".utf8))
        #expect(tlsServer.requests.count == 2 && plainServer.requests.count == 1)
        #expect(proxy.connectionCount == 0)
    }

    @Test func noProxyMatchingRules() throws {
        let configuration = try ProxyConfiguration(environment: [
            "HTTPS_PROXY": "http://proxy.corp:3128",
            "NO_PROXY": " .corp.example, plain.example ,10.1.2.3, [2001:db8::1], onlyport.example:8443",
        ])
        #expect(configuration.httpsProxy == ProxyEndpoint(host: "proxy.corp", port: 3128))
        #expect(configuration.bypasses(host: "corp.example", port: 443))
        #expect(configuration.bypasses(host: "idp.corp.example", port: 443))
        #expect(configuration.bypasses(host: "plain.example", port: 443))
        #expect(configuration.bypasses(host: "sub.plain.example", port: 443))
        #expect(!configuration.bypasses(host: "notplain.example", port: 443))
        #expect(configuration.bypasses(host: "10.1.2.3", port: 443))
        #expect(!configuration.bypasses(host: "10.1.2.30", port: 443))
        #expect(configuration.bypasses(host: "2001:db8::1", port: 443))
        #expect(configuration.bypasses(host: "onlyport.example", port: 8443))
        #expect(!configuration.bypasses(host: "onlyport.example", port: 443))
        #expect(
            try ProxyConfiguration(environment: ["HTTPS_PROXY": "http://p:1", "NO_PROXY": "*"]).bypasses(
                host: "any.example", port: 443))
    }

    @Test func proxyVariablesArePrecedenceOrderedAndValidated() throws {
        let both = try ProxyConfiguration(environment: ["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"])
        #expect(both.httpsProxy?.host == "lower")
        #expect(try ProxyConfiguration(environment: [:]) == .none)
        #expect(try ProxyConfiguration(environment: ["HTTPS_PROXY": "proxy.example"]).httpsProxy?.port == 1080)
        #expect(throws: HTTPClientConfigurationError.self) {
            try ProxyConfiguration(environment: ["HTTPS_PROXY": "socks5://proxy.example:1080"])
        }
        #expect(throws: HTTPClientConfigurationError.self) {
            try ProxyConfiguration(environment: ["HTTPS_PROXY": "http://:99999"])
        }
    }
}
