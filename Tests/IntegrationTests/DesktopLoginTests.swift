import Foundation
import TestSupport
import Testing

/// The whole desktop chain with real tools (issue 11, "Real desktop plumbing in CI"): `authctl
/// login --no-browser` registers the handler in the harness's XDG directories, the test plays the
/// browser up to the redirect, then hands it over like a browser does — the real `gio open` and
/// `xdg-open` under GNOME — which launch the real `authctl callback` from the registered entry.
/// That handler finds the daemon through XDG_RUNTIME_DIR alone and completes the waiting login.
/// Serialized: each case starts a daemon and a mock; five at once only add to the start-up burst
/// of the parallel suite on a small machine.
@Suite(.serialized) struct DesktopLoginTests {
    /// The two kinds of clients a private-use redirect is for.
    enum Mode: String, CustomStringConvertible, CaseIterable {
        /// A plain OAuth public client registered for one private-use redirect (Shopify's kind).
        case privateUseClient = "private-use client"
        /// WorkOS User Management: JSON authenticate endpoint, JWT access tokens, rotation.
        case userManagement = "WorkOS User Management"
        /// The mock's Shopify mode (discovery at the shop's domain, no revocation endpoint), added
        /// with `--provider shopify`: the preset derives the `shop.4242.app://callback` redirect.
        case shopify = "Shopify preset"
        var description: String { rawValue }

        /// Digits in the scheme, as Shopify's: xdg-utils' generic mode would take it for a file.
        var redirect: String { self == .userManagement ? "com.example.workos-test:/callback" : "shop.4242.app://callback" }

        var providerConfiguration: String {
            let mode =
                switch self {
                case .privateUseClient: ""
                case .userManagement: #""userManagement": true, "#
                case .shopify: #""shopifyShopID": "4242", "#
                }
            return #"{\#(mode)"registeredRedirectURI": "\#(redirect)", "accessTokenLifetime": 4}"#
        }

        func addAccount(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess) async throws {
            if self == .userManagement {
                return try await WorkOSUserManagementTests.addAccount(
                    name, harness, provider, extra: ["--redirect-uri", redirect])
            }
            if self == .shopify {
                guard let shopDomain = provider.shopDomain else { throw HarnessError.unexpected("the mock names no shop domain") }
                let add = try await harness.authctl([
                    "account", "add", name, "--provider", "shopify", "--shop-domain", shopDomain, "--client-id", "mock-client",
                ])
                guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
                return
            }
            let add = try await harness.authctl([
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client",
                "--scope", "openid", "--scope", "offline_access", "--redirect-uri", redirect,
            ])
            guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: Mode.allCases, DesktopSession.Opener.allCases)
    func theDesktopLaunchesAuthctlCallbackWhichCompletesTheLogin(mode: Mode, opener: DesktopSession.Opener) async throws {
        let (desktop, provider) = try await DesktopSession.start(provider: mode.providerConfiguration)
        let harness = desktop.harness
        try await mode.addAccount("acct", harness, provider)
        let login = try harness.spawnAuthctl(["login", "acct", "--no-browser", "--timeout", "60"])
        let location = try await provider.redirect(for: try await harness.authorizationURL(printedBy: login))
        #expect(location.hasPrefix(mode.redirect + "?"), "\(location)")
        #expect(login.stderr.contains("Registered authctl as the handler"), "\(login.stderr)")

        // Another login's redirect (a state no pending login has): refused, this login untouched.
        let foreign = try await desktop.open(mode.redirect + "?code=forged-code&state=forged-state", with: opener)
        #expect(foreign.status == 0, "\(opener): \(foreign)")
        let refused = await desktop.notifications(count: 1)
        #expect(refused.count == 1 && refused[0].contains("No pending login matches"), "\(refused)\n\(desktop.launchedOutput)")
        #expect(login.isRunning, "a foreign state must leave the pending login alone")

        #expect(try await desktop.open(location, with: opener).status == 0)
        #expect(await login.waitForExit(timeout: 30) == 0, "the waiting login: \(login.stderr)\n\(desktop.launchedOutput)")
        #expect(login.stderr.contains("Signed in to 'acct' as mock-user."), "\(login.stderr)")
        let signedIn = await desktop.notifications(count: 2)
        #expect(signedIn.count == 2 && signedIn[1].contains("Signed in to 'acct' as mock-user."), "\(signedIn)")

        // The browser hands the same redirect over again (reload, back button): a replay.
        #expect(try await desktop.open(location, with: opener).status == 0)
        let replayed = await desktop.notifications(count: 3)
        #expect(replayed.count == 3 && replayed[2].contains("No pending login matches"), "\(replayed)")

        try await refreshThenLogOut("acct", harness, provider)
        try await removalUnregisters("acct", mode, desktop, opener)

        #expect(await harness.stopDaemon() == 0)
        let code = try #require(location.split(separator: "code=").last?.split(separator: "&").first)
        #expect(!harness.daemonLog.contains(code), "the authorization code reached the daemon log")
        #expect(!desktop.launchedOutput.contains(code), "the handler wrote the code: \(desktop.launchedOutput)")
        #expect(!desktop.launchedOutput.contains("forged-code"))
        await provider.stop()
    }

    /// A daemon on another socket (`--socket`, as with a system-wide daemon): the browser-launched
    /// handler has neither the flag nor the shell's AUTHBROKER_SOCKET, so the entry passes it on.
    @Test(.timeLimit(.minutes(1)))
    func aLoginOnAnotherSocketTellsTheHandlerWhereTheDaemonListens() async throws {
        let mode = Mode.privateUseClient
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: mode.providerConfiguration)
        let desktop = try DesktopSession(harness)
        try await mode.addAccount("acct", harness, provider)
        let login = try harness.spawnAuthctl(["login", "acct", "--no-browser", "--timeout", "60"])
        let location = try await provider.redirect(for: try await harness.authorizationURL(printedBy: login))
        #expect(login.stderr.contains("The handler is told the daemon's socket, \(harness.socket)."), "\(login.stderr)")
        try await handOverThroughGio(location, completes: login, desktop, provider)
    }

    /// authctl installed under a path with a space, a quote and a `$`: the Exec line quotes it as
    /// the Desktop Entry spec says, and the real gio runs that binary with the URL.
    @Test(.timeLimit(.minutes(1)))
    func anAuthctlUnderAPathWithShellCharactersIsLaunchedWhole() async throws {
        let mode = Mode.privateUseClient
        let (desktop, provider) = try await DesktopSession.start(provider: mode.providerConfiguration)
        let harness = desktop.harness
        let directory = harness.root + "/my tools/it's $HOME"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try ProductBinary.copyAuthctl(to: directory)
        try await mode.addAccount("acct", harness, provider)
        let login = try harness.spawnAuthctl(
            ["login", "acct", "--no-browser", "--timeout", "60"], authctlPath: directory + "/authctl")
        let location = try await provider.redirect(for: try await harness.authorizationURL(printedBy: login))
        let entry = try String(
            contentsOfFile: harness.root + "/.local/share/applications/authbroker-shop.4242.app.desktop", encoding: .utf8)
        #expect(entry.contains(#"Exec="\#(harness.root)/my tools/it's \\$HOME/authctl" callback %u"#), "\(entry)")
        try await handOverThroughGio(location, completes: login, desktop, provider)
    }

    /// `gio open LOCATION`; the launched handler signs in, the waiting login exits 0; then stops all.
    private func handOverThroughGio(
        _ location: String, completes login: SpawnedProcess, _ desktop: DesktopSession, _ provider: MockProviderProcess
    ) async throws {
        #expect(try await desktop.open(location, with: .gio).status == 0)
        #expect(await login.waitForExit(timeout: 30) == 0, "the waiting login: \(login.stderr)\n\(desktop.launchedOutput)")
        let shown = await desktop.notifications(count: 1)
        #expect(shown.count == 1 && shown[0].contains("Signed in to 'acct' as mock-user."), "\(shown)")
        #expect(await desktop.harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// 4-second tokens are refreshed about every 2 s: wait for one refresh, then log out.
    private func refreshThenLogOut(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess) async throws {
        let first = try await harness.token(name)
        var refreshed = first
        let changed = try await SpawnedProcess.eventually(timeout: 15) {
            refreshed = try await harness.token(name)
            return refreshed != first
        }
        #expect(changed, "no refresh:\n\(harness.daemonLog)")
        #expect(try await provider.accepts(refreshed))
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.refreshes >= 1 && stats.familyRevocations == 0, "\(stats)")
        let logout = try await harness.authctl(["logout", name])
        #expect(logout.status == 0, "\(logout)")
        #expect(try await harness.authctl(["token", name]).status == 77)
    }

    /// After `account remove` the scheme has no handler: the opener fails and launches nothing.
    private func removalUnregisters(
        _ name: String, _ mode: Mode, _ desktop: DesktopSession, _ opener: DesktopSession.Opener
    ) async throws {
        let remove = try await desktop.harness.authctl(["account", "remove", name])
        #expect(remove.status == 0 && remove.stderr.contains("Removed the desktop's handler"), "\(remove)")
        let before = await desktop.notifications(count: 0).count
        let unhandled = try await desktop.open(mode.redirect + "?code=after-removal&state=none", with: opener)
        #expect(unhandled.status == opener.noHandlerStatus, "\(opener): \(unhandled)")
        // GLib finds no application for the scheme and falls back to the URI as a file: no such file type.
        #expect(unhandled.stderr.contains("Operation not supported"), "\(unhandled)")
        #expect(await desktop.notifications(count: 0).count == before, "a handler ran after its removal")
    }
}
