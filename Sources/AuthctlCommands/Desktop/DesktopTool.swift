@preconcurrency import Glibc
import SystemCalls

/// Runs one of the desktop's command-line tools (`update-desktop-database`, `xdg-mime`) found on
/// PATH, with stdin and stderr on /dev/null, and returns its exit status and stdout (first 4 KiB).
/// Bounded in time: a tool that has not finished after `timeout` seconds is killed, so a broken
/// desktop cannot hang `authctl login`.
enum DesktopTool {
    struct Result: Equatable {
        var status: Int32
        var output: String
    }

    /// nil when the tool is not installed (or could not be started).
    static func run(_ argv: [String], timeout: Int32 = 10) -> Result? {
        guard let (readEnd, writeEnd) = GNUCalls.closeOnExecPipe() else { return nil }
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        _ = GNUCalls.addCloseFrom(&actions, 3)
        var pid: pid_t = 0
        let words: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { words.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, words, environ)
        close(writeEnd)
        guard spawned == 0 else { return nil }
        let output = readOutput(readEnd, until: time(nil) + Int(timeout))
        if output == nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        _ = SystemCall.retryingInterrupts { waitpid(pid, &status, 0) }
        let exitStatus = DetachedChild.decode(waitStatus: status)
        return Result(status: output == nil ? 128 + SIGKILL : exitStatus, output: output ?? "")
    }

    /// Reads until end of file (the child closed stdout), nil at the deadline.
    private static func readOutput(_ fd: Int32, until deadline: Int) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - time(nil)
            guard left > 0 else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = SystemCall.retryingInterrupts { read(fd, &buffer, buffer.count) }
            guard count > 0 else { return String(decoding: bytes, as: UTF8.self) }
            if bytes.count < 4096 { bytes += buffer[0..<min(count, 4096 - bytes.count)] }
        }
    }
}
