@preconcurrency import Glibc
import SystemCalls

/// A child process that runs beside authctl with stdin, stdout and stderr on /dev/null (a browser,
/// notify-send): its output cannot garble ours and it cannot read what the user types.
struct DetachedChild {
    let pid: pid_t

    /// Starts `argv` (`argv[0]` searched on PATH). `ownProcessGroup`: keep the terminal's Ctrl-C,
    /// meant for `authctl login`'s wait, from also killing a browser it started. nil when the
    /// program could not be started (not found, not executable).
    static func spawn(_ argv: [String], ownProcessGroup: Bool = false) -> DetachedChild? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        // A browser may outlive us by hours: it must hold none of our descriptors.
        _ = GNUCalls.addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        let words: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { words.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, argv[0], &actions, &attributes, words, environ) == 0 else { return nil }
        return DetachedChild(pid: pid)
    }

    /// The exit status once the child has ended (128 + N after signal N), reaping it; nil while it
    /// runs. Never blocks.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        guard SystemCall.retryingInterrupts({ waitpid(pid, &status, WNOHANG) }) == pid else { return nil }
        return Self.decode(waitStatus: status)
    }

    /// WIFEXITED/WEXITSTATUS/WTERMSIG are macros Swift does not import: decoded by hand.
    static func decode(waitStatus status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
