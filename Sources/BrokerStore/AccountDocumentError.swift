/// Why a stored account configuration (`AccountDocument`) cannot be read. The texts name keys and
/// versions, never values (a future field could hold something private).
public enum AccountDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another `version` than this authbroker reads: a newer (or older, unsupported) one wrote it.
    case unknownVersion(String)
    /// A key every stored configuration has is absent.
    case missingKey(String)
    /// A key this authbroker does not know: a newer one wrote it without a new version, or damage.
    case unexpectedKey(String)
    /// Not JSON, not an object, or a value of the wrong type (the path says where).
    case malformed(String)

    public var description: String {
        switch self {
        case .unknownVersion(let found):
            "its format version is \(found), but this authbroker reads version \(AccountDocument.version) "
                + "(was it written by a newer authbroker?)"
        case .missingKey(let key): "the key '\(key)' is missing"
        case .unexpectedKey(let key): "the key '\(key)' is not one this authbroker knows"
        case .malformed(let reason): reason
        }
    }
}
