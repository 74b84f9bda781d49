import Foundation
import TestSupport
import Testing

/// `authbrokerd` with its state directory on a small tmpfs that the test fills: a refreshed token
/// that cannot be saved is kept, served, shown as `storage_failed`, notified, saved once there is
/// room again, and still there after a restart.
@Suite(.enabled(if: TinyFilesystem.canMount, "needs root to mount a tmpfs"))
struct FullDiskTests {
    @Test(.timeLimit(.minutes(1)))
    func aTokenThatCannotBeSavedIsKeptShownRetriedAndSurvivesARestart() async throws {
        let disk = try #require(TinyFilesystem.mount(kilobytes: 4096))
        defer { disk.unmount() }
        let harness = try BrokerHarness()
        let provider = try await MockProviderProcess(directory: harness.root, configuration: #"{"accessTokenLifetime": 30}"#)
        let notes = harness.root + "/notifications"
        let daemonArguments = [
            "--state-dir", disk.path, "--notify-command", #"echo "$AUTHBROKER_ACCOUNT: $AUTHBROKER_REASON" >> "# + notes,
        ]
        try await harness.startDaemon(daemonArguments)
        try await harness.signIn("work", provider: provider)
        let first = try await harness.token("work")
        try await Task.sleep(for: .seconds(3.2))  // past the first 10 % of the lifetime

        try disk.fill()
        let refreshed = try await harness.token("work", ["--min-ttl", "3600"])
        #expect(refreshed != first, "the refreshed token was not served from memory")
        let failing = try await harness.authctl(["status", "work", "--json"])
        #expect(failing.stdout.contains(#""storage_failed""#), "\(failing)")
        let notified = await SpawnedProcess.eventually(timeout: 10) {
            ((try? String(contentsOfFile: notes, encoding: .utf8)) ?? "").contains("work: the new tokens cannot be saved")
        }
        #expect(notified, "the notify hook did not run:\n\(harness.daemonLog)")
        #expect(harness.daemonLog.contains("cannot store the new tokens"))

        disk.free()
        let saved = try await SpawnedProcess.eventually(timeout: 20) {
            try await !harness.authctl(["status", "work", "--json"]).stdout.contains("storage_failed")
        }
        #expect(saved, "the tokens were not saved again:\n\(harness.daemonLog)")
        #expect(harness.daemonLog.contains("the tokens are saved again"))
        #expect(await harness.stopDaemon() == 0)

        try await harness.startDaemon(daemonArguments)
        #expect(try await harness.token("work") == refreshed, "the login was lost:\n\(harness.daemonLog)")
        try await Task.sleep(for: .seconds(3.2))
        let next = try await harness.token("work", ["--min-ttl", "3600"])
        #expect(try await provider.accepts(next))
        let stats = try await provider.stats
        #expect(stats.familyRevocations == 0 && stats.refreshes == 2, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }
}
