import Foundation
import TestSupport

/// Everything the mock provider remembers, behind one Mutex in `MockProvider`.
struct MockProviderState {
    struct AuthorizationGrant {
        var clientID: String
        var redirectURI: String
        var codeChallenge: String
        var nonce: String?
        var scope: String
        /// `dpop_jkt` of the authorization request (RFC 9449 §10): the key the code is bound to.
        var dpopJKT: String? = nil
        /// Whether the code's exchange may mint a refresh token (Google mode decides per request).
        var refreshTokenAllowed = true
    }

    enum RefreshTokenStatus { case active, rotatedOut, revoked }

    struct RefreshToken {
        var family: Int
        var status: RefreshTokenStatus
    }

    struct Family {
        var scope: String
        /// The DPoP key the family's refresh tokens are bound to.
        var jkt: String? = nil
        var revoked = false
    }

    struct AccessToken {
        var family: Int?
        var expiresAt: Date
        var revoked = false
        /// `cnf.jkt`: the DPoP key the token is bound to.
        var jkt: String? = nil
    }

    struct DeviceGrant {
        var scope: String
        var expiresAt: Date
        var polls = 0
        var used = false
    }

    var configuration = MockProviderConfiguration()
    var stats = MockProviderStats()
    /// Published keys (JWKS), newest last; the newest of the configured algorithm signs.
    var keys: [TestSigningKey]
    var codes: [String: AuthorizationGrant] = [:]
    var refreshTokens: [String: RefreshToken] = [:]
    var families: [Family] = []
    var accessTokens: [String: AccessToken] = [:]
    var deviceCodes: [String: DeviceGrant] = [:]
    var issuedIDTokens: Set<String> = []
    /// Every authorization code issued and every `code_verifier` received, kept after use so a
    /// test can look for them where they must not appear (`MockProvider.secrets`).
    var issuedCodes: [String] = []
    var receivedCodeVerifiers: [String] = []
    /// User Management sessions (the access tokens' `sid`) → refresh-token family.
    var sessions: [String: Int] = [:]
    var dpop = MockDPoPState()
    /// Google mode: the user has seen the consent screen once (later logins show it only with
    /// `prompt=consent`).
    var googleConsentGiven = false
    /// RFC 9126 pushed requests by `request_uri`; taken out at first use, pruned of expired ones at each push.
    var pushedRequests: [String: MockProvider.PushedRequest] = [:]
    /// Protected-resource mode: clients registered through RFC 7591, by client id.
    var registeredClients: [String: MockRegisteredClient] = [:]

    /// Applies the endpoint's injected fault, counting it down; nil when none applies.
    mutating func takeFault(_ endpoint: String) -> MockFault? {
        guard var fault = configuration.faults[endpoint] else { return nil }
        if let remaining = fault.remaining {
            guard remaining > 0 else { return nil }
            fault.remaining = remaining - 1
            configuration.faults[endpoint] = fault
        }
        return fault
    }

    /// Revokes a refresh-token family and every token issued in it.
    mutating func revokeFamily(_ family: Int) {
        families[family].revoked = true
        for (token, record) in refreshTokens where record.family == family { refreshTokens[token]?.status = .revoked }
        for (token, record) in accessTokens where record.family == family { accessTokens[token]?.revoked = true }
    }
}
