import BrokerCore
import BrokerProtocol
import TestSupport
import Testing

/// Certificate pinning (docs/security.md, "Outbound HTTPS") at the broker: an account's pins go with its
/// requests; a chain without them is `tls_pin_mismatch` at `account add`, and at refresh a transient
/// failure that keeps the tokens (the fake provider fails pinned requests as HTTPClient does).
@Suite struct TokenBrokerPinningTests {
    /// base64 of 32 bytes of 1 (the fake's chain key) and of 32 bytes of 2.
    static let chainPin = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="
    static let otherPin = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="

    @Test func anAccountWhoseProviderLacksThePinnedKeyIsRefusedWithItsOwnCode() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let error = await #expect(throws: WireError.self) {
            _ = try await broker.addAccount(
                AccountConfiguration(
                    name: "work", issuer: harness.provider.issuer, clientID: "cli", pinSHA256: [Self.otherPin]))
        }
        #expect(error?.code == .tlsPinMismatch)
        #expect(error?.message.contains("--pin-sha256") == true, "\(error?.message ?? "")")
        await broker.shutdown()
    }

    /// `POST /v1/discovery` (a preset's issuer from a document, e.g. Shopify's) reads with the
    /// account-to-be's pins, as its own later reads will (issue 12).
    @Test func aPresetsDiscoveryReadCarriesThePinsAndAChainWithoutThemIsAPinMismatch() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let url = harness.provider.issuer + "/.well-known/openid-configuration"
        let mismatch = await #expect(throws: WireError.self) {
            _ = try await broker.discoveryIssuer(url: url, pins: [Self.otherPin])
        }
        #expect(mismatch?.code == .tlsPinMismatch, "\(String(describing: mismatch))")
        #expect(
            try await broker.discoveryIssuer(url: url, pins: [Self.otherPin, Self.chainPin]).issuer == harness.provider.issuer)
        #expect(harness.provider.with { $0.pinnedRequests } == 2)
        let malformed = await #expect(throws: WireError.self) {
            _ = try await broker.discoveryIssuer(url: url, pins: ["not-a-pin"])
        }
        #expect(malformed?.code == .invalidRequest && malformed?.message.contains("pin_sha256") == true)
        #expect(harness.provider.with { $0.pinnedRequests } == 2, "a malformed pin is refused before any request")
        await broker.shutdown()
    }

    @Test func aPinnedAccountRefreshesAndAKeyChangeKeepsItsTokensAndRetries() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker, pins: [Self.otherPin, Self.chainPin]).outcome == .succeeded)
        harness.clock.advance(60)
        #expect(await eventually { harness.provider.with { $0.refreshes } == 1 })
        #expect(harness.provider.with { $0.pinnedRequests } >= 2, "discovery and the refresh carry the pins")
        let current = harness.provider.with { $0.issuedAccess.last! }

        harness.provider.with { $0.chainKey = Array(repeating: 3, count: 32) }  // rotated, or intercepted
        harness.clock.advance(60)
        #expect(await eventually { broker.metrics().contains("authbroker_refreshes_total{outcome=\"transient\"} 1") })
        #expect(await broker.tokenOrCode() == .token(current), "a pin failure never deletes tokens")
        #expect(harness.provider.with { $0.refreshes } == 1)
        await broker.shutdown()
    }
}
