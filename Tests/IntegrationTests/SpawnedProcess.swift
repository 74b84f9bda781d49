import Foundation
import Testing

/// A child process with stdout and stderr in files, bounded by the test and killed in `deinit`
/// (so a failing test never leaves it running).
///
/// posix_spawn + waitpid(WNOHANG), never Foundation's `Process`: on Linux its waitUntilExit
/// busy-loops, and a child that closes inherited descriptors (systemd-socket-activate) blocks its
/// single reaper thread. Until TestSupport has a shared runner, this one serves IntegrationTests.
final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: `exitStatus` is only touched by the one test task that owns the process.
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    /// The write end of the child's stdin pipe (children that exit at end of input, like the mock
    /// provider, then die with the test process); -1 when stdin is /dev/null.
    private var stdinWriter: Int32 = -1
    private var exitStatus: Int32?

    init(
        _ command: [String], environment: [String: String], stdoutPath: String, stderrPath: String,
        keepStdinOpen: Bool = false, stdinPath: String = "/dev/null"
    ) throws {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if keepStdinOpen {
            guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EMFILE) }
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Last (after the dup2 above): tests run in parallel in one process, and without this a
        // child inherits whatever descriptors other tests have open at that moment (another
        // child's stdin pipe, a file being written), keeping pipes from reaching end-of-file and
        // executables "busy" (ETXTBSY).
        _ = Self.closeFrom3?(&actions, 3)
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        if keepStdinOpen { close(pipeEnds[0]) }
        guard result == 0 else {
            if keepStdinOpen { close(pipeEnds[1]) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        self.pid = pid
        stdinWriter = keepStdinOpen ? pipeEnds[1] : -1
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: the
    /// Glibc module does not import the `_np` spawn functions.
    private static let closeFrom3: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    var isRunning: Bool { poll() == nil }

    func signal(_ number: Int32) {
        if poll() == nil { kill(pid, number) }
    }

    /// The exit status (128 + N after signal N) if the child has ended, without waiting.
    @discardableResult
    private func poll() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7f
        exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return exitStatus
    }

    /// The exit status, waiting at most `timeout` seconds; a child still running then is killed
    /// and the test fails.
    @discardableResult
    func waitForExit(timeout: Double = 30) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if let status = poll() { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("process \(pid) did not exit within \(timeout) s; killed")
        return reap(signal: SIGKILL)
    }

    /// SIGTERM (or `signal`), then the exit status.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM, timeout: Double = 30) async -> Int32 {
        closeStdin()
        signal(number)
        return await waitForExit(timeout: timeout)
    }

    /// Synchronous stop for `defer` blocks: closes stdin, sends `signal`, polls for the exit for at
    /// most `timeout` seconds (short sleeps, never an unbounded wait), then SIGKILLs.
    func stopNow(signal number: Int32 = SIGTERM, timeout: Double = 5) {
        closeStdin()
        signal(number)
        let deadline = Date().addingTimeInterval(timeout)
        while poll() == nil, deadline.timeIntervalSinceNow > 0 { usleep(5_000) }
        _ = reap(signal: SIGKILL)
    }

    func closeStdin() {
        if stdinWriter >= 0 { close(stdinWriter) }
        stdinWriter = -1
    }

    private func reap(signal number: Int32) -> Int32 {
        if let exitStatus { return exitStatus }
        kill(pid, number)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = 128 + number
        return 128 + number
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass.
    static func eventually(timeout: Double = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        } while deadline.timeIntervalSinceNow > 0
        return false
    }

    deinit {
        closeStdin()
        _ = reap(signal: SIGKILL)
    }
}
