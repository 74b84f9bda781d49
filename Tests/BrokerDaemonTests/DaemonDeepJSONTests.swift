import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing

/// The real daemon against a provider that answers 10,000 nested arrays or objects: every such
/// answer ends in a clear per-account error and the daemon keeps answering (`authctl ping`).
/// Before the nesting gate, the token answer at login killed authbrokerd with SIGSEGV.
@Suite struct DaemonDeepJSONTests {
    static let limitText = "nests JSON deeper than 64 levels"

    @Test(arguments: [MockFault.Kind.deepArrays, .deepObjects])
    func deepProviderAnswersAreClearErrorsAndTheDaemonSurvives(_ kind: MockFault.Kind) async throws {
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try await Self.readyDaemon(harness)

        // Discovery: adding the account fails and says why.
        provider.configure { $0.faults["discovery"] = MockFault(kind, remaining: 1) }
        let add = ["account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid"]
        let refused = try await harness.authctl(add)
        #expect(refused.status != 0 && refused.stderr.contains("the metadata document \(Self.limitText)"), "\(refused.stderr)")
        try #require(try await harness.authctl(add).status == 0)

        // Token answer and JWKS at login: the browser and authctl see the reason.
        for endpoint in ["token", "jwks"] {
            provider.configure { $0.faults[endpoint] = MockFault(kind, remaining: 1) }
            let failure: String
            do {
                failure = try await failedLogin(harness, account: "work", name: endpoint)
            } catch {
                Issue.record("\(endpoint): \(error)\n\(daemon.log)")
                continue
            }
            #expect(failure.contains(Self.limitText), "\(endpoint): \(failure)\n\(daemon.log)")
            #expect(try await harness.authctl(["ping"]).status == 0, "\(endpoint): the daemon stopped answering")
        }

        // Userinfo is optional at login (the subject comes from the ID token): the login works.
        // Tokens live 5 s, so the broker's own scheduler refreshes within 2.5 s.
        provider.configure {
            $0.faults["userinfo"] = MockFault(kind, remaining: 1)
            $0.accessTokenLifetime = 5
        }
        try await harness.login("work")

        // Refresh: a transient failure recorded on the account; the daemon keeps serving.
        provider.configure { $0.faults["token"] = MockFault(kind) }
        let lastError = try await Self.lastError(harness, account: "work") { $0.contains(Self.limitText) }
        #expect(lastError?.contains(Self.limitText) == true, "\(lastError ?? "no error")\n\(daemon.log)")
        #expect(try await harness.authctl(["ping"]).status == 0)
        provider.configure { $0.faults["token"] = nil }

        // Device authorization answer.
        provider.configure { $0.faults["device"] = MockFault(kind, remaining: 1) }
        let device = try await harness.authctl(["login", "work", "--device", "--timeout", "10"])
        #expect(device.status != 0 && device.stderr.contains(Self.limitText), "\(device.stderr)")

        #expect(try await daemon.stop() == 0, "\(daemon.log)")
        await provider.stop()
    }

    /// A socket request body nested 10,000 deep is a 400 naming the limit, and the daemon goes on.
    @Test(arguments: ["arrays", "objects"])
    func deepSocketBodiesAreRefused(_ shape: String) async throws {
        let body = shape == "arrays" ? DeepJSON.arrays() : DeepJSON.objects()
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try await Self.readyDaemon(harness)
        let error = await Self.onThread { [socket = harness.socket] () -> BrokerClientError? in
            do throws(BrokerClientError) {
                _ = try BrokerClient(socketPath: socket).exchange(method: "POST", path: "/v1/accounts", body: body, timeout: 20)
                return nil
            } catch {
                return error
            }
        }
        guard case .api(let wire)? = error else {
            Issue.record("expected an API error, got \(String(describing: error))")
            return
        }
        #expect(wire.code == .invalidRequest && wire.message.contains("nests deeper than 64 levels"), "\(wire)")
        #expect(try await harness.authctl(["ping"]).status == 0)
        #expect(try await daemon.stop() == 0, "\(daemon.log)")
    }

    /// A daemon on `harness` that has said READY=1.
    static func readyDaemon(_ harness: DaemonHarness) async throws -> DaemonProcess {
        let notify = try NotifyListener()
        let daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        return daemon
    }

    /// `authctl login` whose browser round trip ends in a failure: the page and authctl's error text.
    private func failedLogin(_ harness: DaemonHarness, account: String, name: String) async throws -> String {
        let login = try DaemonProcess(
            command: [
                try DaemonHarness.binary("authctl"), "--socket", harness.socket, "login", account, "--no-browser", "--timeout",
                "60",
            ],
            environment: harness.environment, logPath: harness.root + "/login-\(name).err",
            stdoutPath: harness.root + "/login-\(name).out")
        let url = try #require(await login.firstOutputLine(startingWith: "http"), "no URL; \(login.log)")
        let browser = try HTTPClient(
            configuration: HTTPClientConfiguration(totalTimeout: .seconds(15), maxIdleConnectionsPerHost: 0))
        let answer = try await browser.send(HTTPClientRequest(url: url))
        let location = try #require(answer.headers["Location"])
        let page = try await browser.send(HTTPClientRequest(url: location))
        #expect(page.status == 400)
        #expect(try await login.waitForExit() != 0)
        return String(decoding: page.body, as: UTF8.self) + "\n" + login.log
    }

    /// The account's last error once `done` accepts it, polling the socket API for at most 20 s.
    static func lastError(_ harness: DaemonHarness, account: String, until done: (String) -> Bool) async throws -> String? {
        var message: String?
        for _ in 0..<200 {
            message = try await onThread { [socket = harness.socket] in
                try BrokerClient(socketPath: socket).call(.account(account)).lastError?.message
            }
            if let message, done(message) { return message }
            try await Task.sleep(for: .milliseconds(100))
        }
        return message
    }

    /// Runs a blocking socket call on its own thread, never on the cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
