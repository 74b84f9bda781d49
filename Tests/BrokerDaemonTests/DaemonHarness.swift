import BrokerProtocol
import BrokerStore
import Foundation
import TestSupport
import Testing

/// A temporary home for one daemon: XDG directories, a private runtime directory, the socket path,
/// and helpers to run the real `authbrokerd` and `authctl` built next to the test bundle.
struct DaemonHarness {
    let directory: TemporaryDirectory
    var root: String { directory.path }
    var runtime: String { root + "/run" }
    var socket: String { runtime + "/authbroker.sock" }
    var stateDirectory: String { root + "/state" }
    var database: String { stateDirectory + "/tokens.db" }
    var configHome: String { root + "/config" }
    var defaultKeyFile: String { configHome + "/authbroker/master.key" }

    init() throws {
        directory = try TemporaryDirectory(prefix: "authbrokerd-test")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    func remove() { directory.remove() }

    /// A package executable (`authbrokerd`, `authctl`) from the products directory.
    static func binary(_ name: String) throws -> String { try ProductBinary.path(name) }

    /// A minimal environment pointing every XDG directory into the temporary root.
    var environment: [String: String] {
        [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": root, "XDG_RUNTIME_DIR": runtime,
            "XDG_STATE_HOME": root + "/xdg-state", "XDG_CONFIG_HOME": configHome,
        ]
    }

    /// Default daemon arguments: the socket and state directory of this harness.
    var daemonArguments: [String] { ["--socket", socket, "--state-dir", stateDirectory] }

    /// Starts `authbrokerd` (optionally through `prefix`, e.g. setpriv); stderr goes to a file.
    func launch(
        _ arguments: [String]? = nil, environment extra: [String: String] = [:], prefix: [String] = [],
        notify: NotifyListener? = nil, name: String = "daemon"
    ) throws -> DaemonProcess {
        var environment = environment
        environment.merge(extra) { $1 }
        if let notify { environment["NOTIFY_SOCKET"] = notify.address }
        let command = prefix + [try Self.binary("authbrokerd")] + (arguments ?? daemonArguments)
        return try DaemonProcess(command: command, environment: environment, logPath: root + "/\(name).log")
    }

    /// Creates the log file of the daemon `launch(name:)` will start and returns its "DEVICE:INODE",
    /// the `JOURNAL_STREAM` systemd would set when that file is the service's stderr.
    func journalStream(name: String) throws -> String {
        let path = root + "/\(name).log"
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        var info = stat()
        try #require(stat(path, &info) == 0)
        return "\(info.st_dev):\(info.st_ino)"
    }

    /// Runs a command to completion (bounded), capturing stdout and stderr.
    func run(_ command: [String], environment extra: [String: String] = [:], timeout: Double = 30) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        var environment = environment
        environment.merge(extra) { $1 }
        let name = "run-\(UInt32.random(in: 0...UInt32.max))"
        let process = try DaemonProcess(
            command: command, environment: environment, logPath: root + "/\(name).err", stdoutPath: root + "/\(name).out")
        let status = try await process.waitForExit(timeout: timeout)
        return (status, process.output, process.log)
    }

    /// `authctl --socket SOCKET ARGS…`.
    func authctl(_ arguments: [String], prefix: [String] = []) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await run(prefix + [try Self.binary("authctl"), "--socket", socket] + arguments)
    }

    /// One raw `GET target` (or `method` with a JSON `body`) on the daemon's socket from this
    /// process (no client-side checks); the whole answer as text. Blocking socket calls run on
    /// their own thread.
    func rawRequest(_ target: String, method: String = "GET", body: String? = nil) async throws -> String {
        let socket = socket
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try Self.blockingRequest(socket: socket, target: target, method: method, body: body)
                    })
            }.start()
        }
    }

    private static func blockingRequest(socket path: String, target: String, method: String, body: String?) throws -> String {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard withUnixAddress(path, { connect(fd, $0, $1) }) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let content = body.map { "Content-Type: application/json\r\nContent-Length: \($0.utf8.count)\r\n\r\n" + $0 } ?? "\r\n"
        let request = Array("\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\(content)".utf8)
        // A refused peer is answered and closed at accept: the send may fail after the answer came.
        _ = send(fd, request, request.count, Int32(MSG_NOSIGNAL))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// A fresh key file (0600) at `path`.
    @discardableResult
    func makeKey(at path: String) throws -> String {
        _ = try KeyFile.generate(at: path)
        return path
    }

    /// A vault keyed with `keyFile` holding one account, as a previous daemon would have left it.
    func seedVault(keyFile: String, account: String) throws {
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let vault = try Vault.open(databasePath: database, keySource: .keyFile(path: keyFile))
        _ = try vault.addAccount(
            AccountConfiguration(name: account, issuer: "https://idp.example", clientID: "cli"),
            owner: getuid(), now: Date().timeIntervalSince1970)
    }
}

/// A child process with stderr (and optionally stdout) in files, stopped by the test: a thin
/// wrapper over TestSupport's `Subprocess` (own process group, bounded waits, killed on deinit).
final class DaemonProcess {
    let process: Subprocess
    var pid: pid_t { process.pid }
    let logPath: String
    let stdoutPath: String?

    init(command: [String], environment: [String: String], logPath: String, stdoutPath: String? = nil) throws {
        self.logPath = logPath
        self.stdoutPath = stdoutPath
        // Appending without truncating: a log file created by the test keeps its inode (JOURNAL_STREAM).
        process = try Subprocess(
            command, environment: environment, stdout: stdoutPath.map { .append($0) } ?? .null, stderr: .append(logPath))
    }

    var log: String { Subprocess.readText(logPath) }
    var output: String { stdoutPath.map(Subprocess.readText) ?? "" }

    func signal(_ number: Int32) { process.signal(number) }

    /// The exit status, waiting at most `timeout` seconds; a child still running then is killed
    /// and the test fails.
    @discardableResult
    func waitForExit(timeout: Double = 30) async throws -> Int32 {
        if let status = await process.wait(timeout: .seconds(timeout)) { return status }
        Issue.record("process \(pid) did not exit within \(timeout) s; killed")
        return await process.terminate(grace: .zero)
    }

    /// SIGTERM, then the exit status.
    func stop(timeout: Double = 30) async throws -> Int32 {
        signal(SIGTERM)
        return try await waitForExit(timeout: timeout)
    }
}
