import Testing

@testable import BrokerCore

/// `EndpointURL`'s parse, pinned case by case: every endpoint, issuer and discovery URL the engine
/// uses goes through it, so its accepted shapes and its refusals (with the message naming the
/// value) must not move when the parser changes.
@Suite struct EndpointURLTests {
    struct Parsed: Equatable, CustomStringConvertible {
        var scheme: String, host: String, port: Int?, path: String, query: String?
        init(_ scheme: String, _ host: String, _ port: Int?, _ path: String, _ query: String?) {
            (self.scheme, self.host, self.port, self.path, self.query) = (scheme, host, port, path, query)
        }
        init(_ url: EndpointURL) { self.init(url.scheme, url.host, url.port, url.path, url.query) }
        var description: String { "\(scheme) \(host) \(port.map(String.init) ?? "-") '\(path)' \(query ?? "-")" }
    }

    static let accepted: [(String, Parsed)] = [
        ("https://example.com", Parsed("https", "example.com", nil, "", nil)),
        ("https://Example.COM:8443/a/B?x=1&Y=2", Parsed("https", "example.com", 8443, "/a/B", "x=1&Y=2")),
        ("HTTPS://example.com/", Parsed("https", "example.com", nil, "/", nil)),
        ("hTTp://LOCALHOST", Parsed("http", "localhost", nil, "", nil)),
        ("http://127.0.0.1:8080/realms/x", Parsed("http", "127.0.0.1", 8080, "/realms/x", nil)),
        ("https://[::1]:443/p", Parsed("https", "[::1]", 443, "/p", nil)),
        ("https://[::1]/p", Parsed("https", "[::1]", nil, "/p", nil)),
        ("https://[FE80::1]:65535", Parsed("https", "[fe80::1]", 65535, "", nil)),
        ("https://example.com?q", Parsed("https", "example.com", nil, "", "q")),
        ("https://example.com/?", Parsed("https", "example.com", nil, "/", "")),
        ("https://example.com/a?b?c/d", Parsed("https", "example.com", nil, "/a", "b?c/d")),
        ("https://example.com/a@b/c:d", Parsed("https", "example.com", nil, "/a@b/c:d", nil)),
        ("https://example.com:1", Parsed("https", "example.com", 1, "", nil)),
        (
            "https://shop.example/authentication/.well-known/openid-configuration",
            Parsed("https", "shop.example", nil, "/authentication/.well-known/openid-configuration", nil)
        ),
        (
            "https://login.microsoftonline.com/{tenantid}/v2.0",
            Parsed("https", "login.microsoftonline.com", nil, "/{tenantid}/v2.0", nil)
        ),
    ]

    static let refused: [(String, String)] = [
        ("example.com", "is not an absolute URL"),
        ("://example.com", "is not an absolute URL"),
        ("", "is not an absolute URL"),
        ("ftp://example.com", "must use https"),
        ("https2://example.com", "must use https"),
        ("httpś://example.com", "must use https"),
        ("https://example.com/#frag", "must not contain a fragment"),
        ("https://exa mple.com", "contains spaces or non-ASCII characters"),
        ("https://exämple.com", "contains spaces or non-ASCII characters"),
        ("https://example.com/\u{7F}", "contains spaces or non-ASCII characters"),
        ("https://example.com/\t", "contains spaces or non-ASCII characters"),
        ("https://user@example.com", "must not contain user information"),
        ("https://user:pw@example.com/p", "must not contain user information"),
        ("https://example.com:/", "has an invalid port"),
        ("https://example.com:0", "has an invalid port"),
        ("https://example.com:65536", "has an invalid port"),
        ("https://example.com:http", "has an invalid port"),
        ("https://a://b", "has an invalid port"),
        // Two quirks of the hand-written parser are gone with WireFormats' one: a sign before the
        // port, and an unclosed IPv6 bracket (read as host "[:" and port 1).
        ("https://example.com:+80", "has an invalid port"),
        ("https://[::1", "has an invalid host (the IPv6 host has no closing ])"),
        ("https://[fe80::1%25eth0]/", "has an invalid host (the IPv6 host has a zone (%…); remove it)"),
        ("https://exa\"mple.com", "has an invalid host (its host has a character a host name cannot have)"),
        ("https://", "has no host"),
        ("https://:443", "has no host"),
        ("https:///path", "has no host"),
        ("https://?q", "has no host"),
        // Non-ASCII that joins an ASCII delimiter into one character: the parse reads bytes, so
        // the refusal names the byte-level problem (the String version named another one; both
        // refused). The visible-ASCII check now comes before the fragment's.
        ("https://\u{301}example.com", "contains spaces or non-ASCII characters"),
        ("https\u{600}://example.com", "must use https"),
        ("https://example.com/#\u{301}", "contains spaces or non-ASCII characters"),
    ]

    @Test(arguments: accepted)
    func acceptsTheShapesEndpointsHave(text: String, expected: Parsed) throws {
        #expect(Parsed(try EndpointURL(parsing: text, what: "token_endpoint")) == expected)
    }

    @Test(arguments: refused)
    func refusesWithAMessageNamingTheValue(text: String, why: String) {
        #expect {
            _ = try EndpointURL(parsing: text, what: "token_endpoint")
        } throws: { error in
            guard case .invalidConfiguration(let message) = error as? OIDCError else { return false }
            return message.hasPrefix("token_endpoint '") && message.hasSuffix("' \(why)")
        }
    }

    @Test func theStringIsTheNormalizedURL() throws {
        let url = try EndpointURL(parsing: "HTTPS://Example.COM:8443/a/B?x=1", what: "issuer")
        #expect(url.string == "https://example.com:8443/a/B?x=1")
        #expect(url.origin == "https://example.com:8443")
    }

    @Test(arguments: [
        ("localhost", true), ("[::1]", true), ("127.0.0.1", true), ("127.1.2.3", true),
        ("127.0.0", false), ("127.0.0.256", false), ("128.0.0.1", false), ("127.0.0.1.example.com", false),
        ("127.example.com", false), ("example.com", false), ("[::2]", false), ("LOCALHOST", true), ("[0::1]", true),
        ("localhost.", false), ("a.localhost", false), ("127.000.0.1", false),
    ])
    func loopbackHostsAreOnlyThisMachines(host: String, loopback: Bool) {
        #expect(EndpointURL(scheme: "http", host: host, path: "").isLoopback == loopback)
    }

    @Test func plainHTTPIsRefusedExceptForLoopback() throws {
        #expect(throws: OIDCError.self) { try EndpointURL.secure("http://example.com/token", what: "token_endpoint") }
        #expect(try EndpointURL.secure("http://127.0.0.1:9/token", what: "token_endpoint").port == 9)
        #expect(try EndpointURL.secure("https://example.com/token", what: "token_endpoint").host == "example.com")
    }
}
