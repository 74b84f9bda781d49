import BrokerCore
import Foundation
import TestSupport
import Testing

@testable import BrokerProcesses

/// `ProcessAncestry` against live processes: parent first, and nothing past a process that is gone
/// or was re-parented (fail closed).
@Suite struct ProcessAncestryTests {
    @Test func theFirstAncestorIsTheParentsExecutable() throws {
        let parent = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(getppid())/exe")
        #expect(Array(ProcessAncestry(pid: getpid()).prefix(1)) == [parent])
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let child = try Subprocess(["/bin/sleep", "30"])
        defer { child.kill() }
        #expect(Array(ProcessAncestry(pid: child.pid).prefix(2)) == [own, parent])
    }

    @Test func aGoneProcessHasNoAncestors() {
        #expect(Array(ProcessAncestry(pid: Int32.max)).isEmpty)
        #expect(Array(ProcessAncestry(pid: 0)).isEmpty)
        #expect(Array(ProcessAncestry(pid: 1)).isEmpty)  // its parent is pid 0: the walk stops
    }

    /// A shell that started a background sleep and exited: the sleep is re-parented, and its
    /// ancestry never names the shell (or whatever took the shell's pid).
    @Test func anOrphanIsNotAttributedToItsFormerParent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.appending("pid")
        let shell = try Subprocess(["/bin/sh", "-c", "/bin/sleep 30 & echo $! > '\(pidFile)'"])
        _ = await shell.wait(timeout: .seconds(20))
        let orphan = try #require(
            Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(orphan, SIGKILL) }
        let ancestors = Array(ProcessAncestry(pid: orphan).prefix(3))
        #expect(!ancestors.contains("/usr/bin/dash") && !ancestors.contains("/usr/bin/bash"), "\(ancestors)")
    }

    /// An ancestor running a file bind-mounted over a path in its own namespace (`unshare -Urm`):
    /// `/proc/PID/exe` names the path, but the file at that path is another one, so the ancestor
    /// is marked, never named by the path.
    @Test(
        .enabled(
            if: (try? Subprocess.runBlocking(["/usr/bin/unshare", "-Urm", "/bin/true"]))?.status == 0,
            "needs unshare (util-linux) and unprivileged user namespaces"))
    func anAncestorRunningABindMountedFileIsNotNamedByItsPath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (pidFile, impostor) = (directory.appending("pid"), directory.appending("impostor"))
        try ProductBinary.copyExecutable("/usr/bin/dash", to: impostor)
        let script =
            "mount --bind '\(impostor)' /usr/bin/bash && exec /usr/bin/bash -c '/bin/sleep 30 & echo $! > \(pidFile); wait'"
        let shell = try Subprocess(["/usr/bin/unshare", "-Urm", "/bin/sh", "-c", script])
        defer { shell.kill() }
        var child: Int32?
        for _ in 0..<400 where child == nil {
            child = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if child == nil { try await Task.sleep(for: .milliseconds(25)) }
        }
        let sleeper = try #require(child, "the shell in the namespace did not start its child")
        defer { kill(sleeper, SIGKILL) }
        #expect(Array(ProcessAncestry(pid: sleeper).prefix(1)) == ["/usr/bin/bash (not the file at this path)"])
    }
}
