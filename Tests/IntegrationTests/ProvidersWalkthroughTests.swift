import Foundation
import TestSupport
import Testing

/// docs/providers.md's walk-throughs run as written: the ```sh blocks of a section, as one bash
/// script, with the real authctl and daemon against the mock in that provider's mode. Only the
/// placeholders are replaced (the shop's domain by the mock's, API hosts by a local recorder).
/// The browser is a fake `xdg-open` that does what a browser and the desktop do: GET the
/// authorization URL, then follow a loopback redirect or hand a private-use one to
/// `authctl callback`, as the registered desktop entry would.
@Suite struct ProvidersWalkthroughTests {
    /// The raw text of the ```sh blocks under the `## heading` section.
    static func script(section heading: String) throws -> String {
        let markdown = try String(contentsOfFile: ChildProcess.repositoryRoot + "/docs/providers.md", encoding: .utf8)
        var current = ""
        var inShell = false
        var blocks: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { current = String(line.dropFirst(3)) }
            if line.hasPrefix("```") {
                inShell = line == "```sh" && current == heading
                continue
            }
            if inShell { blocks.append(String(line)) }
        }
        return blocks.joined(separator: "\n")
    }

    static let fakeBrowser = """
        #!/bin/sh
        # authctl hands the browser a page that forwards to the URL: read where to, as a browser does.
        \(LoginPageReader.shellFunction)
        url=$(page_target "$1")
        # The browser: the mock redirects at once (no UI); read where to.
        location=$(curl -sS -D - -o /dev/null "$url" | sed -n 's/^[Ll]ocation: //p' | tr -d '\\r')
        case "$location" in
          http://*) exec curl -sS -o /dev/null "$location" ;;
          ?*) exec authctl callback "$location" ;;
          *) echo "no redirect from $1" >&2; exit 1 ;;
        esac
        """

    /// Runs `script` with authctl and the fake browser first on PATH and a display (so `authctl
    /// login` opens the browser), in the harness's isolated home.
    static func run(_ script: String, _ harness: BrokerHarness) async throws -> Subprocess.Result {
        let bin = harness.root + "/walkthrough-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin + "/authctl", withDestinationPath: try ChildProcess.binary("authctl"))
        FileManager.default.createFile(
            atPath: bin + "/xdg-open", contents: Data(fakeBrowser.utf8), attributes: [.posixPermissions: 0o755])
        var environment = harness.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["AUTHBROKER_SOCKET"] = harness.socket
        environment["DISPLAY"] = ":99"
        return try await Subprocess.run(
            ["/bin/bash", "-e", "-o", "pipefail", "-c", script], environment: environment, directory: harness.root,
            timeout: .seconds(60))
    }

    static func replacing(_ text: String, _ pairs: [(String, String)]) -> String {
        pairs.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    /// The requests the recorder saw, in order.
    static func recorded(_ log: String) throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func shopifyWalkthroughSignsInCallsBothAPIsAndSignsOut() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: PresetAccountTests.shopifyMock)
        let shopDomain = try #require(provider.shopDomain)
        let log = harness.root + "/api-requests.jsonl"
        let recorder = try await BackgroundServer(["recorder", log], directory: harness.root)
        defer { recorder.stop() }
        let api = "http://127.0.0.1:\(recorder.address)"
        let script = Self.replacing(
            try Self.script(section: "Shopify Customer Account API"),
            [
                ("https://shopify.com/SHOP_ID/account/customer/api/", api + "/4242/account/customer/api/"),
                ("https://SHOP.myshopify.com/api/", api + "/api/"),
                ("SHOP.myshopify.com", shopDomain), ("SHOPIFY_CLIENT_ID", "mock-client"),
            ])
        #expect(script.contains("authctl login shop") && script.contains("cartCreate"), "the section lost its commands")
        let run = try await Self.run(script, harness)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)\n\(harness.daemonLog)")
        #expect(run.stdout.contains("redirect_uri: \(PresetAccountTests.shopRedirect)\n"), "\(run.stdout)")
        #expect(
            run.stdout.contains(provider.issuer + "/logout?id_token_hint="), "logout prints the end-session URL: \(run.stdout)")
        #expect(run.stderr.contains("Signed in to 'shop' as mock-user."), "\(run.stderr)")

        let requests = try Self.recorded(log)
        try #require(requests.count == 2, "\(requests)")
        let customer = try #require(requests[0]["headers"] as? [String: String])
        #expect(requests[0]["path"] as? String == "/4242/account/customer/api/2025-07/graphql")
        let token = try #require(customer["Authorization"])
        let accepted = try await provider.accepts(token)
        #expect(!token.contains(" ") && accepted, "the Authorization header is the token, no scheme")
        let storefront = try #require(requests[1]["headers"] as? [String: String])
        #expect(requests[1]["path"] as? String == "/api/2025-07/graphql.json")
        #expect(storefront["X-Shopify-Storefront-Access-Token"] == "PUBLIC_STOREFRONT_TOKEN")
        let body = try #require(requests[1]["body"] as? String)
        let query = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["query"] as? String)
        #expect(query.contains("buyerIdentity: {customerAccessToken: \"\(token)\"}"), "\(query)")
        let stats = try await provider.stats
        #expect(stats.revocations == 0 && stats.codeExchanges == 1, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func workosConnectWalkthroughSignsIn() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let port = try await Subprocess.run(
            [
                "/usr/bin/env", "python3", "-c",
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
            ])
        let script = Self.replacing(
            try Self.script(section: "WorkOS AuthKit"),
            [
                ("SUBDOMAIN.authkit.app", provider.issuer), ("client_01ID", "mock-client"),
                ("8765", port.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
            ])
        let run = try await Self.run(script, harness)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)\n\(harness.daemonLog)")
        let token = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        #expect(try await provider.accepts(token))
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func workosUserManagementWalkthroughSignsInThroughThePrivateUseRedirect() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"userManagement": true, "registeredRedirectURI": "com.example.cli://callback"}"#)
        let base = provider.issuer + "/user_management"
        // The one change to the commands as written: the preset's api.workos.com, pointed at the mock.
        let mock =
            "--provider workos --issuer \(provider.issuer) --authorization-endpoint \(base)/authorize "
            + "--token-endpoint \(base)/authenticate --end-session-endpoint \(base)/sessions/logout --jwks-uri \(provider.issuer)/jwks"
        let script = Self.replacing(
            try Self.script(section: "WorkOS AuthKit — User Management API (native app, `PublicClient`)"),
            [
                ("--provider workos ", mock + " "), ("client_01ID", "mock-client"),
            ])
        let run = try await Self.run(script, harness)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)\n\(harness.daemonLog)")
        #expect(run.stderr.contains("Signed in to 'wos' as mock-user."), "\(run.stderr)")
        let token = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        #expect(token.split(separator: ".").count == 3, "a JWT access token: \(token)")
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.nonJSONAuthenticateRequests == 0, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }
}
