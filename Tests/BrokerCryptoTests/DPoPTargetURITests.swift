import BrokerCrypto
import TestSupport
import Testing

/// `htu` normalisation (RFC 9449 §4.2–4.3 with RFC 3986 §6.2.2–6.2.3).
@Suite struct DPoPTargetURITests {
    @Test(arguments: [
        ("https://server.example.com/token", "https://server.example.com/token"),
        ("https://server.example.com/token?code=secret&state=x", "https://server.example.com/token"),
        ("https://server.example.com/a/b#frag", "https://server.example.com/a/b"),
        ("https://server.example.com/a#frag?not-a-query", "https://server.example.com/a"),
        ("HTTPS://Server.Example.COM/Path/Kept", "https://server.example.com/Path/Kept"),
        ("https://server.example.com:443/token", "https://server.example.com/token"),
        ("http://127.0.0.1:80/token", "http://127.0.0.1/token"),
        ("http://127.0.0.1:8080/token", "http://127.0.0.1:8080/token"),
        ("https://server.example.com", "https://server.example.com/"),
        ("https://server.example.com?q=1", "https://server.example.com/"),
        ("https://[::1]:8443/x", "https://[::1]:8443/x"),
        ("https://[::1]:443/x", "https://[::1]/x"),
        ("https://h.example/%7euser/a%2fb/%c3%a9", "https://h.example/~user/a%2Fb/%C3%A9"),
    ])
    func normalises(url: String, expected: String) throws {
        #expect(try DPoPTargetURI.normalize(url) == expected)
    }

    @Test(arguments: [
        "/token", "server.example.com/token", "ftp://server.example.com/x", "https://user:pw@server.example.com/x",
        "https:///x", "https://:443/x", "https://h.example:99999/x", "https://h.example:8a/x", "https://[::1/x",
        "https://[::1]x/y", "https://h.example/a%zz", "https://h.example/a%4", "https://h.example/a b",
        "https://h.example/\u{e9}", "https://h.example/\"", "https://h%41.example/", "https://h.example:443:80/x",
        "https://h[1]:443/x",
        // An empty port (RFC 3986 allows `host:`): refused by WireFormats' one parser, as every
        // other URL check of the daemon always did; only this one used to drop it.
        "https://server.example.com:/token", "https://[fe80::1%25eth0]/x",
    ])
    func refuses(url: String) {
        #expect(throws: DPoPError.self) { try DPoPTargetURI.normalize(url) }
    }

    @Test func refusalsNeverQuoteTheURL() {
        do {
            _ = try DPoPTargetURI.normalize("https://user:hunter2@h.example/x?token=abc")
            Issue.record("user info was accepted")
        } catch {
            #expect(!error.description.contains("hunter2") && !error.description.contains("abc"))
        }
    }

    @Test func lengthIsBounded() throws {
        let base = "https://h.example/"
        let longest = base + String(repeating: "a", count: DPoPTargetURI.maximumLength - base.utf8.count)
        #expect(try DPoPTargetURI.normalize(longest) == longest)
        #expect(throws: DPoPError.invalidTargetURI("it is longer than 8192 bytes")) {
            try DPoPTargetURI.normalize(longest + "a")
        }
    }

    /// Property: on 5,000 generated URL-like strings, normalising never traps, an accepted result
    /// has no query or fragment, and normalising it again changes nothing (servers re-normalise).
    @Test func normalisationIsIdempotentOnGeneratedURLs() throws {
        var random = SplitMix64(seed: 9449)
        let pieces = [
            "https://", "http://", "HTTP://", "h.example", "H.EXAMPLE", "[::1]", ":443", ":80", ":8080", ":", "/",
            "a", "%7e", "%2F", "%41", "%zz", "?q=1", "#f", "@", "..", "~", "%",
        ]
        for _ in 0..<5000 {
            let url = (0..<Int(random.next() % 8 + 1)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            guard let normalised = try? DPoPTargetURI.normalize(url) else { continue }
            #expect(!normalised.contains("?") && !normalised.contains("#"), "\(url)")
            #expect(try DPoPTargetURI.normalize(normalised) == normalised, "\(url)")
        }
    }
}
