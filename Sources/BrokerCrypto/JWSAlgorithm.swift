/// The JWS algorithms an ID token may be signed with: the allow-list.
///
/// `JWSAlgorithm(rawValue:)` is the gate: `none`, `HS256` and every other name give `nil`.
/// Names are case-sensitive, as in RFC 7518.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case ps256 = "PS256"
    case es256 = "ES256"
    case es384 = "ES384"
    case edDSA = "EdDSA"

    /// The JWK `kty` whose keys can verify this algorithm.
    public var keyType: String {
        switch self {
        case .rs256, .rs384, .rs512, .ps256: "RSA"
        case .es256, .es384: "EC"
        case .edDSA: "OKP"
        }
    }

    /// The JWK `crv` this algorithm requires, for EC and OKP keys.
    public var curve: String? {
        switch self {
        case .rs256, .rs384, .rs512, .ps256: nil
        case .es256: "P-256"
        case .es384: "P-384"
        case .edDSA: "Ed25519"
        }
    }

    /// The SHA-2 function paired with the algorithm, as OIDC uses it for `at_hash` and `c_hash`
    /// (OpenID Connect Core §3.1.3.6). For EdDSA with Ed25519 that is SHA-512.
    public func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        switch self {
        case .rs256, .ps256, .es256: SHA256.hash(data)
        case .rs384, .es384: SHA384.hash(data)
        case .rs512, .edDSA: SHA512.hash(data)
        }
    }
}
