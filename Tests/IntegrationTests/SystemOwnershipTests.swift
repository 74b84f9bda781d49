import Foundation
import Testing

/// System mode end to end: the real `authbrokerd --allow-uid A --allow-uid B` (running as root)
/// and the real `authctl` run as two real users (`abtest1`, `abtest2`, created when missing) and
/// as root, against the mock provider. Each user's accounts and pending logins exist only for it.
@Suite(.serialized) struct SystemOwnershipTests {
    static let canRun = geteuid() == 0 && OtherUser.setpriv != nil && OtherUser.useradd != nil
    static let why = "needs root, setpriv (util-linux) and useradd (passwd) to run authctl as two other users"

    @Test(.enabled(if: canRun, .init(rawValue: why)), .timeLimit(.minutes(2)))
    func usersCannotSeeUseOrRemoveEachOthersAccounts() async throws {
        let (harness, provider, alice, bob) = try await Self.start()
        try await harness.signIn("work", provider: provider, as: alice)
        let aliceToken = try await harness.token("work", as: alice)

        for (intruder, label) in [(Optional(bob), "\(bob)"), (nil, "root")] {
            for command in [
                ["token", "work"], ["kube-credential", "work", "--id-token"], ["account", "show", "work"],
                ["logout", "work"], ["account", "remove", "work"], ["login", "work", "--no-browser"],
            ] {
                let run = try await harness.authctl(command, as: intruder)
                #expect(run.status != 0, "\(command) as \(label): \(run)")
                #expect(run.stderr.contains("No account named 'work'"), "\(command) as \(label): \(run)")
                #expect(!run.stdout.contains(aliceToken) && !run.stderr.contains(aliceToken))
            }
            for command in [["account", "list"], ["status"]] {
                let run = try await harness.authctl(command, as: intruder)
                #expect(run.status == 0, "\(command) as \(label): \(run)")
                #expect(!run.stdout.contains("work"), "\(command) as \(label) shows another user's account: \(run)")
            }
        }
        // All of that left Alice's account as it was.
        #expect(try await harness.token("work", as: alice) == aliceToken)
        #expect(try await provider.stats.codeExchanges == 1)
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: ") }
        #expect(!audits.isEmpty)
        #expect(audits.allSatisfy { $0.contains(" uid=\(alice.uid) ") && $0.hasSuffix(" owner=\(alice.uid)") }, "\(audits)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.enabled(if: canRun, .init(rawValue: why)), .timeLimit(.minutes(2)))
    func eachUserHasTheirOwnWorkAndAPendingLoginStaysWithItsOwner() async throws {
        let (harness, provider, alice, bob) = try await Self.start()
        try await harness.addAccount("work", provider: provider, as: alice)
        let aliceLogin = try harness.spawnAuthctl(
            ["login", "work", "--no-browser", "--timeout", "60"], prefix: alice.prefix, authctlPath: alice.authctlPath)
        let aliceURL = try await harness.authorizationURL(printedBy: aliceLogin)

        // While Alice's login is pending, Bob can neither see its URL nor join it.
        for command in [["token", "work"], ["status"], ["login", "work", "--no-browser", "--timeout", "5"]] {
            let run = try await harness.authctl(command, as: bob)
            #expect(!run.stdout.contains(aliceURL) && !run.stderr.contains(aliceURL), "\(command): \(run)")
        }
        // Bob's `authctl login work` is a login of his own `work`, with its own URL.
        try await harness.addAccount("work", provider: provider, as: bob)
        let bobLogin = try harness.spawnAuthctl(
            ["login", "work", "--no-browser", "--timeout", "60"], prefix: bob.prefix, authctlPath: bob.authctlPath)
        let bobURL = try await harness.authorizationURL(printedBy: bobLogin)
        #expect(bobURL != aliceURL)
        _ = try await provider.playBrowser(bobURL)
        #expect(await bobLogin.waitForExit(timeout: 30) == 0, "\(bobLogin.stderr)")
        // Bob's login did not finish Alice's: hers is still pending, then she finishes it herself.
        let stillPending = try await harness.authctl(["token", "work"], as: alice)
        #expect(stillPending.status != 0 && stillPending.stderr.contains("pending"), "\(stillPending)")
        _ = try await provider.playBrowser(aliceURL)
        #expect(await aliceLogin.waitForExit(timeout: 30) == 0, "\(aliceLogin.stderr)")

        let aliceToken = try await harness.token("work", as: alice)
        let bobToken = try await harness.token("work", as: bob)
        #expect(aliceToken != bobToken)
        // Bob removes his `work`; Alice's stays. Root (the daemon's own uid here) has no `work` at all.
        #expect(try await harness.authctl(["account", "remove", "work"], as: bob).status == 0)
        #expect(try await harness.authctl(["token", "work"], as: bob).status != 0)
        #expect(try await harness.token("work", as: alice) == aliceToken)
        #expect(try await harness.authctl(["token", "work"], as: nil).stderr.contains("No account named 'work'"))
        #expect(harness.daemonLog.contains("account added account=work owner=\(bob.uid)"), "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// A system-mode daemon (as root, `--allow-uid` for both users) with a socket they can reach.
    private static func start() async throws -> (BrokerHarness, MockProviderProcess, OtherUser, OtherUser) {
        let harness = try BrokerHarness()
        let alice = try await OtherUser.make("abtest1", authctlIn: harness.root)
        let bob = try await OtherUser.make("abtest2", authctlIn: harness.root)
        let provider = try await MockProviderProcess(directory: harness.root)
        try await harness.startDaemon(["--allow-uid", alice.name, "--allow-uid", bob.name])
        OtherUser.openSocket(of: harness)
        return (harness, provider, alice, bob)
    }
}
