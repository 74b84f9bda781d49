import WireFormats

/// A public signing key from a provider's JWKS (RFC 7517), checked and loaded into OpenSSL once.
///
/// Accepted: `RSA` (n, e; modulus ≥ 2048 bits), `EC` (P-256, P-384; x, y), `OKP` (Ed25519; x).
/// A key whose `use` is not `sig`, whose `key_ops` lack `verify`, or whose `alg` is not on the
/// allow-list or does not fit its type is refused with `invalidKey`.
public struct JWK: Sendable {
    public let kty: String
    public let kid: String?
    /// The one algorithm the key may be used with, when the provider pins it.
    public let alg: String?
    public let use: String?
    /// The curve of an EC or OKP key.
    public let crv: String?

    private let publicKey: PublicKey

    /// Parses one JWK JSON object.
    public init(json: [UInt8]) throws(JWSError) {
        let members = try JOSEJSON.decode(
            JWKMembers.self, from: json, what: "the JWK",
            else: .invalidKey("not a JSON object with string members \"kty\", \"kid\", \"n\", \"x\", …"))
        try self.init(members: members)
    }

    init(members: JWKMembers) throws(JWSError) {
        kty = members.kty
        kid = members.kid
        alg = members.alg
        use = members.use
        crv = members.crv
        if let use = members.use, use != "sig" {
            throw .invalidKey("key \(Self.label(members.kid)) is for use '\(use)', not signatures")
        }
        if let operations = members.key_ops, !operations.contains("verify") {
            throw .invalidKey("key \(Self.label(members.kid)) does not allow the 'verify' operation")
        }
        publicKey = try Self.load(members)
        if let alg = members.alg {
            guard let algorithm = JWSAlgorithm(rawValue: alg), Self.fits(algorithm, kty: kty, crv: crv) else {
                throw .invalidKey("key \(Self.label(members.kid)) is pinned to '\(alg)', which it cannot verify here")
            }
        }
    }

    /// Whether this key may verify `algorithm`: same key type and curve, and any pinned `alg` equal.
    public func supports(_ algorithm: JWSAlgorithm) -> Bool {
        Self.fits(algorithm, kty: kty, crv: crv) && (alg == nil || alg == algorithm.rawValue)
    }

    /// Verifies `jws` as `algorithm`, which must be the token's own header `alg`.
    /// `invalidKey` when this key cannot verify that algorithm (an RSA key never verifies ES256),
    /// `badSignature` when the signature is wrong.
    public func verify(_ jws: JWSCompact, algorithm: JWSAlgorithm) throws(JWSError) {
        guard jws.header.alg == algorithm.rawValue else {
            throw .unsupportedAlgorithm(jws.header.alg)
        }
        guard supports(algorithm) else {
            throw .invalidKey(
                "key \(Self.label(kid)) (\(kty)\(crv.map { " " + $0 } ?? "")\(alg.map { ", alg " + $0 } ?? "")) "
                    + "cannot verify \(algorithm.rawValue)")
        }
        try publicKey.verify(signature: jws.signature, input: jws.signingInput, algorithm: algorithm)
    }

    private static func fits(_ algorithm: JWSAlgorithm, kty: String, crv: String?) -> Bool {
        kty == algorithm.keyType && (algorithm.curve == nil || crv == algorithm.curve)
    }

    private static func load(_ members: JWKMembers) throws(JWSError) -> PublicKey {
        switch members.kty {
        case "RSA":
            return try PublicKey.rsa(
                modulus: member(members.n, "n", of: members), exponent: member(members.e, "e", of: members))
        case "EC":
            guard let crv = members.crv else { throw .invalidKey("EC key \(label(members.kid)) has no \"crv\"") }
            return try PublicKey.ec(
                curve: crv, x: member(members.x, "x", of: members), y: member(members.y, "y", of: members))
        case "OKP":
            guard members.crv == "Ed25519" else {
                throw .invalidKey("OKP curve '\(members.crv ?? "<none>")' is not supported (Ed25519)")
            }
            return try PublicKey.ed25519(x: member(members.x, "x", of: members))
        default:
            throw .invalidKey("key type '\(members.kty)' is not supported (RSA, EC, OKP)")
        }
    }

    private static func member(_ value: String?, _ name: String, of members: JWKMembers) throws(JWSError) -> [UInt8] {
        guard let value else { throw .invalidKey("\(members.kty) key \(label(members.kid)) has no \"\(name)\"") }
        do {
            return try Base64URL.decode(value)
        } catch {
            throw .invalidKey("member \"\(name)\" of key \(label(members.kid)) is not unpadded base64url")
        }
    }

    static func label(_ kid: String?) -> String { kid.map { "'\($0)'" } ?? "without kid" }
}

/// The JWK members the broker reads; others (x5c, private members, …) are ignored.
struct JWKMembers: Decodable {
    let kty: String
    let kid: String?
    let alg: String?
    let use: String?
    let key_ops: [String]?
    let crv: String?
    let n: String?
    let e: String?
    let x: String?
    let y: String?
}
