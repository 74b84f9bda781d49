import WireFormats

/// A signed DPoP proof JWT (RFC 9449 §4.2) for one HTTP request: the value of its `DPoP` header.
///
/// Header `{"alg":"ES256","jwk":{public P-256 key},"typ":"dpop+jwt"}`; claims `jti` (128 random
/// bits), `htm`, `htu` (`DPoPTargetURI.normalize` of the URL), `iat`, and when given `nonce` (the
/// server's latest `DPoP-Nonce`) and `ath` (`accessTokenHash`, for requests carrying a DPoP-bound
/// access token). Time is the caller's: pass the wall clock's seconds since 1970.
///
/// A proof is a credential for its request while its `iat` is fresh: `description` names only
/// the method and the URL's origin, never the proof, so audit lines can print it.
public struct DPoPProof: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public static let type = "dpop+jwt"
    public static let algorithm = JWSAlgorithm.es256
    public static let maximumMethodLength = 32
    /// Servers' nonces are short opaque strings; a longer one is refused rather than echoed.
    public static let maximumNonceLength = 512
    /// Random bytes in `jti`: RFC 9449 §11.1 asks for enough entropy that values never collide.
    static let jtiByteCount = 16

    /// The compact JWS: send it as `DPoP: <compact>`.
    public let compact: String
    public let jti: String
    public let htm: String
    public let htu: String
    public let issuedAt: Int

    public init(
        key: ECSigningKey, method: String, url: String, issuedAt: Int, nonce: String? = nil, accessToken: Secret? = nil
    ) throws(DPoPError) {
        try self.init(
            key: key, method: method, url: url, issuedAt: issuedAt, nonce: nonce,
            accessTokenHash: accessToken.map(Self.accessTokenHash))
    }

    /// The same with `ath` already computed (`accessTokenHash`): the daemon keeps it with the
    /// cached access token rather than hashing the token again for every proof.
    public init(
        key: ECSigningKey, method: String, url: String, issuedAt: Int, nonce: String?, accessTokenHash: String?
    ) throws(DPoPError) {
        try self.init(
            key: key, method: method, htu: try DPoPTargetURI.normalize(url), issuedAt: issuedAt, nonce: nonce,
            accessTokenHash: accessTokenHash)
    }

    /// The same for a URL already parsed (the daemon's proof route parses the caller's URL once).
    public init(
        key: ECSigningKey, method: String, target: AbsoluteURL, issuedAt: Int, nonce: String?, accessTokenHash: String?
    ) throws(DPoPError) {
        try self.init(
            key: key, method: method, htu: try DPoPTargetURI.normalize(target), issuedAt: issuedAt, nonce: nonce,
            accessTokenHash: accessTokenHash)
    }

    private init(key: ECSigningKey, method: String, htu: String, issuedAt: Int, nonce: String?, accessTokenHash: String?)
        throws(DPoPError)
    {
        guard Self.isToken(method) else { throw .invalidMethod }
        if let nonce, !Self.isNonce(nonce) { throw .invalidNonce }
        htm = method
        self.htu = htu
        self.issuedAt = issuedAt
        do {
            jti = try Random.base64URL(byteCount: Self.jtiByteCount)
            let claims = Self.claimsJSON(jti: jti, htm: htm, htu: htu, iat: issuedAt, nonce: nonce, ath: accessTokenHash)
            let input = key.dpopHeaderSegment + "." + Base64URL.encode(Array(claims.utf8))
            compact = input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
        } catch let error as CryptoError {
            throw .signingFailed(error)
        } catch {
            throw .signingFailed(.invalidParameters("no random jti: \(error)"))
        }
    }

    /// `ath` (RFC 9449 §4.2): base64url of the SHA-256 of the access token's ASCII bytes.
    public static func accessTokenHash(_ accessToken: Secret) -> String {
        accessToken.withUnsafeBytes { Base64URL.encode(SHA256.hash($0)) }
    }

    /// RFC 9449 §8.1 nonce of at most `maximumNonceLength` bytes (WireFormats' rule).
    public static func isNonce(_ nonce: String) -> Bool { HTTPGrammar.isNonce(nonce, maximumLength: maximumNonceLength) }

    /// RFC 9110 §5.6.2 token of at most `maximumMethodLength` bytes (WireFormats' rule).
    static func isToken(_ method: String) -> Bool { HTTPGrammar.isToken(method, maximumLength: maximumMethodLength) }

    public var description: String {
        let origin =
            htu.firstRange(of: "://").flatMap { scheme in
                htu[scheme.upperBound...].firstIndex(of: "/").map { String(htu[..<$0]) }
            } ?? htu
        return "DPoPProof(\(htm) \(origin))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: []) }

    // The header and claims are written directly, members sorted by name as JSONEncoder's
    // `.sortedKeys` would: the encoder cost about a fifth of a proof (docs/BENCHMARKS-archive.md,
    // "DPoP proofs: on the connection thread").

    /// `{"alg":"ES256","jwk":{crv,kty,x,y},"typ":"dpop+jwt"}`: only the public members, a proof's
    /// header is readable by anyone on the path.
    static func headerJSON(_ jwk: ECPublicJWK) -> String {
        #"{"alg":"\#(algorithm.rawValue)","jwk":\#(jwk.json),"typ":"\#(type)"}"#
    }

    static func claimsJSON(jti: String, htm: String, htu: String, iat: Int, nonce: String?, ath: String?) -> String {
        var json = "{"
        json.reserveCapacity(128 + htu.utf8.count + (nonce?.utf8.count ?? 0))
        if let ath { json += #""ath":"# + quoted(ath) + "," }
        json += #""htm":"# + quoted(htm) + #","htu":"# + quoted(htu) + #","iat":"# + String(iat) + #","jti":"# + quoted(jti)
        if let nonce { json += #","nonce":"# + quoted(nonce) }
        return json + "}"
    }

    /// A JSON string (RFC 8259 §7): quote, backslash and control characters escaped, the rest as is.
    static func quoted(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return "\"" + text + "\""
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
