import Foundation
import Testing
import TestSupport

@testable import BrokerCore

/// The notify hook runs the user's shell command: it must not inherit the daemon's descriptors.
@Test func notifyHookDoesNotInheritDescriptors() throws {
    let directory = try TemporaryDirectory(prefix: "notify-fds")
    defer { directory.remove() }
    let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC, like an fd handed over by systemd
    try #require(leaked > 2)
    defer { close(leaked) }
    let output = directory.appending("fds")
    let status = NotifyHook.run(["/bin/sh", "-c", "ls /proc/$$/fd > '\(output)'"], environment: ["PATH": "/usr/bin:/bin"])
    #expect(status == 0)
    let listed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
    #expect(listed.contains(0) && listed.contains(1))
    #expect(!listed.contains(leaked), "the hook saw descriptors \(listed)")
}
