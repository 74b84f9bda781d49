/// `POST /v1/accounts/{name}/dpop-proof`'s answer: the DPoP-bound access token and a fresh proof
/// (RFC 9449 §7.1) for one request: send `Authorization: DPoP <access_token>` and `DPoP: <proof>`.
/// The proof carries `ath` for this token; the key that signed it never leaves the daemon.
public struct DPoPProofGrant: Codable, Sendable {
    public var accessToken: String
    /// `DPoP`.
    public var tokenType: String
    public var proof: String
    /// RFC 3339 UTC expiry of the access token, nil when the provider gave no lifetime.
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
}
