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
            #expect(
                refused.stderr.contains("authctl account update work --allow-exe \(allowed) --allow-exe \(copy)"), "\(refused)")
            #expect(refused.stdout.isEmpty)
        }
        // Audit lines name the real executable: the front's or authctl-full's, one program to the policy.
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: ") }
        #expect(
            !audits.isEmpty && audits.allSatisfy { $0.contains("exe=\(allowed) ") || $0.contains("exe=\(allowed)-full ") },
            "\(audits)")

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
        let none = try await harness.authctl(["approvals"])
        #expect(none.stdout.isEmpty && none.stderr.contains("No program is waiting for approval."), "\(none)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// True when this machine lets us make a user and mount namespace (`unshare -Urm`, util-linux).
    static let canUnshare: Bool = (try? Subprocess.runBlocking(["/usr/bin/unshare", "-Urm", "/bin/true"]))?.status == 0

    /// The review's attack: in a namespace of its own (`unshare -Urm`, which any user may run), a
    /// program bind-mounts another file over the allowed path and runs it; `/proc/PID/exe` then
    /// names the allowed path. The daemon compares the file (device and inode) with the allowed
    /// path as it sees it, and refuses a caller in another namespace unless the account allows it.
    @Test(.enabled(if: canUnshare, "needs unshare (util-linux) and unprivileged user namespaces"), .timeLimit(.minutes(3)))
    func aFileBindMountedOverTheAllowedPathInAnotherNamespaceIsRefusedAndTheRealOneServed() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let (allowed, copy) = try Self.programs(harness)
        #expect(try await harness.authctl(["account", "update", "work", "--allow-exe", allowed]).status == 0)
        // `sh -c SCRIPT ALLOWED ARGS…`: $0 is the allowed path; the copy is mounted over it, and the
        // copy's authctl-full over the real one beside it (which the front runs when refused).
        let mounts = "mount --bind '\(copy)' \"$0\" && mount --bind '\(copy)-full' \"$0-full\""
        let spoofed = ["/usr/bin/unshare", "-Urm", "/bin/sh", "-c", mounts + " && exec \"$0\" \"$@\""]
        let inNamespace = ["/usr/bin/unshare", "-Urm"]

        let refused = try await harness.authctl(["token", "work"], prefix: spoofed)
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        // The last to ask was authctl-full (the front runs it for any answer but a token): named so.
        #expect(
            refused.stderr.contains("\(allowed)-full (in another namespace)")
                && refused.stderr.contains("--allow-other-namespaces"), "\(refused)")
        let real = try await harness.authctl(["token", "work"], prefix: inNamespace)
        #expect(real.status == 1 && real.stdout.isEmpty, "\(real)")

        // Allowed other namespaces: the file decides. The copy is refused, the real file served.
        #expect(try await harness.authctl(["account", "update", "work", "--allow-other-namespaces"]).status == 0)
        let stillRefused = try await harness.authctl(["token", "work"], prefix: spoofed)
        #expect(stillRefused.status == 1 && stillRefused.stdout.isEmpty, "\(stillRefused)")
        #expect(stillRefused.stderr.contains("\(allowed)-full (not the file at this path)"), "\(stillRefused)")
        let served = try await harness.authctl(["token", "work"], prefix: inNamespace)
        #expect(served.status == 0 && !served.stdout.isEmpty, "\(served)")
        #expect(try await harness.token("work").isEmpty == false)

        // Every audit line names the real file: `exe_id` is the allowed path's device and inode.
        let id = try Subprocess.runBlocking(["/usr/bin/stat", "-c", "%Hd:%Ld:%i", allowed]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: token") }
        #expect(audits.count == 2 && audits.allSatisfy { $0.contains("exe=\(allowed) exe_id=\(id) ") }, "\(audits)")
        #expect(await harness.stopDaemon() == 0)
    }
}
