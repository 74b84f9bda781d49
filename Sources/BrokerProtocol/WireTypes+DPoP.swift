import WireFormats

/// A DPoP-bound access token with a proof for one resource request, as served by
/// `POST /v1/accounts/{name}/dpop-proof` (RFC 9449 §7.1): send `Authorization: DPoP <access_token>`
/// and `DPoP: <proof>`. The proof's `ath` binds it to this access token; the key never leaves the daemon.
public struct DPoPProofGrant: Codable, Sendable, Equatable {
    public var accessToken: String
    /// Always "DPoP".
    public var tokenType: String
    /// The compact JWS for the request's `DPoP` header.
    public var proof: String
    /// RFC 3339 UTC, or nil when the provider gave no lifetime.
    public var expiresAt: String?

    public init(accessToken: String, tokenType: String, proof: String, expiresAt: String?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.proof = proof
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case proof
        case expiresAt = "expires_at"
    }

    /// What `encode(to:)` produces, built without the Encoder: the proof route serializes it
    /// directly, where the generic encoder cost ≈ 6 µs of a proof (docs/BENCHMARKS-archive.md,
    /// "DPoP proofs: where a proof's CPU went"). The same names, and `expires_at` left out when nil, as the
    /// synthesized encoding does.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            CodingKeys.accessToken.rawValue: .string(accessToken),
            CodingKeys.tokenType.rawValue: .string(tokenType),
            CodingKeys.proof.rawValue: .string(proof),
        ]
        if let expiresAt { members[CodingKeys.expiresAt.rawValue] = .string(expiresAt) }
        return .object(members)
    }
}
