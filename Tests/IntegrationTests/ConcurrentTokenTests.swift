import Foundation
import Testing

/// Many `authctl token` processes at once while 4-second tokens refresh with rotation and reuse
/// detection: the daemon must make one refresh per token lifetime, never two with the same refresh
/// token (the provider would revoke the whole family), and hand every caller a valid token.
@Suite struct ConcurrentTokenTests {
    static let callers = 32

    @Test(.timeLimit(.minutes(1)))
    func thirtyTwoCallersShareOneRefreshPerExpiry() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"accessTokenLifetime": 4, "rotateRefreshTokens": true, "detectRefreshTokenReuse": true}"#)
        try await harness.signIn("work", provider: provider)
        let start = Date()

        var answers: [BrokerHarness.Run] = []
        var rejected = 0
        // 4-second tokens (margin 2 s): a round of 32 processes can take over a second on a loaded
        // 2-core machine, and the check below runs after the round.
        while Date().timeIntervalSince(start) < 8 {
            let round = try await Self.round(harness)
            answers += round
            // Checked at once: a token must still be good at the provider when the caller gets it.
            rejected += try await Self.rejectedCount(round.filter { $0.status == 0 }.map(\.line), provider: provider)
        }
        let elapsed = Date().timeIntervalSince(start)
        let failed = answers.filter { $0.status != 0 || $0.stdout != $0.line + "\n" }
        #expect(
            failed.isEmpty, "\(failed.count) of \(answers.count) callers failed, e.g. \(failed.first.map(\.description) ?? "")")
        #expect(rejected == 0, "\(rejected) tokens were not accepted by the provider")

        let stats = try await provider.stats
        #expect(stats.familyRevocations == 0, "reuse detection fired: \(stats)")
        // Every refresh spent the current refresh token and got a token back: no duplicate, no failure.
        #expect(stats.refreshes == stats.tokensIssued - 1, "\(stats)")
        // One refresh per 4-second lifetime (margin 2 s): at least one per lifetime, at most one a second.
        #expect(Double(stats.refreshes) >= elapsed / 4 - 1, "\(stats.refreshes) refreshes in \(elapsed) s")
        #expect(Double(stats.refreshes) <= elapsed + 1, "\(stats.refreshes) refreshes in \(elapsed) s")
        let distinct = Set(answers.map(\.line))
        #expect(distinct.count <= stats.refreshes + 1)
        #expect(distinct.count >= 2, "no refresh was seen by any caller")
        #expect(await harness.stopDaemon() == 0)
    }

    /// `callers` concurrent `authctl token work --min-ttl 1` processes.
    static func round(_ harness: BrokerHarness) async throws -> [BrokerHarness.Run] {
        try await withThrowingTaskGroup(of: BrokerHarness.Run.self) { group in
            for _ in 0..<callers {
                group.addTask { try await harness.authctl(["token", "work", "--min-ttl", "1"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// How many of `tokens` the provider's userinfo endpoint refuses.
    static func rejectedCount(_ tokens: [String], provider: MockProviderProcess) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for token in Set(tokens) { group.addTask { try await provider.accepts(token) } }
            return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
    }
}
