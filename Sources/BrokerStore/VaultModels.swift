import BrokerCrypto
import BrokerProtocol

/// A stored account, without its client secret (read that with `Vault.clientSecret(for:)`, so a
/// damaged secret of one account never stops the others from being listed).
public struct Account: Sendable, Equatable, Identifiable {
    public let id: Int64
    /// The uid that created the account; names are unique per owner, and only the owner sees it.
    public let ownerUID: UInt32
    public var name: String
    /// The stored configuration (no client secret), or why it cannot be read: such an account is
    /// still listed, so one unreadable document never hides it or drops its options silently.
    public var configuration: Result<AccountConfiguration, AccountDocumentError>
    public var hasClientSecret: Bool
    public var createdAt: Double
}

/// What the daemon shows about an account's tokens. Never secret.
public struct TokenStatus: Sendable, Equatable {
    public var lastRefreshAt: Double?
    public var lastErrorCode: String?
    public var lastErrorMessage: String?
    /// The ID token's `sub`.
    public var subject: String?

    public init(
        lastRefreshAt: Double? = nil, lastErrorCode: String? = nil, lastErrorMessage: String? = nil,
        subject: String? = nil
    ) {
        self.lastRefreshAt = lastRefreshAt
        self.lastErrorCode = lastErrorCode
        self.lastErrorMessage = lastErrorMessage
        self.subject = subject
    }
}

/// A cached JSON document (provider metadata or JWKS) and when it was fetched (Unix seconds).
public struct CachedDocument: Sendable, Equatable {
    public var json: String
    public var fetchedAt: Double

    public init(json: String, fetchedAt: Double) {
        self.json = json
        self.fetchedAt = fetchedAt
    }
}

/// The sealed columns. The raw value is both the column name and the last AAD component.
public enum SealedField: String, Sendable, CaseIterable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
    case idToken = "id_token"
    case clientSecret = "client_secret"
    /// The account's DPoP private key (PKCS#8), in the same row as the tokens bound to it.
    case dpopKey = "dpop_key"
    /// RFC 7591's registration access token, in `client_registrations` (sealed under that row's id).
    case registrationAccessToken = "registration_access_token"

    /// The sealed columns of the `tokens` table, in the order `rekey` reads them.
    static let tokenFields: [SealedField] = [.accessToken, .refreshToken, .idToken, .dpopKey]

    /// "authbroker/v1/<account id>/<field>": binds a ciphertext to its account and column, so a
    /// value moved to another row or column fails authentication.
    func associatedData(accountID: Int64) -> [UInt8] {
        Array("authbroker/v1/\(accountID)/\(rawValue)".utf8)
    }
}
