import Foundation
import Testing

/// What a restricted socket's peer may narrow (docs/security.md, "Restricted sockets"): the plain
/// token only, unless the socket was created with named narrowings — then exactly those. The real
/// daemon and authctl against the mock; the far side reaches the socket through `AUTHBROKER_SOCKET`.
@Suite(.serialized) struct RestrictedSocketNarrowingTests {
    @Test(.timeLimit(.minutes(2)))
    func aSocketServesOnlyTheNarrowingsItWasCreatedWithAcrossARestart() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await NarrowedTokenTests.add(
            harness, provider, ["--allow-narrowing", "--allow-audience", "api://reports", "--allow-audience", "api://admin"])
        let plainSocket = try await harness.addRestrictedSocket("plain", ["--account", "work"])
        let named = try await harness.addRestrictedSocket(
            "reports", ["--account", "work", "--narrowing", "audience=api://reports", "--persist"])

        // A plain socket serves no narrowing, even one the account allows.
        let refused = try await harness.authctl(["token", "work", "--audience", "api://reports"], through: plainSocket)
        #expect(refused.status != 0 && refused.stderr.contains("serves only plain tokens"), "\(refused)")
        #expect(try await harness.authctl(["token", "work"], through: plainSocket).status == 0)

        let served = try await harness.authctl(["token", "work", "--audience", "api://reports"], through: named)
        #expect(served.status == 0, "\(served)\n\(harness.daemonLog)")
        for other in [
            ["--audience", "api://admin"], ["--scope", "openid"], ["--audience", "api://reports", "--scope", "openid"],
        ] {
            let run = try await harness.authctl(["token", "work"] + other, through: named)
            #expect(run.status != 0 && run.stderr.contains("is restricted"), "\(other): \(run)")
        }
        let list = try await harness.authctl(["socket", "list"])
        #expect(list.stdout.hasPrefix("NAME\tACCOUNTS\tEXPIRES\tPERSIST\tPATH\tNARROWINGS\n"), "\(list)")
        #expect(list.stdout.contains("\tyes\t\(named)\taudience=api://reports\n"), "\(list)")
        #expect(list.stdout.contains("plain\twork\tno ttl\tno\t\(plainSocket)\t-\n"), "\(list)")

        // Stored with the socket: the restarted daemon serves the same narrowing and nothing more.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        #expect(try await harness.authctl(["token", "work", "--audience", "api://reports"], through: named).status == 0)
        #expect(try await harness.authctl(["token", "work", "--audience", "api://admin"], through: named).status != 0)
        let audits = harness.daemonLog.split(separator: "\n").filter {
            $0.contains("audit: token") && $0.contains("socket=reports")
        }
        #expect(audits.contains { $0.contains("audience=api://reports") }, "\(audits)")
        #expect(try await provider.stats.familyRevocations == 0)
        #expect(await harness.stopDaemon() == 0)
    }
}
