/// Errors from JWS parsing and signature verification. None carries key material or token text:
/// only algorithm names, key ids, lengths and OpenSSL's own error strings.
public enum JWSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The compact serialization, its base64url parts or its header JSON are not well formed.
    case malformed(String)
    /// The `alg` is not on the allow-list (RS256, RS384, RS512, PS256, ES256, ES384, EdDSA);
    /// `none` and HMAC algorithms are always refused.
    case unsupportedAlgorithm(String)
    /// No key of the key set has this `kid` and can verify the token's algorithm.
    case noMatchingKey(kid: String?)
    /// A JWK is unusable: missing or bad members, too short an RSA modulus, a point off the curve,
    /// or a key type / curve / `alg` that does not fit the algorithm asked for.
    case invalidKey(String)
    /// The signature does not verify under the key.
    case badSignature
    /// An OpenSSL call failed for a reason other than a wrong signature.
    case openSSL(function: String, reason: String)

    public var description: String {
        switch self {
        case .malformed(let why):
            "malformed JWS: \(why)"
        case .unsupportedAlgorithm(let alg):
            "JWS algorithm '\(alg)' is not accepted (allowed: "
                + JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .noMatchingKey(let kid):
            "no key in the provider's JWKS matches kid '\(kid ?? "<none>")' for this algorithm; "
                + "the provider may have rotated its keys (refetch the JWKS)"
        case .invalidKey(let why):
            "unusable JWK: \(why)"
        case .badSignature:
            "JWS signature does not verify: the token was altered or signed by another key"
        case .openSSL(let function, let reason):
            "OpenSSL \(function) failed: \(reason)"
        }
    }

    /// Drains OpenSSL's error queue into the error, so the reason travels with it.
    static func fromOpenSSL(_ function: String) -> JWSError {
        .openSSL(function: function, reason: OpenSSLErrorQueue.drain())
    }
}
