import Testing
import WireFormats

/// The one URL parser, table by table: what every module's URL policy (`EndpointURL`, `ClientURL`,
/// `DPoPTargetURI`, the proof route, presets, git remotes, proxies) stands on.
@Suite struct AbsoluteURLTests {
    struct Parsed: Equatable, CustomStringConvertible {
        var scheme: String, userInfo: String?, host: String, kind: Host.Kind, port: Int?, path: String, query: String?,
            fragment: String?
        init(
            _ scheme: String, _ userInfo: String?, _ host: String, _ kind: Host.Kind, _ port: Int?, _ path: String,
            _ query: String? = nil, _ fragment: String? = nil
        ) {
            (self.scheme, self.userInfo, self.host, self.kind, self.port) = (scheme, userInfo, host, kind, port)
            (self.path, self.query, self.fragment) = (path, query, fragment)
        }
        init(_ url: AbsoluteURL) {
            self.init(
                url.scheme, url.userInfo.map(String.init), url.host.text, url.host.kind, url.port, String(url.path),
                url.query.map(String.init), url.fragment.map(String.init))
        }
        var description: String {
            "\(scheme) \(userInfo ?? "-") \(host) \(kind) \(port.map(String.init) ?? "-") '\(path)' \(query ?? "-") \(fragment ?? "-")"
        }
    }

    static let accepted: [(String, Parsed)] = [
        ("https://example.com", Parsed("https", nil, "example.com", .name, nil, "")),
        ("HTTPS://Example.COM:8443/a/B?x=1&Y=2#F", Parsed("https", nil, "example.com", .name, 8443, "/a/B", "x=1&Y=2", "F")),
        // user info: up to the authority's last @, kept as written
        ("https://user@h.example/", Parsed("https", "user", "h.example", .name, nil, "/")),
        ("http://us%40er:p%3Ass@h.example:3128", Parsed("http", "us%40er:p%3Ass", "h.example", .name, 3128, "")),
        ("https://a@b@h.example", Parsed("https", "a@b", "h.example", .name, nil, "")),
        ("https://@h.example", Parsed("https", "", "h.example", .name, nil, "")),
        // ports
        ("https://h.example:1", Parsed("https", nil, "h.example", .name, 1, "")),
        ("https://h.example:65535/", Parsed("https", nil, "h.example", .name, 65535, "/")),
        ("https://h.example:00443", Parsed("https", nil, "h.example", .name, 443, "")),
        // hosts
        ("http://127.0.0.1:8080/x", Parsed("http", nil, "127.0.0.1", .ipv4, 8080, "/x")),
        ("http://127.000.0.1/", Parsed("http", nil, "127.000.0.1", .name, nil, "/")),
        ("http://1.2.3/", Parsed("http", nil, "1.2.3", .name, nil, "/")),
        ("https://[::1]:443/p", Parsed("https", nil, "::1", .ipv6, 443, "/p")),
        ("https://[FE80::1]", Parsed("https", nil, "fe80::1", .ipv6, nil, "")),
        ("https://[::ffff:192.0.2.1]/", Parsed("https", nil, "::ffff:192.0.2.1", .ipv6, nil, "/")),
        ("https://[1:2:3:4:5:6:7:8]/", Parsed("https", nil, "1:2:3:4:5:6:7:8", .ipv6, nil, "/")),
        ("https://a_b-c~d.example", Parsed("https", nil, "a_b-c~d.example", .name, nil, "")),
        ("https://sub.delims!$&'()*+,;=", Parsed("https", nil, "sub.delims!$&'()*+,;=", .name, nil, "")),
        ("https://h.example.", Parsed("https", nil, "h.example.", .name, nil, "")),
        // path, query, fragment
        ("https://h.example?q", Parsed("https", nil, "h.example", .name, nil, "", "q")),
        ("https://h.example#f?x", Parsed("https", nil, "h.example", .name, nil, "", nil, "f?x")),
        ("https://h.example/a?b?c/d#e#f", Parsed("https", nil, "h.example", .name, nil, "/a", "b?c/d", "e#f")),
        ("https://h.example/a@b/c:d", Parsed("https", nil, "h.example", .name, nil, "/a@b/c:d")),
        ("https://h.example/%7e%2F%41", Parsed("https", nil, "h.example", .name, nil, "/%7e%2F%41")),
        ("https://h.example/?q=100%", Parsed("https", nil, "h.example", .name, nil, "/", "q=100%")),
        ("https://h.example/{tenant}/v2.0", Parsed("https", nil, "h.example", .name, nil, "/{tenant}/v2.0")),
        ("git+ssh://h.example/r", Parsed("git+ssh", nil, "h.example", .name, nil, "/r")),
    ]

    @Test(arguments: accepted)
    func accepts(text: String, expected: Parsed) throws {
        #expect(Parsed(try AbsoluteURL(text)) == expected)
    }

    static let refused: [(String, URLSyntaxError)] = [
        ("", .notAbsolute), ("example.com", .notAbsolute), ("://h", .notAbsolute), ("https:/h", .notAbsolute),
        ("1https://h", .invalidScheme), ("ht_tp://h", .invalidScheme), ("httpś://h", .invalidScheme),
        ("https://h.example/ x", .notVisibleASCII), ("https://h\u{7F}", .notVisibleASCII),
        ("https://é.example", .notVisibleASCII),
        ("https://h.example/\t", .notVisibleASCII),
        ("https://", .emptyHost), ("https:///p", .emptyHost), ("https://:443", .emptyHost), ("https://user@", .emptyHost),
        ("https://?q", .emptyHost),
        ("https://h%41.example", .invalidHost), ("https://h\"x", .invalidHost), ("https://h<x>", .invalidHost),
        ("https://h[1]", .invalidHost), ("https://h\\x/", .invalidHost), ("https://h^x", .invalidHost),
        // IPv6
        ("https://[::1", .unclosedIPv6), ("https://[::1]x/", .textAfterIPv6), ("https://[::1]:", .invalidPort),
        ("https://[fe80::1%25eth0]/", .ipv6Zone), ("https://[fe80::1%eth0]/", .ipv6Zone),
        ("https://[]/", .invalidIPv6), ("https://[zz::1]/", .invalidIPv6), ("https://[1:2:3:4:5:6:7:8:9]/", .invalidIPv6),
        ("https://[1::2::3]/", .invalidIPv6), ("https://[12345::1]/", .invalidIPv6), ("https://[:1]/", .invalidIPv6),
        ("https://[1:]/", .invalidIPv6), ("https://[v1.x]/", .invalidIPv6), ("https://[::1.2.3]/", .invalidIPv6),
        ("https://[1:2:3:4:5:6:7:1.2.3.4]/", .invalidIPv6), ("https://[::256.1.1.1]/", .invalidIPv6),
        // ports
        ("https://h.example:", .invalidPort), ("https://h.example:/", .invalidPort), ("https://h.example:0", .invalidPort),
        ("https://h.example:65536", .invalidPort), ("https://h.example:123456", .invalidPort),
        ("https://h.example:+80", .invalidPort),
        ("https://h.example:-1", .invalidPort), ("https://h.example:http", .invalidPort), ("https://a:b:c/", .invalidPort),
        ("https://a://b", .invalidPort),
        ("https://h.example:8 0", .notVisibleASCII),
        // percent-encoding in the path
        ("https://h.example/%", .invalidPercentEncoding), ("https://h.example/%4", .invalidPercentEncoding),
        ("https://h.example/%zz", .invalidPercentEncoding), ("https://h.example/a%4?x", .invalidPercentEncoding),
    ]

    @Test(arguments: refused)
    func refuses(text: String, error: URLSyntaxError) {
        #expect(throws: error) { try AbsoluteURL(text) }
    }

    @Test func theLengthIsBoundedBeforeAnythingElse() throws {
        let longest = "https://h.example/" + String(repeating: "a", count: AbsoluteURL.maximumLength - 18)
        #expect(try AbsoluteURL(longest).path.utf8.count == AbsoluteURL.maximumLength - 17)
        #expect(throws: URLSyntaxError.tooLong(maximum: AbsoluteURL.maximumLength)) { try AbsoluteURL(longest + "a") }
        #expect(throws: URLSyntaxError.tooLong(maximum: 10)) { try AbsoluteURL("not even a URL", maximumLength: 10) }
    }

    @Test func originAuthorityAndNormalizedForm() throws {
        let url = try AbsoluteURL("HTTPS://user:pw@Example.COM:443/%7e%2f/b?x#y")
        #expect(url.origin == "https://example.com:443" && url.authority == "example.com:443")
        #expect(url.effectivePort == 443 && url.defaultPort == 443)
        #expect(url.normalizedWithoutQuery == "https://example.com/~%2F/b")
        #expect(try AbsoluteURL("http://[::1]").normalizedWithoutQuery == "http://[::1]/")
        #expect(try AbsoluteURL("http://h:8080").normalizedWithoutQuery == "http://h:8080/")
        #expect(try AbsoluteURL("ftp://h/").effectivePort == nil && AbsoluteURL("ftp://h:21/").effectivePort == 21)
    }

    /// The one loopback rule (Host.swift says why each case is what it is).
    @Test(arguments: [
        ("localhost", true), ("LOCALHOST", true), ("LocalHost", true), ("127.0.0.1", true), ("127.255.255.254", true),
        ("127.1.2.3", true), ("[::1]", true), ("[0:0:0:0:0:0:0:1]", true), ("[0::1]", true),
        ("localhost.", false), ("a.localhost", false), ("localhost.example", false), ("127.0.0.1.example", false),
        ("127.000.0.1", false), ("127.1", false), ("0177.0.0.1", false), ("128.0.0.1", false), ("126.255.255.255", false),
        ("[::2]", false), ("[::]", false), ("[::ffff:127.0.0.1]", false), ("[::127.0.0.1]", false), ("example.com", false),
        ("0.0.0.0", false),
    ])
    func loopbackIsOneRule(host: String, loopback: Bool) throws {
        let parsed = try #require(Host(host))
        #expect(parsed.isLoopback == loopback)
        #expect(try AbsoluteURL("http://\(host):9/").host.isLoopback == loopback)
    }

    @Test func hostsParseAloneAsInAnAuthority() throws {
        #expect(Host("[::1]")?.uriText == "[::1]" && Host("[::1]")?.text == "::1")
        #expect(Host("Example.COM")?.text == "example.com" && Host("Example.COM")?.kind == .name)
        #expect(Host("10.0.0.1")?.kind == .ipv4)
        for bad in ["", "[::1", "::1", "a b", "h:80", "[fe80::1%25x]", "h/x", "user@h"] { #expect(Host(bad) == nil, "\(bad)") }
        #expect(Host(address: "::1")?.kind == .ipv6 && Host(address: "10.0.0.1")?.kind == .ipv4)
        #expect(Host(address: "example.com") == nil && Host(address: "[::1]") == nil && Host(address: "01.2.3.4") == nil)
        let (host, port) = try Host.withPort("Proxy.Example:3128")
        #expect(host.text == "proxy.example" && port == 3128)
        #expect(try Host.withPort("[::1]").1 == nil)
        #expect(throws: URLSyntaxError.invalidPort) { try Host.withPort("h:0") }
    }
}
