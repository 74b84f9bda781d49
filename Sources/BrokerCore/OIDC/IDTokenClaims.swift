import BrokerProtocol
import FoundationEssentials
import WireFormats

/// The ID token claims the broker checks or shows (OpenID Connect Core §2).
public struct IDTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audiences: [String]
    public var expiresAt: Date
    public var issuedAt: Date
    public var nonce: String?
    public var authorizedParty: String?
    public var accessTokenHash: String?
    public var email: String?
    public var name: String?
    public var preferredUsername: String?
    /// `tid`: Microsoft Entra's tenant id, which a multi-tenant issuer's rule checks (`EntraIssuer`).
    public var tenantID: String?

    /// Decodes the JWS payload. Required: iss, sub, aud (string or array), exp, iat.
    public init(payload: [UInt8]) throws(IDTokenError) {
        let object: [String: JSONValue]
        do throws(JSONObjectError) {
            object = try ProviderJSON.object(from: payload)
        } catch .tooDeep(let error) {
            throw .malformed(error.describing("the payload"))
        } catch {
            throw .malformed("the payload is not a JSON object")
        }
        func string(_ name: String) throws(IDTokenError) -> String {
            guard let value = object[name]?.stringValue else { throw .missingClaim(name) }
            return value
        }
        func date(_ name: String) throws(IDTokenError) -> Date {
            guard let seconds = object[name]?.doubleValue, seconds.isFinite else { throw .missingClaim(name) }
            return Date(timeIntervalSince1970: seconds)
        }
        issuer = try string("iss")
        subject = try string("sub")
        guard let audiences = object["aud"]?.stringList, !audiences.isEmpty else { throw .missingClaim("aud") }
        self.audiences = audiences
        expiresAt = try date("exp")
        issuedAt = try date("iat")
        nonce = object["nonce"]?.stringValue
        authorizedParty = object["azp"]?.stringValue
        accessTokenHash = object["at_hash"]?.stringValue
        email = object["email"]?.stringValue
        name = object["name"]?.stringValue
        preferredUsername = object["preferred_username"]?.stringValue
        tenantID = object["tid"]?.stringValue
    }
}
