import BrokerProtocol
import WireFormats

/// An account's configuration as the vault stores it (the `accounts.configuration` column): the
/// model's own JSON keys (`AccountConfiguration`, explicit and snake_case) plus `"version": 1`,
/// without `name` (the row's key column) and `client_secret` (sealed in its own column).
///
/// Decoding is strict, because a stored format read leniently loses data silently: an unknown
/// version, a missing key the encoder always writes, an unexpected key or a wrong type is a
/// `AccountDocumentError`, never a configuration with options quietly dropped.
public enum AccountDocument {
    /// The document version this authbroker writes and reads.
    public static let version = 1
    static let versionKey = "version"
    static let nameKey = "name"
    /// Stored documents are small; anything near this is damage.
    static let maximumBytes = 64 << 10

    /// The keys the encoder writes for every configuration (the non-optional fields), derived from
    /// the smallest model so a new required field is required in documents too.
    static let requiredKeys: Set<String> = {
        guard case .object(let fields)? = try? WireJSON.encodeValue(AccountConfiguration(name: "", issuer: "", clientID: ""))
        else { return [] }
        return Set(fields.keys).subtracting([nameKey]).union([versionKey])
    }()

    /// Every key a stored document may have.
    static let allowedKeys = AccountConfiguration.jsonKeys.subtracting([nameKey, AccountConfiguration.clientSecretKey])
        .union([versionKey])

    /// The document text for `configuration` (its client secret and name are not part of it).
    static func encode(_ configuration: AccountConfiguration) throws(WireJSONError) -> String {
        guard case .object(var fields) = try WireJSON.encodeValue(configuration.withoutSecret) else {
            throw .unencodable(path: "", reason: "an account configuration must encode as an object")
        }
        fields[nameKey] = nil
        fields[AccountConfiguration.clientSecretKey] = nil
        fields[versionKey] = .number(String(version))
        return String(decoding: WireJSON.serialize(.object(fields)), as: UTF8.self)
    }

    /// The configuration stored as `text` for the account row named `name`.
    static func decode(_ text: String, name: String) -> Result<AccountConfiguration, AccountDocumentError> {
        let parsed: JSONValue
        do { parsed = try WireJSON.parse(Array(text.utf8), maximumBytes: maximumBytes) } catch {
            return .failure(.malformed("\(error)"))
        }
        guard case .object(let fields) = parsed else { return .failure(.malformed("not a JSON object")) }
        guard fields[versionKey] == .number(String(version)) else {
            return .failure(.unknownVersion(fields[versionKey].map(Self.versionText) ?? "none"))
        }
        return configuration(fields, name: name)
    }

    private static func versionText(_ value: JSONValue) -> String {
        switch value {
        case .number(let literal): literal
        default: "not a number"
        }
    }
}
