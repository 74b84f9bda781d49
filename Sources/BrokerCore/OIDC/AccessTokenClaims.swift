import BrokerCrypto
import BrokerProtocol
import WireFormats

/// The payload of a JWT access token (RFC 9068), read *unverified*: the broker is not the token's
/// audience and never decides anything about trust from it. It only reads the provider's own
/// statements about the token — its lifetime (`exp`) and the session it belongs to (`sid`, which
/// WorkOS's logout URL names).
enum AccessTokenClaims {
    /// The claims of `token` when it is a compact JWS whose payload is a JSON object, else nil.
    static func unverified(_ token: Secret) -> [String: JSONValue]? {
        guard let jws = try? JWSCompact.parse(token.revealString()) else { return nil }
        return try? ProviderJSON.object(from: jws.payload)
    }
}
