/// Hostile JSON for the nesting-limit tests: valid documents nested far deeper than any parser
/// in the daemon accepts (10,000 levels by default: ~20 KB of arrays, ~60 KB of objects).
public enum DeepJSON {
    public static let defaultDepth = 10_000

    /// `[[[…]]]`, `depth` arrays inside one another.
    public static func arrays(_ depth: Int = defaultDepth) -> [UInt8] {
        Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    /// `{"a":{"a":…1…}}`, `depth` objects inside one another.
    public static func objects(_ depth: Int = defaultDepth) -> [UInt8] {
        Array((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
    }

    /// An object whose `member` holds `depth - 1` nested arrays, so the top level is an object
    /// (the shape a provider's answer must have) and only the depth is wrong.
    public static func objectHolding(_ member: String = "a", depth: Int = defaultDepth) -> [UInt8] {
        Array("{\"\(member)\":".utf8) + arrays(depth - 1) + Array("}".utf8)
    }
}

/// A deep document as a parameterized test's argument: the shape, not its ~50 KB of bytes.
/// Swift Testing JSON-encodes and prints every argument (its test case ID and description) on
/// the cooperative pool, element by element; a thread dump of a stalled run caught both pool
/// threads doing that for these ~50 KB arrays (docs/DEVELOPING.md: nothing slow on the pool).
public struct DeepDocument: Sendable, Codable, CustomStringConvertible {
    public let shape: String
    public let member: String?

    public static let arrays = DeepDocument(shape: "arrays", member: nil)
    public static let objects = DeepDocument(shape: "objects", member: nil)
    public static func holding(_ member: String) -> DeepDocument { DeepDocument(shape: "objectHolding", member: member) }

    public var bytes: [UInt8] {
        switch shape {
        case "arrays": DeepJSON.arrays()
        case "objects": DeepJSON.objects()
        default: DeepJSON.objectHolding(member ?? "a")
        }
    }

    public var description: String { member.map { "\(shape)(\($0))" } ?? shape }
}
