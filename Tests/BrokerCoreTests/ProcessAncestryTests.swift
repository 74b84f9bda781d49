@testable import BrokerCore
import Foundation
import Testing
import TestSupport

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
        let orphan = try #require(Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(orphan, SIGKILL) }
        let ancestors = Array(ProcessAncestry(pid: orphan).prefix(3))
        #expect(!ancestors.contains("/usr/bin/dash") && !ancestors.contains("/usr/bin/bash"), "\(ancestors)")
    }
}
