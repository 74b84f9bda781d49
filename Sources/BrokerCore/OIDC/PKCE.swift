import BrokerCrypto
import WireFormats

/// A PKCE pair (RFC 7636) with the S256 method only: `plain` gives no protection when the
/// authorization request leaks, so the engine never offers it.
public struct PKCE: Sendable, Equatable {
    /// 43 base64url characters from 32 random bytes (RFC 7636 §4.1; 256 bits of entropy).
    public let codeVerifier: Secret
    /// BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2).
    public let codeChallenge: String
    public static let method = "S256"

    /// A fresh pair from `randomBytes` (the CSPRNG unless a test injects bytes).
    public static func generate(randomBytes: RandomBytes = .system) throws(OIDCError) -> PKCE {
        PKCE(codeVerifier: Secret(try randomBytes.base64URL(count: 32)))
    }

    /// The pair for a known verifier (RFC 7636 Appendix B vector in tests).
    public init(codeVerifier: Secret) {
        self.codeVerifier = codeVerifier
        codeChallenge = codeVerifier.withUnsafeBytes { Base64URL.encode(SHA256.hash($0)) }
    }
}

/// Where the engine's randomness comes from: the CSPRNG, or fixed bytes in tests so that an
/// authorization URL can be asserted field by field.
public struct RandomBytes: Sendable {
    private let generate: @Sendable (Int) throws -> [UInt8]

    public init(_ generate: @escaping @Sendable (Int) throws -> [UInt8]) {
        self.generate = generate
    }

    public static let system = RandomBytes { try Random.bytes($0) }

    /// `count` random bytes as unpadded base64url.
    func base64URL(count: Int) throws(OIDCError) -> String {
        do {
            return Base64URL.encode(try generate(count))
        } catch {
            throw .invalidConfiguration("the random number generator failed: \(error)")
        }
    }
}
