import BrokerHTTP
import Foundation
import MockProvider
import TestSupport
import Testing

/// The real binaries against the in-process mock provider: account add → login (the test plays
/// the browser) → token (audited, never logged) → logout → login required.
@Suite struct DaemonEndToEndTests {
    @Test func addLoginTokenLogoutThroughAuthctl() async throws {
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        let add = try await harness.authctl([
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client",
            "--scope", "openid", "--scope", "offline_access",
        ])
        try #require(add.status == 0, "\(add.stderr)\n\(daemon.log)")

        let authctl = try DaemonHarness.binary("authctl")
        let login = try DaemonProcess(
            command: [authctl, "--socket", harness.socket, "login", "work", "--no-browser", "--timeout", "60"],
            environment: harness.environment, logPath: harness.root + "/login.err", stdoutPath: harness.root + "/login.out")
        let url = try #require(await login.firstOutputLine(startingWith: "http"), "no URL; \(login.log)")
        try await DaemonHarness.playBrowser(url)
        #expect(try await login.waitForExit() == 0, "\(login.log)\n\(daemon.log)")

        let token = try DaemonProcess(
            command: [authctl, "--socket", harness.socket, "token", "work"], environment: harness.environment,
            logPath: harness.root + "/token.err", stdoutPath: harness.root + "/token.out")
        #expect(try await token.waitForExit() == 0, "\(token.log)")
        let value = token.output.trimmingCharacters(in: .newlines)
        #expect(!value.isEmpty && token.output == value + "\n")
        #expect(
            daemon.log.contains("audit: token account=work pid=\(token.pid) uid=\(getuid()) exe=\(authctl) comm=authctl start="),
            "\(daemon.log)")

        let json = try await harness.authctl(["token", "work", "--min-ttl", "10", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains("\"access_token\""))

        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let after = try await harness.authctl(["token", "work"])
        #expect(after.status == 77, "\(after.stderr)")
        #expect(after.stderr.contains("authctl login work"))

        #expect(try await daemon.stop() == 0)
        #expect(!daemon.log.contains(value), "a token value reached the daemon log")
        await provider.stop()
    }
}
