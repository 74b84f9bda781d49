import BrokerProtocol
import Foundation
import Testing

@testable import AuthctlCommands

/// `authctl curl` finds the method and the one URL as curl would, and refuses what would make
/// the proof wrong or carry it elsewhere (docs/dpop.md).
@Suite struct CurlArgumentsTests {
    static func parsed(_ arguments: [String]) throws -> CurlArguments { try CurlArguments(arguments) }

    @Test(arguments: [
        (["https://api.example/x"], "GET"),
        (["-s", "https://api.example/x"], "GET"),
        (["-d", "a=1", "https://api.example/x"], "POST"),
        (["--data-binary", "@file", "https://api.example/x"], "POST"),
        (["--json", "{}", "https://api.example/x"], "POST"),
        (["-F", "f=@x", "https://api.example/x"], "POST"),
        (["-d", "a=1", "-G", "https://api.example/x"], "GET"),
        (["-I", "https://api.example/x"], "HEAD"),
        (["-T", "file", "https://api.example/x"], "PUT"),
        (["-X", "DELETE", "https://api.example/x"], "DELETE"),
        (["-XPATCH", "-d", "x", "https://api.example/x"], "PATCH"),
        (["-sSXPUT", "https://api.example/x"], "PUT"),
        (["--request", "OPTIONS", "-o", "out.json", "https://api.example/x"], "OPTIONS"),
    ])
    func theMethodIsCurls(arguments: [String], method: String) throws {
        let parsed = try Self.parsed(arguments)
        #expect(parsed.method == method)
        #expect(parsed.url == "https://api.example/x")
    }

    @Test func theURLMayComeFromURLOrAnywhereAmongOptions() throws {
        #expect(try Self.parsed(["--url", "https://a.example/1", "-s"]).url == "https://a.example/1")
        #expect(try Self.parsed(["https://a.example/2", "-H", "Accept: x"]).url == "https://a.example/2")
        // A value that looks like a URL is the option's, not a second URL.
        #expect(try Self.parsed(["-e", "https://referer.example/", "https://a.example/3"]).url == "https://a.example/3")
    }

    @Test(arguments: [
        ([String](), "needs the URL"),
        (["https://a.example/", "https://b.example/"], "signs for one URL, found 2"),
        (["--unknown-valued-option", "v", "https://a.example/"], "signs for one URL, found 2"),
        (["a.example/x"], "needs an absolute URL"),
        (["-L", "https://a.example/"], "cannot pass --location"),
        (["-sL", "https://a.example/"], "--location"),
        (["--location-trusted", "https://a.example/"], "redirects"),
        (["-K", "cfg", "https://a.example/"], "--config"),
        (["https://a.example/", "--next", "https://b.example/"], "--next"),
        (["--request-target", "/other", "https://a.example/"], "--request-target"),
        (["-D", "h.txt", "https://a.example/"], "--dump-header"),
        (["-H", "Authorization: Bearer x", "https://a.example/"], "sends the Authorization header itself"),
        (["-H", "dpop: x", "https://a.example/"], "sends the DPoP header itself"),
        (["-X"], "needs a value"),
    ])
    func ambiguousOrUnsafeArgumentsAreRefused(arguments: [String], message: String) {
        #expect {
            try CurlArguments(arguments)
        } throws: { error in
            "\(error)".contains(message) || ((error as? UsageError)?.message.contains(message) ?? false)
        }
    }

    /// `-q` disables ~/.curlrc only as curl's first argument (a `location` line there would follow
    /// the redirects authctl curl refuses). The real curl: `DaemonDPoPServingTests`.
    @Test func curlRunsWithQuietFirstSoNoCurlrcIsRead() {
        #expect(
            CurlCommand.curlCommand(["-sS", "https://a.example/"]) == ["curl", "-q", "--globoff", "-sS", "https://a.example/"])
    }

    @Test func theCommandLineStopsAtTheAccountName() throws {
        guard
            case .run(let command, let arguments, _) = try Invocation([
                "curl", "work", "-sS", "--data", "x", "https://a.example/",
            ])
        else {
            Issue.record("not a run")
            return
        }
        #expect(ObjectIdentifier(command) == ObjectIdentifier(CurlCommand.self))
        #expect(arguments.positionals == ["work", "-sS", "--data", "x", "https://a.example/"])
    }
}

/// The resource server's nonce challenge (RFC 9449 §9) as curl's `-D` writes it.
@Suite struct NonceChallengeTests {
    static let challenge =
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\", error_description=\"Resource server requires nonce in DPoP proof\"\r\nDPoP-Nonce: eyJ7S_zG.eyJH0-Z.HX4w-7v\r\n\r\n"

    @Test func theRFCExampleGivesItsNonce() {
        #expect(NonceChallenge.nonce(in: Self.challenge) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(NonceChallenge.nonce(in: "HTTP/1.1 100 Continue\r\n\r\n" + Self.challenge) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        let lowerCase = Self.challenge.replacingOccurrences(
            of: "WWW-Authenticate: DPoP", with: "www-authenticate: Bearer realm=\"x\", dpop")
        #expect(NonceChallenge.nonce(in: lowerCase) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nDPoP-Nonce: abc\r\n\r\n",
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: DPoP error=\"invalid_token\"\r\nDPoP-Nonce: abc\r\n\r\n",
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\"\r\n\r\n",
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\"\r\nDPoP-Nonce: a\"b\r\n\r\n",
        "HTTP/1.1 400 Bad Request\r\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\"\r\nDPoP-Nonce: abc\r\n\r\n",
        "",
    ])
    func anythingElseIsNoChallenge(dump: String) {
        #expect(NonceChallenge.nonce(in: dump) == nil)
    }
}
