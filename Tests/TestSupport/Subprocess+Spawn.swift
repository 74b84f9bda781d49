import Foundation
import SystemCalls

/// posix_spawn file actions and attributes for one `Subprocess`, freed in deinit.
final class SpawnActions {
    private var actions = posix_spawn_file_actions_t()
    private var attributes = posix_spawnattr_t()
    /// Descriptors the parent opened for the child only (a stdin pipe's read end).
    private var closeInParent: [Int32] = []

    init() throws(SubprocessError) {
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        // Its own process group (pgid = its pid): a signal to -pid reaches its grandchildren too.
        posix_spawnattr_setpgroup(&attributes, 0)
        // Default dispositions and an empty mask: the spawning thread may block SIGPIPE (I/O threads
        // do) or the process ignore it, and ignored or blocked signals would otherwise survive the exec.
        var signals = sigset_t()
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    }

    deinit {
        closeInParent.forEach { close($0) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }

    func open(_ descriptor: Int32, _ path: String, _ flags: Int32) {
        posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
    }

    func open(_ descriptor: Int32, _ output: Subprocess.Output) {
        switch output {
        case .null: open(descriptor, "/dev/null", O_WRONLY)
        case .file(let path): open(descriptor, path, O_WRONLY | O_CREAT | O_TRUNC)
        case .append(let path): open(descriptor, path, O_WRONLY | O_CREAT | O_APPEND)
        }
    }

    func duplicate(_ descriptor: Int32, to target: Int32, thenCloseInParent: Bool) {
        posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        if thenCloseInParent { closeInParent.append(descriptor) }
    }

    /// Closes every descriptor ≥ `lowest` in the child, whatever the test process has open.
    func closeDescriptors(from lowest: Int32) throws(SubprocessError) {
        let result = GNUCalls.addCloseFrom(&actions, lowest)
        guard result == 0 else { throw .system(call: "posix_spawn_file_actions_addclosefrom_np", errno: result) }
    }

    func changeDirectory(to directory: String) throws(SubprocessError) {
        let result = GNUCalls.addChangeDirectory(&actions, directory)
        guard result == 0 else { throw .system(call: "posix_spawn_file_actions_addchdir_np", errno: result) }
    }

    /// Spawns (PATH lookup when `executable` has no slash); nil `environment` inherits ours.
    func spawn(_ executable: String, arguments: [String], environment: [String: String]?) throws(SubprocessError) -> pid_t {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let spawn = executable.contains("/") ? posix_spawn : posix_spawnp
        let result =
            envp.map { spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw .spawnFailed(command: executable, errno: result) }
        return pid
    }

    /// A pipe with O_CLOEXEC on both ends, set atomically: a concurrent spawn elsewhere in the test
    /// process must not inherit the write end (its child would keep ours from ever reading EOF).
    static func makePipe() throws(SubprocessError) -> (read: Int32, write: Int32) {
        guard let fds = GNUCalls.closeOnExecPipe() else { throw .system(call: "pipe2", errno: errno) }
        return fds
    }
}
