import BrokerHTTP
import BrokerProtocol
import FoundationEssentials

/// The userinfo claims `authctl status` shows (OIDC Core §5.3). Display only: never used
/// for an access decision.
public struct UserInfo: Sendable, Equatable {
    public var subject: String
    public var email: String?
    public var name: String?
    public var preferredUsername: String?

    public init(subject: String, email: String? = nil, name: String? = nil, preferredUsername: String? = nil) {
        self.subject = subject
        self.email = email
        self.name = name
        self.preferredUsername = preferredUsername
    }

    /// Parses a userinfo answer; when the ID token's subject is known, the answer must be about
    /// the same subject (OIDC Core §5.3.2 — otherwise it may be a substituted response).
    public static func parse(_ response: HTTPResponse, expectedSubject: String?, now: Date) throws(OIDCError) -> UserInfo {
        let endpoint = ProviderEndpoint.userinfo.metadataKey
        guard response.status == 200 else { throw OIDCHTTP.failure(response, endpoint: endpoint, now: now) }
        let object = try OIDCHTTP.jsonObject(response, endpoint: endpoint)
        guard let subject = object["sub"]?.stringValue else {
            throw .malformedResponse(endpoint: endpoint, reason: "no sub")
        }
        if let expectedSubject, subject != expectedSubject { throw .userInfoSubjectMismatch }
        return UserInfo(
            subject: subject, email: object["email"]?.stringValue, name: object["name"]?.stringValue,
            preferredUsername: object["preferred_username"]?.stringValue)
    }
}
