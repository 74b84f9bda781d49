import Foundation
import TestSupport
import Testing

@testable import BrokerProcesses

/// The notify hook runs the user's shell command: it must not inherit the daemon's descriptors.
@Test func notifyHookDoesNotInheritDescriptors() throws {
    let directory = try TemporaryDirectory(prefix: "notify-fds")
    defer { directory.remove() }
    let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC, like an fd handed over by systemd
    try #require(leaked > 2)
    defer { close(leaked) }
    let output = directory.appending("fds")
    let status = HookProcess.run(["/bin/sh", "-c", "ls /proc/$$/fd > '\(output)'"], environment: ["PATH": "/usr/bin:/bin"])
    #expect(status == 0)
    let listed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
    #expect(listed.contains(0) && listed.contains(1))
    #expect(!listed.contains(leaked), "the hook saw descriptors \(listed)")
}

/// Nor the daemon's signal state: a hook runs with no signal blocked and none ignored, whatever
/// the spawning thread blocks and the daemon ignores (SIGPIPE, and the signals it watches).
@Test func notifyHookStartsWithDefaultSignals() throws {
    let directory = try TemporaryDirectory(prefix: "notify-signals")
    defer { directory.remove() }
    let output = directory.appending("status")
    let previous = signal(SIGHUP, SIG_IGN)
    defer { signal(SIGHUP, previous) }
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGUSR1)
    var before = sigset_t()
    pthread_sigmask(SIG_BLOCK, &blocked, &before)
    defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
    let status = HookProcess.run(
        ["/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status > '\(output)'"], environment: ["PATH": "/usr/bin:/bin"])
    #expect(status == 0)
    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2)
    for line in lines {
        // The standard signals 1…31 (bits 0…30); glibc keeps 32 and 33 for itself.
        let mask = line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }
        #expect(mask.map { $0 & 0x7FFF_FFFF } == 0, "the hook's \(line)")
    }
}
