@testable import BrokerHTTP
import Testing

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
    #expect(IPAddress.isLoopback("127.255.0.1") && IPAddress.isLoopback("::1") && IPAddress.isLoopback("LOCALHOST"))
    #expect(!IPAddress.isLoopback("128.0.0.1") && !IPAddress.isLoopback("::2"))
}
