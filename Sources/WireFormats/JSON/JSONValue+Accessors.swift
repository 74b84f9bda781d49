/// Typed reads of one JSON value, for documents read field by field rather than through `Codable`:
/// provider answers, whose fields vary in type between providers (`expires_in` as a number or a
/// numeric string, `aud` as a string or an array). Each is nil when the value has another shape.
extension JSONValue {
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A JSON number as a `Double` (±infinity when out of its range: callers check `isFinite`).
    public var doubleValue: Double? {
        if case .number(let literal) = self { return Double(literal) }
        return nil
    }

    /// A number, or a string holding a decimal number (some providers quote `expires_in`).
    public var numberValue: Double? {
        switch self {
        case .number: doubleValue
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// A string, or an array of strings (`aud`); nil for anything else.
    public var stringList: [String]? {
        switch self {
        case .string(let value): [value]
        case .array(let values):
            values.allSatisfy { $0.stringValue != nil } ? values.compactMap(\.stringValue) : nil
        default: nil
        }
    }
}
