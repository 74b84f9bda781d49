import Foundation
import TestSupport
import Testing

/// `--allow-exe` and `--confirm` end to end (docs/guide.md and docs/security.md, "Caller policy"):
/// the real daemon and authctl against the mock. /proc/PID/exe resolves symlinks, so the allowed
/// program is the real authctl binary and the refused one a byte-identical copy elsewhere (each
/// with the authctl-full it runs beside it: the policy treats the pair as one program).
@Suite(.serialized) struct CallerPolicyTests {
    /// The built authctl as /proc/PID/exe names it, and a copy of it under the harness root.
    static func programs(_ harness: BrokerHarness) throws -> (allowed: String, copy: String) {
        let allowed = URL(fileURLWithPath: try BrokerHarness.binary("authctl")).resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: harness.root + "/elsewhere", withIntermediateDirectories: true)
        return (allowed, try ProductBinary.copyAuthctl(to: harness.root + "/elsewhere"))
    }

    @Test(.timeLimit(.minutes(3)))
    func aCallerOutsideAllowExeIsRefusedWithItsExecutableNamedAndAnAllowedOneIsServed() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let (allowed, copy) = try Self.programs(harness)
        let update = try await harness.authctl(["account", "update", "work", "--allow-exe", allowed])
        #expect(update.status == 0 && update.stderr.contains("tokens are kept"), "\(update)")

        // The cached fast path and the actor path (min_ttl) alike.
        #expect(try await harness.token("work").isEmpty == false)
        #expect(try await harness.token("work", ["--min-ttl", "1"]).isEmpty == false)
        for command in [["token", "work"], ["token", "work", "--min-ttl", "1"], ["kube-credential", "work", "--id-token"]] {
            let refused = try await harness.authctl(command, authctlPath: copy)
            #expect(refused.status == 1, "\(command): \(refused)")
            #expect(refused.stderr.contains("not \(copy)"), "\(command): \(refused)")
            #expect(refused.stderr.contains("authctl account update work --allow-exe \(allowed) --allow-exe \(copy)"), "\(refused)")
            #expect(refused.stdout.isEmpty)
        }
        // Audit lines name the real executable: the front's or authctl-full's, one program to the policy.
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: ") }
        #expect(!audits.isEmpty && audits.allSatisfy { $0.contains("exe=\(allowed) ") || $0.contains("exe=\(allowed)-full ") }, "\(audits)")

        // Removing the list loosens the policy: it needs the code the notification shows.
        let codes = NotifiedCodes(harness)
        await harness.stopDaemon()
        try await harness.startDaemon(codes.daemonArguments)
        #expect(try await harness.authctl(["account", "update", "work", "--no-allow-exe"]).status == 77)
        let code = try #require(await codes.code("policy_change"))
        #expect(try await harness.authctl(["account", "update", "work", "--no-allow-exe", "--code", code]).status == 0)
        #expect(try await harness.authctl(["token", "work"], authctlPath: copy).status == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func confirmWaitsForApproveFromASecondProcessAndDenyRefusesUntilRestart() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let (allowed, copy) = try Self.programs(harness)
        let codes = NotifiedCodes(harness)
        await harness.stopDaemon()
        try await harness.startDaemon(codes.daemonArguments)
        #expect(try await harness.authctl(["account", "update", "work", "--confirm"]).status == 0)

        let waiting = try harness.spawnAuthctl(["token", "work"])
        let listed = await SpawnedProcess.eventually(timeout: 30) {
            (try? await harness.authctl(["approvals"]).stdout.contains("work\t\(allowed)\tpid \(waiting.pid)")) == true
        }
        #expect(listed, "the request did not wait for approval: \(harness.daemonLog)")
        #expect(waiting.isRunning)
        let code = try #require(await codes.code("approval_needed"), "the notify hook did not run with approval_needed")
        #expect(codes.lines.first == "approval_needed work \(code) \(allowed)")
        let approve = try await harness.authctl(["approve", "work", "--code", code])
        #expect(approve.status == 0 && approve.stderr.contains("approved \(allowed)"), "\(approve)")
        #expect(await waiting.waitForExit(timeout: 30) == 0, "\(waiting.stderr)")
        #expect(!waiting.stdout.isEmpty)
        #expect(try await harness.token("work").isEmpty == false)  // approved for this boot: no wait

        let denied = try harness.spawnAuthctl(["token", "work"], authctlPath: copy)
        let pending = await SpawnedProcess.eventually(timeout: 30) {
            (try? await harness.authctl(["approvals"]).stdout.contains(copy)) == true
        }
        #expect(pending)
        #expect(try await harness.authctl(["approve", "work", "--exe", copy, "--deny"]).status == 0)
        #expect(await denied.waitForExit(timeout: 30) == 1)
        #expect(denied.stderr.contains("\(copy) was denied"), "\(denied.stderr)")
        let again = try await harness.authctl(["token", "work"], authctlPath: copy)
        #expect(again.status == 1 && again.stderr.contains("was denied"), "\(again)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func anUnapprovedCallerGivesUpAtTheTimeoutWithTheApproveCommand() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let (_, copy) = try Self.programs(harness)
        await harness.stopDaemon()
        try await harness.startDaemon(["--approval-timeout", "1"])
        #expect(try await harness.authctl(["account", "update", "work", "--confirm"]).status == 0)
        let run = try await harness.authctl(["token", "work"], authctlPath: copy)
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.contains("authctl approve work --exe \(copy)"), "\(run)")
        #expect(try await harness.authctl(["approvals"]).stdout.isEmpty)
        #expect(await harness.stopDaemon() == 0)
    }
}
