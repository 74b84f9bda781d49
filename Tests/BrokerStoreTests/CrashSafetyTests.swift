import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// Kills a child that commits token sets in a loop (`vault-torture`) with SIGKILL at random
/// moments, 20 times; after each kill the database must pass `integrity_check` and the last token
/// set the child reported as committed (or the one after it) must open and match in every field.
@Suite struct CrashSafetyTests {
    private func tortureBinary() throws -> String {
        try ProductBinary.path("vault-torture")
    }

    @Test func sigkilledWriterNeverLosesOrTearsACommittedTokenSet() async throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let binary = try tortureBinary()
        var lastPrinted = 0
        for round in 1...20 {
            let wanted = Int.random(in: 1...6)
            let printed = try await runAndKill(
                binary, arguments: [fixture.databasePath, fixture.keyPath, "10"], afterLines: wanted,
                in: fixture.directory)
            try #require(printed.count >= wanted, "round \(round): the child printed only \(printed) before exiting")
            let committed = try #require(Int(printed.last!), "round \(round): bad line \(printed.last!)")
            #expect(committed > lastPrinted, "round \(round): the counter went backwards")
            lastPrinted = committed

            let vault = try fixture.open()
            try vault.integrityCheck()
            let account = try #require(try vault.account(named: "torture", owner: 1000))
            let tokens = try #require(try vault.loadTokens(accountID: account.id), "round \(round): no tokens")
            let stored = Int(tokens.obtainedAt)
            // The kill may land after the next commit but before its line was printed.
            #expect(stored == committed || stored == committed + 1, "round \(round): stored \(stored), printed \(committed)")
            #expect(tokens.accessToken.revealString() == "access-\(stored)")
            #expect(tokens.refreshToken?.revealString() == "refresh-\(stored)")
            #expect(tokens.idToken?.token?.revealString() == "id-\(stored)")
            #expect(tokens.expiresAt == Double(stored + 3600))
        }
    }

    /// Starts the child, waits until `afterLines` lines of its stdout (a file) have arrived (or it
    /// exits), then SIGKILLs it, reaps it, and returns every line it printed.
    private func runAndKill(_ binary: String, arguments: [String], afterLines: Int, in directory: TemporaryDirectory)
        async throws -> [String]
    {
        let output = directory.appending("torture-\(UInt32.random(in: 0...UInt32.max)).out")
        let child = try Subprocess([binary] + arguments, stdout: .file(output))
        _ = await child.lines(in: output, timeout: .seconds(60)) { $0.count >= afterLines }
        // A little jitter so the kill lands at varied points of the next commit.
        try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
        child.signal(SIGKILL)
        try #require(await child.wait(timeout: .seconds(30)) != nil, "vault-torture survived SIGKILL")
        // Everything it printed before dying is in the file: the last line is the last commit it reported.
        return (await child.lines(in: output) { _ in true } ?? []).map(String.init)
    }
}
