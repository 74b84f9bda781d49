import Foundation
import Testing

/// The provider replaces its signing key but keeps the `kid`: the daemon's cached key then fails
/// the next ID token's signature, and must refetch the JWKS once instead of refusing every login
/// until it restarts.
@Suite struct JWKSRotationTests {
    @Test(.timeLimit(.minutes(1)))
    func loginAfterTheProviderReplacedItsKeyUnderTheSameKidSucceeds() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await provider.rotateKey(sameKID: true)
        let again = try await harness.login("work", provider: provider)
        #expect(again.status == 0, "\(again)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(try await harness.token("work")))
    }
}
