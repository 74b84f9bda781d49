import CGNU
import Glibc

/// The glibc extensions this project uses (glibc ≥ 2.34), declared by the CGNU shim.
public enum GNUCalls {
    /// Adds "close every descriptor ≥ `lowest`" to `actions`: a child must not inherit what this
    /// process has open (sockets, the vault, a pipe whose reader waits for end of input). Returns
    /// 0 or the error number.
    public static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
        posix_spawn_file_actions_addclosefrom_np(actions, lowest)
    }

    /// Adds "change to `directory`" to `actions`; 0 or the error number.
    public static func addChangeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ directory: String)
        -> Int32
    {
        posix_spawn_file_actions_addchdir_np(actions, directory)
    }

    /// A pipe with close-on-exec set on both ends atomically: a child another thread spawns
    /// between `pipe` and `fcntl` would otherwise keep the write end open, and the reader would
    /// never see the end of input. nil with errno set on failure.
    public static func closeOnExecPipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC) == 0 else { return nil }
        return (fds[0], fds[1])
    }
}
