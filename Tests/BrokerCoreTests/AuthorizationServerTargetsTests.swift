import Testing

@testable import BrokerCore

/// The endpoints a DPoP proof is never made for, matched however a server might read the `htu`.
@Suite struct AuthorizationServerTargetsTests {
    static let metadata = ProviderMetadata(
        issuer: "https://as.example.com", authorizationEndpoint: "https://as.example.com/authorize",
        tokenEndpoint: "https://as.example.com/oauth2/token", revocationEndpoint: "https://as.example.com/revoke",
        deviceAuthorizationEndpoint: "https://as.example.com/device",
        pushedAuthorizationRequestEndpoint: "https://as.example.com/par")

    @Test func everySpellingOfAnEndpointIsRefusedAndResourcesAreNot() {
        let targets = AuthorizationServerTargets(Self.metadata)
        for url in [
            "https://as.example.com/oauth2/token", "HTTPS://AS.Example.COM/oauth2/token",
            "https://as.example.com:443/oauth2/token",
            "https://as.example.com./oauth2/token", "https://as.example.com/oauth2/token/",
            "https://as.example.com/oauth2/./token",
            "https://as.example.com/x/../oauth2/token", "https://as.example.com/oauth2/%74oken",
            "https://as.example.com/oauth2/token?x#y",
            "https://as.example.com/OAUTH2/TOKEN", "https://as.example.com/revoke", "https://as.example.com/device",
            "https://as.example.com/par", "https://as.example.com/authorize",
        ] {
            #expect(targets.contains(url) && !targets.allows(url), "\(url)")
        }
        for url in [
            "https://as.example.com/userinfo", "https://as.example.com:8443/oauth2/token", "https://api.example.com/oauth2/token",
            "https://as.example.com/oauth2/token2", "http://as.example.com:443/oauth2/token",
        ] {
            #expect(!targets.contains(url) && targets.allows(url), "\(url)")
        }
        // Without metadata the fast path allows nothing: the actor path fetches it and decides.
        #expect(!AuthorizationServerTargets(nil).allows("https://api.example.com/x"))
    }
}
