import BrokerProtocol
import Testing
import WireFormats

/// `--redirect-uri`: private-use scheme URIs only (RFC 8252 §7.1, RFC 3986 §3.1), and how a
/// callback URL is matched against one.
@Suite struct PrivateUseRedirectURITests {
    @Test(
        arguments: [
            ("shop.4242.app://callback", "shop.4242.app", "callback", ""),
            ("myapp://auth/callback", "myapp", "auth", "/callback"),
            ("com.example.app:/oauth2redirect", "com.example.app", nil, "/oauth2redirect"),
            ("Com.Example+X-1.app:/cb", "com.example+x-1.app", nil, "/cb"),
        ] as [(String, String, String?, String)])
    func acceptsPrivateUseSchemes(text: String, scheme: String, host: String?, path: String) throws {
        let uri = try PrivateUseRedirectURI(parsing: text)
        #expect(uri.scheme == scheme && uri.host == host && uri.path == path)
        #expect(uri.description == text, "the request and exchange send the URI as configured")
    }

    @Test(arguments: ["http://127.0.0.1:8080/callback", "https://app.example/cb", "HTTPS://app.example/cb"])
    func refusesHTTPPointingToTheLoopbackOptions(text: String) {
        #expect(Self.problem(text).contains("--redirect-host"))
    }

    @Test(arguments: [
        "file:///etc/passwd", "data:/text", "javascript:/alert", "about:/blank", "mailto:/x", "ftp://host/x",
        "ws://host/x", "wss://host/x", "blob:/x", "chrome://settings", "view-source:/x", "Mailto:/x",
    ])
    func refusesSchemesTheBrowserOrDesktopOwns(text: String) {
        #expect(Self.problem(text).contains("belongs to the browser or the desktop"))
    }

    @Test(arguments: [
        "", "callback", "1app:/cb", "-app:/cb", "my_app:/cb", ":/cb", "my app:/cb", "myapp:/cb?x=1", "myapp:/cb#f",
        "myapp:cb", "myapp://", "myapp://user@host/cb", "myapp:///cb", "myapp://host//cb", "myapp:/cb\u{7F}",
        "myapp:/é", "myapp:/" + String(repeating: "a", count: 600),
    ])
    func refusesMalformedURIs(text: String) {
        #expect(Self.problem(text).hasPrefix("The redirect URI must be a private-use scheme URI"))
    }

    @Test func warnsOnlyWhenTheSchemeHasNoDot() throws {
        #expect(try PrivateUseRedirectURI(parsing: "myapp://auth/callback").warning?.contains("reverse domain") == true)
        #expect(try PrivateUseRedirectURI(parsing: "shop.4242.app://callback").warning == nil)
    }

    @Test func callbackMatchesOnlyTheExactSchemeHostAndPath() throws {
        let uri = try PrivateUseRedirectURI(parsing: "shop.4242.app://callback")
        #expect(uri.callbackQuery("shop.4242.app://callback?code=c&state=s") == "code=c&state=s")
        #expect(uri.callbackQuery("SHOP.4242.app://callback?code=c") == "code=c", "schemes are case-insensitive")
        #expect(uri.callbackQuery("shop.4242.app://callback") == "")
        #expect(uri.callbackQuery("shop.4242.app://callback?code=c#frag") == "code=c")
        for other in [
            "shop.4243.app://callback?code=c", "shop.4242.app://callbacks?code=c", "shop.4242.app://Callback?code=c",
            "shop.4242.app://callback/?code=c", "shop.4242.app:/callback?code=c", "http://callback?code=c",
            "shop.4242.app://callback/x?code=c", "nonsense",
        ] {
            #expect(uri.callbackQuery(other) == nil, "\(other)")
        }
        let path = try PrivateUseRedirectURI(parsing: "com.example.app:/oauth/cb")
        #expect(path.callbackQuery("com.example.app:/oauth/cb?state=s") == "state=s")
        #expect(path.callbackQuery("com.example.app://oauth/cb?state=s") == nil)
        #expect(path.callbackQuery("com.example.app:/oauth/cb2?state=s") == nil)
    }

    @Test func codesAsItsTextAndRevalidatesOnDecoding() throws {
        let uri = try PrivateUseRedirectURI(parsing: "com.example.app:/cb")
        #expect(try WireJSON.encodeValue(uri) == .string("com.example.app:/cb"))
        #expect(try WireJSON.decode(PrivateUseRedirectURI.self, from: .string("com.example.app:/cb")) == uri)
        #expect(throws: (any Error).self) { try WireJSON.decode(PrivateUseRedirectURI.self, from: .string("https://x/cb")) }
    }

    @Test func theCallbackBodyNeverPrintsItsURL() {
        let body = LoginCallbackRequest(url: "com.example.app:/cb?code=SECRET-CODE&state=s")
        for text in [String(describing: body), String(reflecting: body), "\(Mirror(reflecting: body).children.map(\.value))"] {
            #expect(!text.contains("SECRET-CODE"), "\(text)")
        }
    }

    static func problem(_ text: String) -> String {
        do throws(PrivateUseRedirectURI.Problem) {
            _ = try PrivateUseRedirectURI(parsing: text)
            return "accepted"
        } catch {
            return error.description
        }
    }
}
