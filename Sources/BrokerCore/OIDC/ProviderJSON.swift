import BrokerProtocol
import WireFormats

/// Provider answers (token, error, userinfo, device authorization, ID token payloads) as JSON
/// objects, read with the socket API's own strict parser (`WireJSON`, fuzzed, Foundation-free),
/// so the daemon has one JSON coder. The nesting gate runs first, over the raw bytes: the
/// parser's own depth limit is the same 64 levels, but the gate's error is the one users see.
enum ProviderJSON {
    /// Parses `bytes` as a JSON object.
    static func object(from bytes: [UInt8]) throws(JSONObjectError) -> [String: JSONValue] {
        do throws(JSONTooDeep) {
            try JSONNesting.check(bytes)
        } catch {
            throw .tooDeep(error)
        }
        guard case .object(let object)? = try? WireJSON.parse(bytes) else { throw .notAnObject }
        return object
    }
}

/// Why a provider's bytes are not a usable JSON object.
enum JSONObjectError: Error, Equatable {
    /// Nested deeper than the limit; refused before parsing.
    case tooDeep(JSONTooDeep)
    /// Not valid JSON, or valid JSON that is not an object.
    case notAnObject
}
