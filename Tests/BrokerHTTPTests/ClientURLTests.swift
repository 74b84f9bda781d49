import Testing

@testable import BrokerHTTP

@Test func clientURLSplitsHostPortAndTarget() throws {
    let url = try ClientURL("HTTPS://IdP.Example:8443/oauth/token?a=b#frag")
    #expect(url.scheme == .https && url.host == "idp.example" && url.port == 8443)
    #expect(url.target == "/oauth/token?a=b")
    #expect(url.authority == "idp.example:8443")
    let v6 = try ClientURL("http://[::1]:9000")
    #expect(v6.host == "::1" && v6.port == 9000 && v6.target == "/" && v6.authority == "[::1]:9000")
    #expect(try ClientURL("https://idp.example?x=1").target == "/?x=1")
    #expect(try ClientURL("http://127.5.6.7/").authority == "127.5.6.7")
}

@Test func clientURLRejectsWhatItCannotUseSafely() {
    for bad in [
        "ftp://x/", "https://", "https://user:pw@idp.example/", "https://idp.example:0/", "https://idp.example:65536/",
        "https://idp example/", "https://[::1/", "http://192.168.1.1/", "http://localhost.evil.example/", "https://::1/",
    ] {
        #expect(throws: HTTPClientError.self, "\(bad)") { try ClientURL(bad) }
    }
    // Plain http only to WireFormats' loopback hosts (`Host.isLoopback`, the one rule).
    for loopback in ["http://127.255.0.1/", "http://[::1]/", "http://LOCALHOST/", "http://[0:0::1]:8080/"] {
        #expect((try? ClientURL(loopback))?.hostIsLoopback == true, "\(loopback)")
    }
    // Before the one rule this client also took `localhost.` and `*.localhost` as loopback: both go
    // to DNS through glibc's resolver, so they are refused for plain http (and not exempt from a proxy).
    for remote in ["http://128.0.0.1/", "http://[::2]/", "http://localhost./", "http://a.localhost/", "http://127.000.0.1/"] {
        #expect(throws: HTTPClientError.self, "\(remote)") { try ClientURL(remote) }
    }
}

/// The scheme in any case, host characters and ports, pinned when the checks moved to bytes.
@Test(arguments: [
    ("HtTpS://IDP.example/x", "https", "idp.example", 443, "/x"),
    ("http://LOCALHOST:8080", "http", "localhost", 8080, "/"),
    ("https://a_b-c.d9.example#only-a-fragment", "https", "a_b-c.d9.example", 443, "/"),
    ("https://[2001:DB8::1]:443/t?q=1", "https", "2001:db8::1", 443, "/t?q=1"),
])
func clientURLAcceptsTheShapesItAlwaysDid(text: String, scheme: String, host: String, port: Int, target: String) throws {
    let url = try ClientURL(text)
    #expect(url.scheme.rawValue == scheme && url.host == host && url.port == port && url.target == target)
}

@Test(arguments: [
    "https://idp.example:+80/", "https:/idp.example/", "httpss://idp.example/", "htt://idp.example/", "https//idp.example/",
    "https://idp.ex:ample/",
    "https://idp.example:123456/", "https://idp.exa%mple/", "https://idp.exa*mple/", "https://idp.example:/",
    "https://[::1]x/", "https://[zz::1]/", "https://a:b:c/", "https://é.example/", "https://idp.example/\u{7F}",
])
func clientURLRefusesWhatItAlwaysRefused(text: String) {
    #expect(throws: HTTPClientError.self) { try ClientURL(text) }
}
