import WireFormats

/// JWK SHA-256 thumbprints (RFC 7638): the key identifier DPoP binds tokens to (`cnf.jkt`,
/// `dpop_jkt`, RFC 9449 §6).
///
/// The hash input is the key's required members only (EC: crv, kty, x, y; RSA: e, kty, n; OKP,
/// RFC 8037 §2: crv, kty, x) as a JSON object with the names in lexicographic order and no
/// whitespace; the thumbprint is the base64url of its SHA-256.
public enum JWKThumbprint {
    /// The thumbprint of an EC public key from its base64url coordinates.
    public static func ec(crv: String, x: String, y: String) throws(JWSError) -> String {
        try thumbprint(["crv": crv, "kty": "EC", "x": x, "y": y])
    }

    /// The thumbprint of an RSA public key from its base64url modulus and exponent.
    public static func rsa(n: String, e: String) throws(JWSError) -> String {
        try thumbprint(["e": e, "kty": "RSA", "n": n])
    }

    /// The thumbprint of a JWK given as JSON (e.g. a DPoP proof's `jwk` header); members other
    /// than the required ones — `kid`, `alg`, `use`, private ones — do not take part.
    public static func of(jwkJSON: [UInt8]) throws(JWSError) -> String {
        let members = try JOSEJSON.decode(
            JWKMembers.self, from: jwkJSON, what: "the JWK", else: .invalidKey("not a JSON object with a string \"kty\""))
        func required(_ value: String?, _ name: String) throws(JWSError) -> String {
            guard let value else { throw .invalidKey("\(members.kty) key has no \"\(name)\" for its thumbprint") }
            return value
        }
        switch members.kty {
        case "EC": return try ec(crv: required(members.crv, "crv"), x: required(members.x, "x"), y: required(members.y, "y"))
        case "RSA": return try rsa(n: required(members.n, "n"), e: required(members.e, "e"))
        case "OKP": return try thumbprint(["crv": required(members.crv, "crv"), "kty": "OKP", "x": required(members.x, "x")])
        default: throw .invalidKey("key type '\(members.kty)' has no thumbprint here (EC, RSA, OKP)")
        }
    }

    private static func thumbprint(_ members: [String: String]) throws(JWSError) -> String {
        // Every required member is a base64url string or a curve name: refusing anything else means
        // no JSON escaping rule (where implementations differ) can ever decide the hash.
        for (name, value) in members where !value.utf8.allSatisfy(isPlain) || value.isEmpty {
            throw .invalidKey("JWK member \"\(name)\" has characters a thumbprint member cannot have")
        }
        return sha256(canonicalJSON(members))
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// `{"a":"…","b":"…"}` with the names sorted; the values must need no escaping.
    static func canonicalJSON(_ members: [String: String]) -> String {
        // Member names are ASCII, so sorting Swift strings is RFC 7638's code-point order.
        "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
    }

    static func sha256(_ json: String) -> String {
        Base64URL.encode(SHA256.hash(Array(json.utf8)))
    }
}
