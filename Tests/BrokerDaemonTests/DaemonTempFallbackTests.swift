import Foundation
import TestSupport
import Testing

/// Without XDG_RUNTIME_DIR both binaries use `$TMPDIR/authbroker-UID/`, which another user may
/// have made first: each opens it by descriptor, checks that descriptor, and binds or connects
/// through it (`/proc/self/fd/N/authbroker.sock`).
@Suite struct DaemonTempFallbackTests {
    @Test(.timeLimit(.minutes(1)))
    func theTempFallbackDirectoryIsCheckedAndUsedByDescriptorOnBothSides() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let temporary = harness.root + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        let fallback = temporary + "/authbroker-\(getuid())"
        let environment = ["XDG_RUNTIME_DIR": "", "TMPDIR": temporary]
        let authctl = try DaemonHarness.binary("authctl")

        let notify = try NotifyListener()
        let daemon = try harness.launch(["--state-dir", harness.stateDirectory], environment: environment, notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        #expect(daemon.log.contains("on \(fallback)/authbroker.sock"), "\(daemon.log)")
        var info = stat()
        #expect(lstat(fallback, &info) == 0 && info.st_mode & 0o7777 == 0o700)
        let ping = try await harness.run([authctl, "ping"], environment: environment)
        #expect(ping.status == 0, "\(ping)")
        #expect(try await daemon.stop() == 0)

        chmod(fallback, 0o755)
        let refused = try await harness.run([authctl, "ping"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("'\(fallback)' has mode 755; run: chmod 700 '\(fallback)'"), "\(refused)")
        let second = try harness.launch(["--state-dir", harness.stateDirectory], environment: environment, name: "second")
        #expect(try await second.waitForExit() == 1)
        #expect(second.log.contains("'\(fallback)' has mode 755; run: chmod 700 '\(fallback)'"), "\(second.log)")
    }
}
