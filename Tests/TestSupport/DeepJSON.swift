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
