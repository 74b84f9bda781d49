import BrokerHTTP
import Foundation
import MockProvider
import Testing
import TestSupport

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
        let url = try #require(await firstLine(of: login, startingWith: "http"), "no URL; \(login.log)")
        try await playBrowser(url)
        #expect(try await login.waitForExit() == 0, "\(login.log)\n\(daemon.log)")

        let token = try DaemonProcess(
            command: [authctl, "--socket", harness.socket, "token", "work"], environment: harness.environment,
            logPath: harness.root + "/token.err", stdoutPath: harness.root + "/token.out")
        #expect(try await token.waitForExit() == 0, "\(token.log)")
        let value = token.output.trimmingCharacters(in: .newlines)
        #expect(!value.isEmpty && token.output == value + "\n")
        #expect(daemon.log.contains("audit: token account=work pid=\(token.pid) uid=\(getuid()) exe=\(authctl)"), "\(daemon.log)")

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

    /// The first stdout line of `process` with `prefix`, polling until it appears or the process ends.
    private func firstLine(of process: DaemonProcess, startingWith prefix: String, timeout: Double = 30) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Opens the authorization URL and follows the provider's redirect to the daemon's loopback listener.
    private func playBrowser(_ url: String) async throws {
        let browser = try HTTPClient(configuration: HTTPClientConfiguration(totalTimeout: .seconds(15), maxIdleConnectionsPerHost: 0))
        let answer = try await browser.send(HTTPClientRequest(url: url))
        try #require(answer.status == 302, "authorize answered \(answer.status)")
        let location = try #require(answer.headers["Location"])
        let page = try await browser.send(HTTPClientRequest(url: location))
        #expect(page.status == 200, "callback page \(page.status)")
    }
}
