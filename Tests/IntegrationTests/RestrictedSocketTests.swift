import Foundation
import Testing

/// `authctl socket add` end to end (docs/remote.md, docs/security.md "Restricted sockets"): the real
/// daemon and authctl against the mock provider; authctl reaches the restricted socket through
/// `AUTHBROKER_SOCKET`, as the far side of an SSH forward or a container does.
@Suite(.serialized) struct RestrictedSocketTests {
    @Test(.timeLimit(.minutes(2)))
    func aRestrictedSocketServesOnlyItsAccountsTokenAndRefusesEverythingElse() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.signIn("other", provider: provider)
        let path = try await harness.addRestrictedSocket("remote", ["--account", "work"])
        #expect(path == harness.runtime + "/restricted/\(getuid())/remote.sock")
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600 && info.st_mode & S_IFMT == S_IFSOCK && info.st_uid == geteuid())

        let token = try await harness.authctl(["token", "work"], through: path)
        let mainToken = try await harness.token("work")
        #expect(token.status == 0 && token.line == mainToken, "\(token)")
        #expect(try await harness.authctl(["ping"], through: path).status == 0)
        for command in [
            ["token", "other"], ["status"], ["account", "list"], ["account", "show", "work"],
            ["account", "add", "x", "--issuer", provider.issuer, "--client-id", "mock-client"], ["logout", "work"],
            ["login", "work", "--no-browser", "--timeout", "5"], ["kube-credential", "work", "--id-token"],
            ["socket", "list"], ["socket", "add", "more", "--account", "other"], ["socket", "remove", "remote"],
        ] {
            let run = try await harness.authctl(command, through: path)
            #expect(run.status != 0, "\(command): \(run)")
            #expect(
                run.stderr.contains("This socket ('remote') is restricted: it serves only the token of 'work'"),
                "\(command): \(run)")
        }
        if let metrics = try await harness.curl("/metrics", through: path) {
            #expect(metrics.hasSuffix("\n403") && metrics.contains("\"forbidden\""), "\(metrics)")
        }
        if let unknown = try await harness.curl("/v1/nowhere", through: path) {
            #expect(unknown.hasSuffix("\n403"), "an unknown path on a restricted socket is refused, not routed: \(unknown)")
        }
        // Nothing was changed by the refused requests: both accounts still serve on the main socket.
        #expect(try await harness.token("other").isEmpty == false)
        #expect(try await harness.authctl(["status"]).stdout.contains("work"))

        let list = try await harness.authctl(["socket", "list", "--json"])
        #expect(list.status == 0 && list.stdout.contains("\"name\" : \"remote\"") && list.stdout.contains(path), "\(list)")
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: token") }
        #expect(audits.contains { $0.contains("account=work") && $0.contains(" socket=remote ") }, "\(audits)")
        #expect(audits.contains { $0.contains(" socket=main ") }, "\(audits)")
        #expect(!audits.contains { $0.contains("account=other") && $0.contains("socket=remote") })

        #expect(try await harness.authctl(["socket", "remove", "remote"]).status == 0)
        #expect(lstat(path, &info) != 0 && errno == ENOENT)
        #expect(try await harness.authctl(["token", "work"], through: path).status != 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func removingAnAccountTakesItOffTheSocketsList() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let path = try await harness.addRestrictedSocket("box", ["--account", "work"])
        #expect(try await harness.authctl(["account", "remove", "work"]).status == 0)
        // A new account of the same name is not what the socket was made for.
        try await harness.signIn("work", provider: provider)
        let run = try await harness.authctl(["token", "work"], through: path)
        #expect(run.status != 0 && run.stderr.contains("serves no account any more"), "\(run)")
        let list = try await harness.authctl(["socket", "list", "--json"])
        #expect(list.stdout.contains("\"name\" : \"box\"") && !list.stdout.contains("\"work\""), "\(list)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aSocketIsGoneAtItsTTL() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let path = try await harness.addRestrictedSocket("brief", ["--account", "work", "--ttl", "2s"])
        var info = stat()
        #expect(lstat(path, &info) == 0)
        let gone = await SpawnedProcess.eventually(timeout: 30) { lstat(path, &info) != 0 && errno == ENOENT }
        #expect(gone, "the socket file outlived its ttl: \(harness.daemonLog)")
        #expect(try await harness.authctl(["token", "work"], through: path).status != 0)
        let none = try await harness.authctl(["socket", "list"])
        #expect(none.stdout.isEmpty && none.stderr.contains("No restricted sockets."), "\(none)")
        #expect(harness.daemonLog.contains("restricted socket expired socket=brief"), "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aPersistentSocketSurvivesARestartAndOthersGoAtStop() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let kept = try await harness.addRestrictedSocket("kept", ["--account", "work", "--persist", "--ttl", "1h"])
        let dropped = try await harness.addRestrictedSocket("dropped", ["--account", "work"])
        #expect(await harness.stopDaemon() == 0)
        var info = stat()
        #expect(lstat(kept, &info) != 0 && lstat(dropped, &info) != 0, "the daemon's stop left socket files behind")

        try await harness.startDaemon()
        #expect(lstat(kept, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(lstat(dropped, &info) != 0)
        let token = try await harness.authctl(["token", "work"], through: kept)
        #expect(token.status == 0 && !token.line.isEmpty, "\(token)\n\(harness.daemonLog)")
        let list = try await harness.authctl(["socket", "list"])
        let rows = list.stdout.split(separator: "\n")
        #expect(rows.count == 2 && rows[1].hasPrefix("kept\twork\t20") && rows[1].contains("\tyes\t"), "\(list)")
        // Removed for good: not back after the next restart.
        #expect(try await harness.authctl(["socket", "remove", "kept"]).status == 0)
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        #expect(lstat(kept, &info) != 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aPersistentSocketIsRecreatedAfterACrashAndDroppedOnceItsTTLPassedWhileStopped() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let crashed = try await harness.addRestrictedSocket("crashed", ["--account", "work", "--persist"])
        let briefExpiry = Date().addingTimeInterval(2)
        let brief = try await harness.addRestrictedSocket("brief", ["--account", "work", "--persist", "--ttl", "2"])
        await harness.stopDaemon(signal: SIGKILL)
        var info = stat()
        #expect(lstat(crashed, &info) == 0, "a killed daemon cannot unlink: the stale file stays")
        // The brief socket's ttl passes while no daemon runs.
        _ = await SpawnedProcess.eventually(timeout: 10) { Date() > briefExpiry.addingTimeInterval(0.5) }
        try await harness.startDaemon()
        let token = try await harness.authctl(["token", "work"], through: crashed)
        #expect(token.status == 0, "the stale file was not replaced by a live socket: \(token)\n\(harness.daemonLog)")
        #expect(lstat(brief, &info) != 0, "an expired stored socket was recreated")
        #expect(harness.daemonLog.contains("restricted socket expired while the daemon was stopped socket=brief"))
        let list = try await harness.authctl(["socket", "list"])
        #expect(
            list.stdout.split(separator: "\n").last?.hasPrefix("crashed\t") == true && !list.stdout.contains("brief"), "\(list)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aNameWhosePathIsTakenIsRefused() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        // The owner's directory is the daemon's; a file there that the daemon did not bind is
        // still refused, never replaced.
        let squatter = harness.runtime + "/restricted/\(getuid())/taken.sock"
        try FileManager.default.createDirectory(
            atPath: harness.runtime + "/restricted/\(getuid())", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: squatter, contents: Data("mine".utf8)))
        let run = try await harness.authctl(["socket", "add", "taken", "--account", "work"])
        #expect(run.status != 0 && run.stderr.contains("exists and is not one of this daemon's restricted sockets"), "\(run)")
        #expect((try? String(contentsOfFile: squatter, encoding: .utf8)) == "mine")
        let unknown = try await harness.authctl(["socket", "add", "x", "--account", "nobody"])
        #expect(unknown.status != 0 && unknown.stderr.contains("No account named 'nobody'"), "\(unknown)")
        let bad = try await harness.authctl(["socket", "add", "../up", "--account", "work"])
        #expect(bad.status == 64, "\(bad)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// docs/security.md "Restricted sockets": at most 16 per owner, refused with a one-line error
    /// naming the cap and `authctl socket remove`; every one of them is accepted on by the same
    /// thread, so adding 16 adds no thread each. (Failed before: no cap, and a thread per socket.)
    @Test(.timeLimit(.minutes(3)))
    func socketsAreCappedPerOwnerAndShareOneAcceptingThread() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let pid = try #require(harness.daemon?.pid)
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0 }
        let before = threads()
        var paths: [String] = []
        for index in 0..<16 { paths.append(try await harness.addRestrictedSocket("s\(index)", ["--account", "work"])) }
        let added = threads() - before
        #expect(added < 8, "\(added) threads more after adding 16 restricted sockets")
        let over = try await harness.authctl(["socket", "add", "s16", "--account", "work"])
        #expect(over.status != 0 && over.stderr.contains("(16)") && over.stderr.contains("authctl socket remove"), "\(over)")
        #expect(over.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(over)")
        for path in [paths[0], paths[15]] { #expect(try await harness.authctl(["ping"], through: path).status == 0) }
        #expect(try await harness.authctl(["socket", "remove", "s0"]).status == 0)
        #expect(try await harness.authctl(["ping"], through: paths[0]).status != 0)
        #expect(try await harness.authctl(["socket", "add", "s16", "--account", "work"]).status == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    /// A restricted socket's peer may read the token, not force a refresh: `refresh=1` (what
    /// `authctl refresh` sends) is capped only at one a second, so a peer could keep the provider
    /// busy with the owner's refresh token. Refused with a 403 before the broker is asked.
    @Test(.timeLimit(.minutes(2)))
    func aPeerCannotForceARefresh() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let path = try await harness.addRestrictedSocket("remote", ["--account", "work"])
        let before = try await provider.stats.refreshes

        let forced = try await harness.authctl(["refresh", "work"], through: path)
        #expect(forced.status == 1, "\(forced)")
        #expect(forced.stderr.contains("does not force a refresh"), "\(forced)")
        if let raw = try await harness.curl("/v1/accounts/work/token?refresh=1", through: path) {
            #expect(raw.hasSuffix("\n403") && raw.contains("\"forbidden\""), "\(raw)")
        }
        // The plain token is still served there, and the owner may force a refresh on the main socket.
        #expect(try await harness.authctl(["token", "work"], through: path).status == 0)
        #expect(try await provider.stats.refreshes == before)
        let owner = try await harness.authctl(["refresh", "work"])
        #expect(owner.status == 0, "\(owner)")
        #expect(try await provider.stats.refreshes == before + 1)
        #expect(await harness.stopDaemon() == 0)
    }
}
