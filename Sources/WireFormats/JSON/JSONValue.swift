/// A parsed JSON document (RFC 8259), the model between bytes and `Codable`.
///
/// Numbers keep their literal text so each Swift type converts it exactly once, with its own range
/// check (an `Int64` never goes through `Double`). Objects are dictionaries: the parser refuses
/// duplicate names, and the writer always sorts names by their UTF-8 bytes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text, already checked against the RFC 8259 number grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A short name for error messages (never the value: it may be a secret).
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why JSON could not be parsed, decoded or encoded. Messages name a byte offset or a coding path,
/// never the offending value: wire JSON carries tokens.
public enum WireJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not RFC 8259 JSON: what was wrong and at which byte offset.
    case syntax(offset: Int, reason: String)
    /// Nested deeper than `WireJSON.maximumDepth`.
    case tooDeep(offset: Int)
    /// Longer than the caller's byte limit.
    case tooLarge(limit: Int)
    /// Valid JSON that does not have the expected shape (path like `accounts[0].state`).
    case mismatch(path: String, reason: String)
    /// A value JSON cannot represent (NaN, infinity) or an encoder misuse.
    case unencodable(path: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let offset, let reason): "invalid JSON at byte \(offset): \(reason)"
        case .tooDeep(let offset): "invalid JSON at byte \(offset): nested deeper than \(WireJSON.maximumDepth) levels"
        case .tooLarge(let limit): "JSON document larger than \(limit) bytes"
        case .mismatch(let path, let reason): "unexpected JSON at \(path.isEmpty ? "top level" : path): \(reason)"
        case .unencodable(let path, let reason): "cannot encode \(path.isEmpty ? "value" : path) as JSON: \(reason)"
        }
    }
}
