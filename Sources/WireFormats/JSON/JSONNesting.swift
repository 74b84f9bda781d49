/// The one nesting limit for JSON from outside the daemon, and the gate that enforces it.
///
/// Every decoder of untrusted JSON recurses once per array or object level: FoundationEssentials'
/// scanner stops only at 512 levels, and a `Decodable` tree (such as the OIDC `JSONValue` BrokerCore had) cost
/// about 3 KiB of stack per level, so 175 nested objects overflowed a 512 KiB listener thread.
/// `check` runs first, over the raw bytes, in one pass with constant memory and no recursion;
/// only documents within `maximumDepth` reach a decoder, whose recursion is then bounded.
///
/// The scan follows JSON's lexical structure only as far as depth needs: brackets inside
/// strings (including after a `\"` escape) do not count. It does not validate; the decoder
/// does, and for any input the decoder reads as far as the scan, the depth the decoder reaches
/// is never more than the scan's (both see the same strings and brackets up to the first error).
public enum JSONNesting {
    /// Deepest nesting of arrays and objects accepted anywhere (DESIGN: "64 for JSON").
    public static let maximumDepth = 64

    /// Throws when `bytes` open more than `limit` arrays/objects inside one another.
    public static func check(_ bytes: [UInt8], limit: Int = maximumDepth) throws(JSONTooDeep) {
        if let offset = bytes.withUnsafeBufferPointer({ firstExcess(in: $0, limit: limit) }) {
            throw JSONTooDeep(offset: offset, limit: limit)
        }
    }

    /// The offset of the first `[` or `{` that opens level `limit + 1`, or nil when there is none.
    public static func firstExcess(in bytes: UnsafeBufferPointer<UInt8>, limit: Int = maximumDepth) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return index }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                // A stray closer makes the document invalid (the decoder stops there); never
                // let it lower the count below zero, which would admit deeper nesting after it.
                depth = max(depth - 1, 0)
            default:
                break
            }
        }
        return nil
    }
}

/// A document nests arrays/objects deeper than the limit. Carries only an offset, never input.
public struct JSONTooDeep: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the bracket that went one level too deep.
    public let offset: Int
    public let limit: Int

    public init(offset: Int, limit: Int = JSONNesting.maximumDepth) {
        self.offset = offset
        self.limit = limit
    }

    public var description: String { "JSON nested deeper than \(limit) levels (at byte \(offset))" }

    /// The sentence for a user: "<what> nests JSON deeper than 64 levels".
    public func describing(_ what: String) -> String { "\(what) nests JSON deeper than \(limit) levels" }
}
