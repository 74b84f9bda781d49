import Foundation
import Testing

/// A private-use scheme redirect (RFC 8252 §7.1) with the real binaries: `account add
/// --redirect-uri`, `authctl login --no-browser`, the test plays the browser up to the redirect
/// and then the desktop, running `authctl callback LOCATION` → token → refresh → logout. The
/// mock's client accepts only its registered redirect URI.
@Suite struct PrivateRedirectLoginTests {
    static let redirect = "com.example.authbroker-test:/oauth/callback"

    @Test(.timeLimit(.minutes(1)))
    func loginThroughAuthctlCallbackThenRefreshAndLogout() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"registeredRedirectURI": "\#(Self.redirect)", "accessTokenLifetime": 4}"#)
        let add = try await harness.authctl([
            "account", "add", "shop", "--issuer", provider.issuer, "--client-id", "mock-client",
            "--scope", "openid", "--scope", "offline_access", "--redirect-uri", Self.redirect,
        ])
        #expect(add.status == 0 && !add.stderr.contains("warning"), "\(add)")

        let login = try harness.spawnAuthctl(["login", "shop", "--no-browser", "--timeout", "60"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(url.contains("redirect_uri=com.example.authbroker-test%3A%2Foauth%2Fcallback"))
        let location = try await provider.redirect(for: url)
        #expect(location.hasPrefix(Self.redirect + "?"))

        // As the browser launches it: stdout is no terminal, so the outcome is also a notification.
        let notifications = try Self.fakeNotifySend(in: harness.root)
        let forged = try await harness.authctl(
            ["callback", Self.redirect + "?code=forged-code&state=forged-state"], prefix: notifications.prefix)
        #expect(forged.status == 1 && forged.stderr.contains("No pending login matches"), "\(forged)")
        #expect(login.isRunning, "a foreign state must leave the pending login alone")

        let callback = try await harness.authctl(["callback", location], prefix: notifications.prefix)
        #expect(callback.status == 0 && callback.stderr.contains("Signed in to 'shop' as mock-user."), "\(callback)")
        let shown = (try? String(contentsOfFile: notifications.log, encoding: .utf8)) ?? ""
        #expect(shown.contains("No pending login matches") && shown.contains("Signed in to 'shop' as mock-user."), "\(shown)")
        #expect(!shown.contains("forged-code") && !shown.contains("code="), "a notification showed the URL")
        #expect(await login.waitForExit(timeout: 20) == 0, "the waiting login: \(login.stderr)")
        let replay = try await harness.authctl(["callback", location])
        #expect(replay.status == 1, "a callback used twice: \(replay)")

        // 4-second tokens are refreshed about every 2 s: wait for the refresh token to be used once.
        let first = try await harness.token("shop")
        var refreshed = first
        _ = try await SpawnedProcess.eventually(timeout: 15) {
            refreshed = try await harness.token("shop")
            return refreshed != first
        }
        #expect(first != refreshed)
        #expect(try await provider.accepts(refreshed))
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.refreshes >= 1, "\(stats)")
        #expect(try await harness.authctl(["logout", "shop"]).status == 0)
        #expect(try await harness.authctl(["token", "shop"]).status == 77)

        #expect(await harness.stopDaemon() == 0)
        let code = try #require(location.split(separator: "code=").last?.split(separator: "&").first)
        #expect(!harness.daemonLog.contains(code), "the authorization code reached the daemon log")
        #expect(!harness.daemonLog.contains(location))
        #expect(try await harness.authctl(["callback", location]).status == 69)
        #expect(try await harness.authctl(["callback"]).status == 64)
        await provider.stop()
    }

    /// The fake `notify-send` of `DesktopSession`, and the prefix that puts it on PATH.
    static func fakeNotifySend(in root: String) throws -> (prefix: [String], log: String) {
        let (bin, log) = try DesktopSession.fakeNotifySend(in: root)
        return (["/usr/bin/env", "PATH=\(bin):/usr/bin:/bin"], log)
    }

    @Test(.timeLimit(.minutes(1)))
    func addRefusesHTTPAndBrowserSchemesAndWarnsWithoutADot() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let base = ["account", "add", "x", "--issuer", provider.issuer, "--client-id", "mock-client"]
        for uri in ["https://app.example/cb", "javascript:/x", "file:///tmp/cb"] {
            let run = try await harness.authctl(base + ["--redirect-uri", uri])
            #expect(run.status == 64 && run.stderr.contains("redirect URI"), "\(uri): \(run)")
        }
        let both = try await harness.authctl(base + ["--redirect-uri", Self.redirect, "--redirect-port", "8080"])
        #expect(both.status == 64 && both.stderr.contains("--redirect-uri replaces the loopback redirect"), "\(both)")
        let dotless = try await harness.authctl(base + ["--redirect-uri", "myapp://auth/callback"])
        #expect(dotless.status == 0 && dotless.stderr.contains("warning: ") && dotless.stderr.contains("no dot"), "\(dotless)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }
}
