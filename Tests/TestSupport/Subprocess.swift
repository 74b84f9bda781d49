import Foundation
import Synchronization
import SystemCalls

/// A child process for tests that can never hang the suite.
///
/// Why not Foundation's `Process`: on Linux its `waitUntilExit()` spins in a run loop (a full
/// `swift test` once hung there for 10+ minutes at 100 % CPU) and its single reaper thread can
/// block in `waitpid` when a child closes its inherited descriptors. So here:
/// - spawned with `posix_spawn(p)` in its **own process group** (pgid = pid), so signals reach
///   grandchildren such as the `python3` behind `/usr/bin/env`;
/// - every descriptor above 2 is closed in the child, so it never inherits a test's sockets or
///   another child's stdin pipe (which would keep a peer from ever seeing EOF);
/// - output goes to files (never a pipe nobody drains); stdin is /dev/null, a file, or a pipe the
///   test closes;
/// - `wait(timeout:)` polls `waitid(WNOHANG)` between short async sleeps, never blocking the
///   cooperative pool; when the leader has exited, whatever is left of its group is SIGKILLed
///   before the leader is reaped (its pid, hence the group id, cannot have been reused yet);
/// - `deinit` SIGKILLs the group if the leader is still running and reaps it on a plain thread.
public final class Subprocess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case null
        case file(String)
        /// A pipe whose write end the test holds; `closeStdin()` gives the child end of file.
        case pipe
    }

    /// Where a standard output stream of the child goes (files are created with mode 0600).
    public enum Output: Sendable {
        case null
        /// Created or truncated.
        case file(String)
        /// Created or appended to, keeping the inode (a log the test made first, JOURNAL_STREAM).
        case append(String)
    }

    public let pid: pid_t
    public let command: [String]
    private struct State {
        var exitStatus: Int32?
        var stdinWriter: Int32?
    }
    private let state: Mutex<State>

    /// Starts `command` (`command[0]` is looked up in PATH when it has no slash). `environment`
    /// nil inherits the test's environment; `directory` nil inherits its working directory.
    public init(
        _ command: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Input = .null, stdout: Output = .null, stderr: Output = .null
    ) throws(SubprocessError) {
        guard let executable = command.first else { throw .emptyCommand }
        self.command = command
        var writer: Int32?
        let spawned: pid_t
        do {
            let actions = try SpawnActions()
            switch stdin {
            case .null: actions.open(0, "/dev/null", O_RDONLY)
            case .file(let path): actions.open(0, path, O_RDONLY)
            case .pipe:
                let (read, write) = try SpawnActions.makePipe()
                writer = write
                actions.duplicate(read, to: 0, thenCloseInParent: true)
            }
            actions.open(1, stdout)
            actions.open(2, stderr)
            try actions.closeDescriptors(from: 3)
            if let directory { try actions.changeDirectory(to: directory) }
            spawned = try actions.spawn(executable, arguments: command, environment: environment)
        } catch {
            if let writer { Glibc.close(writer) }
            throw error
        }
        pid = spawned
        state = Mutex(State(exitStatus: nil, stdinWriter: writer))
    }

    deinit {
        closeStdin()
        guard poll() == nil else { return }
        Glibc.kill(-pid, SIGKILL)
        // The child is dying; reap it off the caller's thread (deinit may run on the cooperative pool).
        let pid = self.pid
        Thread.detachNewThread {
            var status: Int32 = 0
            _ = SystemCall.retryingInterrupts { waitpid(pid, &status, 0) }
        }
    }

    /// Whether the child (the group leader) has not exited yet.
    public var isRunning: Bool { poll() == nil }

    /// Closes the write end of the `.pipe` stdin (idempotent), so the child reads end of file.
    public func closeStdin() {
        let writer = state.withLock { state in
            defer { state.stdinWriter = nil }
            return state.stdinWriter
        }
        if let writer { Glibc.close(writer) }
    }

    /// Writes `text` to the `.pipe` stdin. Only for short input: a full pipe would block.
    public func writeToStdin(_ text: String) throws(SubprocessError) {
        let bytes = Array(text.utf8)
        try state.withLock { (state) throws(SubprocessError) in
            guard let writer = state.stdinWriter else { throw .stdinClosed }
            let failure = bytes.withUnsafeBytes { raw in
                SystemCall.writeAll(raw) { Glibc.write(writer, $0.baseAddress, $0.count) }
            }
            if let failure { throw .system(call: "write", errno: failure.code) }
        }
    }

    /// Sends `number` to the child's whole process group while the leader has not been reaped.
    public func signal(_ number: Int32) {
        state.withLock { state in
            if state.exitStatus == nil { _ = Glibc.kill(-pid, number) }
        }
    }

    /// The exit status (128 + N for signal N) if the child has exited, without waiting.
    public func poll() -> Int32? {
        state.withLock { state in
            if let status = state.exitStatus { return status }
            var info = siginfo_t()
            // WNOWAIT: look without reaping, so the group id stays ours while we kill leftovers.
            guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_signo == SIGCHLD else {
                return nil
            }
            Glibc.kill(-pid, SIGKILL)
            var raw: Int32 = 0
            _ = SystemCall.retryingInterrupts { waitpid(pid, &raw, 0) }
            let signal = raw & 0x7f
            state.exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            return state.exitStatus
        }
    }

    /// The exit status, or nil when the child is still running after `timeout`. Also returns
    /// (nil if running) as soon as the calling task is cancelled.
    public func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if let status = poll() { return status }
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: pause)) != nil else { return poll() }
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// SIGTERM to the group, then SIGKILL after `grace`; returns the exit status (128 + 9 when
    /// it had to be killed and even SIGKILL has not been reaped within 10 s).
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> Int32 {
        closeStdin()
        signal(SIGTERM)
        if let status = await wait(timeout: grace) { return status }
        signal(SIGKILL)
        return await wait(timeout: .seconds(10)) ?? 128 + SIGKILL
    }

    /// SIGKILL to the group now, without waiting (for `defer`, which cannot await): `deinit` or
    /// a later `wait` reaps it.
    public func kill() {
        closeStdin()
        signal(SIGKILL)
    }
}

/// Why a child process could not be started or run to completion.
public enum SubprocessError: Error, Sendable, CustomStringConvertible {
    case emptyCommand
    case spawnFailed(command: String, errno: Int32)
    case system(call: String, errno: Int32)
    case stdinClosed
    /// The child ran longer than allowed and was killed; its output so far helps to see why.
    case timedOut(command: [String], timeout: Duration, stdout: String, stderr: String)

    public var description: String {
        switch self {
        case .emptyCommand: "no command given to Subprocess"
        case .spawnFailed(let command, let code):
            "cannot start \(command): \(Errno(code)); check that it exists and is executable, "
                + "and that the directories of its stdin/stdout/stderr files and working directory exist"
        case .system(let call, let code): "\(call) failed: \(Errno(code))"
        case .stdinClosed: "the child's stdin is not an open pipe"
        case .timedOut(let command, let timeout, let stdout, let stderr):
            "\(command) did not exit within \(timeout); killed. stdout: \(stdout.suffix(2000)) stderr: \(stderr.suffix(2000))"
        }
    }
}
