import BrokerProtocol
import Testing

/// Known answers for the origin the proof route audits and the one check it makes of a request
/// (`checkedOrigin`): the byte-level parse must agree with what the URL means.
@Suite struct DPoPProofRequestOriginTests {
    @Test(arguments: [
        ("https://api.example/x?q=1#f", "https://api.example"),
        ("HTTPS://API.Example:8443/Path", "https://api.example:8443"),
        ("https://api.example", "https://api.example"),
        ("https://api.example?next=https://evil.example/", "https://api.example"),
        ("https://api.example#https://evil.example/", "https://api.example"),
        ("http://[::1]:9/x", "http://[::1]:9"),
        ("http://LOCALHOST/x", "http://localhost"),
        ("http://127.0.0.1:8080/a://b", "http://127.0.0.1:8080"),
        ("http://LocalHost:1", "http://localhost:1"),
    ])
    func theOriginIsSchemeHostAndPortInLowerCase(url: String, origin: String) {
        #expect(DPoPProofRequest.origin(of: url) == .success(origin))
        #expect(DPoPProofRequest(method: "GET", url: url).checkedOrigin() == .success(origin))
    }

    @Test(arguments: [
        ("", "it is not absolute"),
        ("://", "it is not absolute"),
        ("https:/", "it is not absolute"),
        ("https://", "it has no host"),
        ("api.example/x://y", "the scheme must be https"),
        ("https://a@api.example/", "it has user info"),
        ("http://127.0.0.1@evil.example/", "it has user info"),
        ("http://[::2]/", "http is allowed only for a loopback host"),
        ("http://127.1/", "http is allowed only for a loopback host"),
        ("http://127.0.0.256/", "http is allowed only for a loopback host"),
        ("http://0127.0.0.1/", "http is allowed only for a loopback host"),
        ("http://127.0.0.1.5/", "http is allowed only for a loopback host"),
        ("http://127.0.0./", "http is allowed only for a loopback host"),
        ("http://127.0.0.1a/", "http is allowed only for a loopback host"),
        ("http://localhost.evil.example/", "http is allowed only for a loopback host"),
        // WireFormats' one loopback rule: a dotted quad with leading zeros is a registered name to
        // RFC 3986 (and octal to some resolvers), not 127.0.0.0/8; `localhost.` and `*.localhost` go to DNS.
        ("http://127.255.000.9/", "http is allowed only for a loopback host"),
        ("http://localhost./", "http is allowed only for a loopback host"),
        ("http://a.localhost/", "http is allowed only for a loopback host"),
        ("https://api.example/é", "non-ASCII"),
        ("wss://api.example/", "the scheme must be https"),
    ])
    func aURLThatCannotBeSignedSaysWhy(url: String, why: String) {
        guard case .failure(let problem) = DPoPProofRequest.origin(of: url) else {
            Issue.record("\(url) was accepted")
            return
        }
        #expect(problem.description.contains(why), "\(url): \(problem)")
        #expect(DPoPProofRequest(method: "GET", url: url).problem?.contains(why) == true)
    }

    @Test func theMethodAndNonceAreCheckedBeforeTheURL() {
        let badMethod = DPoPProofRequest(method: "G T", url: "no url")
        #expect(badMethod.problem?.hasPrefix("The method must be") == true)
        let badNonce = DPoPProofRequest(method: "GET", url: "no url", nonce: #"a"b"#)
        #expect(badNonce.problem?.hasPrefix("The nonce must be") == true)
        #expect(DPoPProofRequest(method: "GET", url: "https://a.example/").problem == nil)
    }
}
