import FoundationEssentials
import JSONLimits

/// Any JSON value, for the provider answers whose fields vary in type between providers
/// (`expires_in` as a number or a numeric string, `aud` as a string or an array).
enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Decodes `bytes` as a JSON object. The nesting gate runs first: this decoder recurses
    /// (about 3 KiB of stack per level), so only documents within `JSONNesting.maximumDepth`
    /// may reach it.
    static func object(from bytes: [UInt8]) throws(JSONObjectError) -> [String: JSONValue] {
        do throws(JSONTooDeep) {
            try JSONNesting.check(bytes)
        } catch {
            throw .tooDeep(error)
        }
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw .notAnObject
        }
        return object
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A number, or a string holding a decimal number (some providers quote `expires_in`).
    var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// A string, or an array of strings (`aud`); nil for anything else.
    var stringList: [String]? {
        switch self {
        case .string(let value): [value]
        case .array(let values):
            values.allSatisfy { $0.stringValue != nil } ? values.compactMap(\.stringValue) : nil
        default: nil
        }
    }
}

/// Why a provider's bytes are not a usable JSON object.
enum JSONObjectError: Error, Equatable {
    /// Nested deeper than the limit; refused before decoding.
    case tooDeep(JSONTooDeep)
    /// Not valid JSON, or valid JSON that is not an object.
    case notAnObject
}
