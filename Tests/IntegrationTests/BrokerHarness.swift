import Foundation
import TestSupport
import Testing

/// One user's authbroker for an end-to-end test: temporary XDG directories, a socket in a private
/// runtime directory, the real `authbrokerd` (started, restarted, killed) and `authctl` runs
/// bounded in time. Every process it starts dies with it (`SpawnedProcess.deinit`).
final class BrokerHarness: @unchecked Sendable {
    // @unchecked: `daemon` is replaced only by the one test task that owns the harness.
    let directory: TemporaryDirectory
    var root: String { directory.path }
    var runtime: String { root + "/run" }
    /// `run/authbroker.sock`, passed with `--socket`; or, for a harness made with
    /// `defaultSocket: true`, `run/authbroker/authbroker.sock`, the default both binaries derive from
    /// XDG_RUNTIME_DIR — where programs the desktop launches (`authctl callback`) look for it.
    let socket: String
    private let defaultSocket: Bool
    private(set) var daemon: SpawnedProcess?
    private var daemonLogs: [String] = []

    /// What one `authctl` run did.
    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var pid: pid_t
        var line: String { stdout.trimmingCharacters(in: .newlines) }
        var description: String { "exit \(status); stdout: \(stdout); stderr: \(stderr)" }
    }

    init(defaultSocket: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: "authbroker-e2e")
        self.defaultSocket = defaultSocket
        socket = directory.path + (defaultSocket ? "/run/authbroker/authbroker.sock" : "/run/authbroker.sock")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    deinit {
        daemon = nil  // SIGKILLs it if still running
        directory.remove()
    }

    /// Every XDG directory inside the temporary root; nothing inherited from the test's environment.
    var environment: [String: String] {
        [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": root, "XDG_RUNTIME_DIR": runtime,
            "XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config",
        ]
    }

    static func binary(_ name: String) throws -> String { try ProductBinary.path(name) }

    /// A harness with a running daemon, and a spawned mock provider with `configuration` (knobs JSON).
    static func withDaemon(provider configuration: String = "{}", defaultSocket: Bool = false) async throws
        -> (BrokerHarness, MockProviderProcess)
    {
        let harness = try BrokerHarness(defaultSocket: defaultSocket)
        let provider = try await MockProviderProcess(directory: harness.root, configuration: configuration)
        try await harness.startDaemon()
        return (harness, provider)
    }

    /// Everything every daemon of this harness wrote to stderr, oldest first.
    var daemonLog: String {
        (daemonLogs.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }).joined(separator: "\n--- restart ---\n")
    }

    // MARK: the daemon

    /// Starts `authbrokerd --socket SOCKET` (no `--socket` for the default socket) plus `arguments`
    /// and waits until `authctl ping` answers.
    func startDaemon(_ arguments: [String] = [], timeout: Double = 60) async throws {
        let log = root + "/daemon-\(daemonLogs.count).log"
        daemonLogs.append(log)
        let socketArguments = defaultSocket ? [] : ["--socket", socket]
        let process = try SpawnedProcess(
            [try Self.binary("authbrokerd")] + socketArguments + arguments, environment: environment,
            stdoutPath: log, stderrPath: log)
        daemon = process
        try await waitUntilServing(process, timeout: timeout)
    }

    /// Waits until `authctl ping` succeeds, or throws when `process` died or time ran out.
    func waitUntilServing(_ process: SpawnedProcess, timeout: Double = 60) async throws {
        let serving = await SpawnedProcess.eventually(timeout: timeout) {
            guard process.isRunning else { return true }
            return (try? await authctl(["ping"], timeout: 5).status) == 0
        }
        guard serving, process.isRunning else { throw HarnessError.notReady("authbrokerd", daemonLog) }
    }

    /// Stops the daemon with `signal` (SIGTERM: gracefully) and returns its exit status.
    @discardableResult
    func stopDaemon(signal: Int32 = SIGTERM) async -> Int32? {
        guard let daemon else { return nil }
        defer { self.daemon = nil }
        return await daemon.stop(signal: signal)
    }

    // MARK: authctl

    /// `authctl --socket SOCKET ARGS…` (through `prefix`, e.g. setpriv), bounded by `timeout`.
    func authctl(
        _ arguments: [String], prefix: [String] = [], authctlPath: String? = nil, timeout: Double = 30
    ) async throws -> Run {
        let process = try spawnAuthctl(arguments, prefix: prefix, authctlPath: authctlPath)
        let status = await process.waitForExit(timeout: timeout)
        return Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
    }

    /// `authctl --socket SOCKET ARGS…` as `user` (nil: the test's own user).
    func authctl(_ arguments: [String], as user: OtherUser?) async throws -> Run {
        try await authctl(arguments, prefix: user?.prefix ?? [], authctlPath: user?.authctlPath)
    }

    /// `authctl --socket SOCKET ARGS…` left running (e.g. a login the test answers as the browser).
    func spawnAuthctl(_ arguments: [String], prefix: [String] = [], authctlPath: String? = nil) throws -> SpawnedProcess {
        let name = root + "/authctl-\(UInt64.random(in: 0...UInt64.max))"
        let command = prefix + [try authctlPath ?? Self.binary("authctl"), "--socket", socket] + arguments
        return try SpawnedProcess(command, environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
    }

    /// `authctl account add NAME` for the mock provider's public client, offline_access included.
    /// `user`: run as another user (the prefix and binary of `OtherUser.authctl`).
    func addAccount(_ name: String, provider: MockProviderProcess, as user: OtherUser? = nil) async throws {
        let add = try await authctl(
            [
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client",
                "--scope", "openid", "--scope", "offline_access",
            ], as: user)
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(daemonLog)") }
    }

    /// `authctl login NAME --no-browser` with the test as the browser; returns the finished run.
    func login(_ name: String, provider: MockProviderProcess, timeout: Int = 30, as user: OtherUser? = nil) async throws
        -> Run
    {
        let login = try spawnAuthctl(
            ["login", name, "--no-browser", "--timeout", "\(timeout)"], prefix: user?.prefix ?? [],
            authctlPath: user?.authctlPath)
        let url = try await authorizationURL(printedBy: login)
        _ = try await provider.playBrowser(url)
        let status = await login.waitForExit(timeout: Double(timeout) + 10)
        return Run(status: status, stdout: login.stdout, stderr: login.stderr, pid: login.pid)
    }

    /// The authorization URL a running `authctl login` printed alone on its own line.
    func authorizationURL(printedBy login: SpawnedProcess, timeout: Double = 20) async throws -> String {
        var url: String?
        _ = await SpawnedProcess.eventually(timeout: timeout) {
            url = login.stdout.split(separator: "\n").first { $0.hasPrefix("http") }.map(String.init)
            return url != nil || !login.isRunning
        }
        guard let url else { throw HarnessError.unexpected("no authorization URL; \(login.stderr)\n\(daemonLog)") }
        return url
    }

    /// Adds `name` at the mock and signs in; the test fails with the logs when either step does.
    func signIn(_ name: String, provider: MockProviderProcess, as user: OtherUser? = nil) async throws {
        try await addAccount(name, provider: provider, as: user)
        let login = try await login(name, provider: provider, as: user)
        guard login.status == 0 else { throw HarnessError.unexpected("login: \(login)\n\(daemonLog)") }
    }

    /// `authctl token NAME [ARGS…]`, requiring success and exactly one line on stdout.
    func token(_ name: String, _ arguments: [String] = [], as user: OtherUser? = nil) async throws -> String {
        let run = try await authctl(["token", name] + arguments, as: user)
        guard run.status == 0, run.stdout == run.line + "\n", !run.line.isEmpty else {
            throw HarnessError.unexpected("token \(name): \(run)\n\(daemonLog)")
        }
        return run.line
    }
}
