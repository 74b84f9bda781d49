/// A provider's JWKS (`{"keys": [...]}`, RFC 7517 §5) reduced to the keys the broker can use.
///
/// Unusable entries (encryption keys, unknown types, short RSA keys, bad members) are skipped
/// rather than failing the whole set: providers publish such keys next to their signing keys.
public struct JWKSet: Sendable {
    public let keys: [JWK]
    /// Why each skipped entry was skipped, for diagnostics (`JWSError.description` text).
    public let skipped: [String]

    public init(json: [UInt8]) throws(JWSError) {
        let document = try JOSEJSON.decode(
            Document.self, from: json, what: "the JWKS", else: .malformed("the JWKS is not a JSON object with a \"keys\" array"))
        var keys: [JWK] = []
        var skipped: [String] = []
        for entry in document.keys {
            do throws(JWSError) {
                guard let members = entry.members else {
                    throw .invalidKey("an entry is not a JSON object with a string \"kty\"")
                }
                keys.append(try JWK(members: members))
            } catch {
                skipped.append(error.description)
            }
        }
        self.keys = keys
        self.skipped = skipped
    }

    public init(keys: [JWK]) {
        self.keys = keys
        skipped = []
    }

    /// The keys that may verify a token with this header `kid` and algorithm. With a `kid`, only
    /// keys carrying that exact `kid`; without one, every key that fits the algorithm.
    public func candidates(kid: String?, algorithm: JWSAlgorithm) -> [JWK] {
        keys.filter { key in key.supports(algorithm) && (kid == nil || key.kid == kid) }
    }

    /// Checks the header `alg` against the allow-list and verifies the signature with the
    /// candidate keys. Returns the algorithm that verified (for `at_hash`).
    @discardableResult
    public func verify(_ jws: JWSCompact) throws(JWSError) -> JWSAlgorithm {
        guard let algorithm = JWSAlgorithm(rawValue: jws.header.alg) else {
            throw .unsupportedAlgorithm(jws.header.alg)
        }
        let keys = candidates(kid: jws.header.kid, algorithm: algorithm)
        guard !keys.isEmpty else { throw .noMatchingKey(kid: jws.header.kid) }
        var lastError = JWSError.badSignature
        for key in keys {
            do throws(JWSError) {
                try key.verify(jws, algorithm: algorithm)
                return algorithm
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}

private struct Document: Decodable {
    let keys: [Entry]
}

/// One `keys` element; an element that does not decode becomes `nil` instead of failing the set.
private struct Entry: Decodable {
    let members: JWKMembers?

    init(from decoder: any Decoder) throws {
        members = try? JWKMembers(from: decoder)
    }
}
