import BrokerHTTP
import Foundation
import TestSupport
import Testing

extension DaemonHarness {
    /// Opens the authorization URL and follows the provider's redirect to the daemon's loopback listener.
    static func playBrowser(_ url: String) async throws {
        let browser = try HTTPClient(
            configuration: HTTPClientConfiguration(totalTimeout: .seconds(15), maxIdleConnectionsPerHost: 0))
        let answer = try await browser.send(HTTPClientRequest(url: url))
        try #require(answer.status == 302, "authorize answered \(answer.status)")
        let location = try #require(answer.headers["Location"])
        let page = try await browser.send(HTTPClientRequest(url: location))
        #expect(page.status == 200, "callback page \(page.status)")
    }

    /// `authctl login NAME --no-browser`, with the test as the browser; fails the test unless it exits 0.
    /// Each login gets its own output files: a second one must not read the first one's URL.
    func login(_ account: String) async throws {
        let name = "login-\(account)-\(UInt32.random(in: 0...UInt32.max))"
        let login = try DaemonProcess(
            command: [try Self.binary("authctl"), "--socket", socket, "login", account, "--no-browser", "--timeout", "60"],
            environment: environment, logPath: root + "/\(name).err", stdoutPath: root + "/\(name).out")
        let url = try #require(await login.firstOutputLine(startingWith: "http"), "no URL; \(login.log)")
        try await Self.playBrowser(url)
        try #require(try await login.waitForExit() == 0, "\(login.log)")
    }
}

extension DaemonProcess {
    /// The first stdout line with `prefix`, polling until it appears or `timeout` passes.
    func firstOutputLine(startingWith prefix: String, timeout: Double = 30) async -> String? {
        guard let stdoutPath else { return nil }
        return await process.firstLine(in: stdoutPath, startingWith: prefix, timeout: .seconds(timeout))
    }
}
