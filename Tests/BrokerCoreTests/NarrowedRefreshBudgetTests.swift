import BrokerProtocol
import Testing

@testable import BrokerCore

/// The per-account token bucket behind `rate_limited`, and which scopes a narrowed refresh sends
/// that must be granted (the Entra `RESOURCE/.default` a resource becomes included).
@Suite struct NarrowedRefreshBudgetTests {
    let work = AccountKey(owner: 1000, name: "work")
    let home = AccountKey(owner: 1000, name: "home")

    @Test func aBurstThenOnePerIntervalPerAccount() {
        var budget = NarrowedRefreshBudget(burst: 3, perMinute: 6)
        for _ in 0..<3 { #expect(budget.spend(work, now: 1_000) == nil) }
        #expect(budget.spend(work, now: 1_000) == 10, "one more every 10 s at 6 a minute")
        #expect(budget.spend(home, now: 1_000) == nil, "another account has its own bucket")
        #expect(budget.spend(work, now: 1_005) == 5)
        #expect(budget.spend(work, now: 1_010) == nil)
        #expect(budget.spend(work, now: 1_010) != nil)
        // A clock stepped back refills nothing.
        #expect(budget.spend(work, now: 900) != nil)
        // Refilled up to the burst, never beyond.
        for _ in 0..<3 { #expect(budget.spend(work, now: 10_000) == nil) }
        #expect(budget.spend(work, now: 10_000) != nil)
    }

    static let entra = AccountConfiguration(
        name: "work", issuer: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
        clientID: "c", scopes: ["openid", "offline_access", "User.Read"], allowNarrowing: true)

    @Test func anEntraResourceIsCheckedAsTheDefaultScopeItIsSentAs() throws {
        let granted: Set<String> = ["openid", "offline_access", "User.Read"]
        let graph = try TokenNarrowing(scopes: [], resources: ["https://graph.microsoft.com"], audience: nil)
        var configuration = Self.entra
        // Not on narrow_resources: the derived scope is not granted.
        #expect(
            TokenBroker.ungrantedScopes(
                graph, granted: granted, configuration: configuration, configuredScopes: configuration.scopes)
                == ["https://graph.microsoft.com/.default"])
        configuration.narrowResources = ["https://graph.microsoft.com"]
        #expect(
            TokenBroker.ungrantedScopes(
                graph, granted: granted, configuration: configuration, configuredScopes: configuration.scopes
            )
            .isEmpty)
        // Asked for as a scope, another resource's /.default is not granted by graph's listing.
        let other = try TokenNarrowing(scopes: ["https://vault.azure.net/.default"], resources: [], audience: nil)
        #expect(
            TokenBroker.ungrantedScopes(
                other, granted: granted, configuration: configuration, configuredScopes: configuration.scopes)
                == ["https://vault.azure.net/.default"])
        // A plain subset of the grant is fine, with or without a listed resource beside it.
        let subset = try TokenNarrowing(scopes: ["User.Read"], resources: ["https://graph.microsoft.com"], audience: nil)
        #expect(
            TokenBroker.ungrantedScopes(
                subset, granted: granted, configuration: configuration, configuredScopes: configuration.scopes
            )
            .isEmpty)
    }

    @Test func elsewhereAResourceOnlyRequestRestatesTheConfiguredScopes() throws {
        let configuration = AccountConfiguration(
            name: "work", issuer: "https://id.example.com", clientID: "c", scopes: ["openid", "offline_access"],
            narrowResources: ["https://api.example.com/"])
        let narrowing = try TokenNarrowing(scopes: [], resources: ["https://api.example.com/"], audience: nil)
        // The provider stated a smaller grant (no offline_access): the restated configured scopes are the account's own.
        #expect(
            TokenBroker.ungrantedScopes(
                narrowing, granted: ["openid"], configuration: configuration, configuredScopes: configuration.scopes
            )
            .isEmpty)
        let widening = try TokenNarrowing(scopes: ["admin"], resources: [], audience: nil)
        #expect(
            TokenBroker.ungrantedScopes(
                widening, granted: ["openid"], configuration: configuration, configuredScopes: configuration.scopes)
                == ["admin"])
    }
}
