/// JSON for the socket API without Foundation, so `authctl` starts fast (see docs/BENCHMARKS.md).
///
/// `encode` and `decode` drive any `Codable` type (Codable is the stdlib's, not Foundation's) through
/// `JSONValue`: a strict RFC 8259 parser on the way in, a writer with sorted names on the way out.
/// The output equals FoundationEssentials' `JSONEncoder` with `.sortedKeys` (and, when `pretty`,
/// `.prettyPrinted`) plus `.withoutEscapingSlashes`, so daemon and CLI can use either.
public enum WireJSON {
    /// Deepest nesting of arrays and objects accepted by the parser: the daemon-wide limit.
    public static let maximumDepth = JSONNesting.maximumDepth
    /// Default input limit: far above any socket API answer, far below memory trouble.
    public static let defaultMaximumBytes = 4 << 20

    /// Encodes `value` as compact (or 2-space indented) JSON with sorted object names.
    public static func encode<Value: Encodable>(_ value: Value, pretty: Bool = false) throws(WireJSONError) -> [UInt8] {
        serialize(try encodeValue(value), pretty: pretty)
    }

    /// Encodes `value` into the JSON model without serializing it.
    public static func encodeValue<Value: Encodable>(_ value: Value) throws(WireJSONError) -> JSONValue {
        let root = EncodingNode()
        do {
            try value.encode(to: WireJSONEncoder(node: root, codingPath: []))
        } catch let error as WireJSONError {
            throw error
        } catch {
            throw .unencodable(path: "", reason: "the value's encode(to:) failed")
        }
        return root.resolved()
    }

    /// Serializes an already built JSON value.
    public static func serialize(_ value: JSONValue, pretty: Bool = false) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.write(value)
        return writer.output
    }

    /// Parses strict RFC 8259 JSON of at most `maximumBytes` bytes.
    public static func parse(_ bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes) throws(WireJSONError) -> JSONValue {
        guard bytes.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        return try bytes.withUnsafeBufferPointer { buffer throws(WireJSONError) in try JSONParser.parse(buffer) }
    }

    /// Parses as `parse` and maps where each member and element starts, for messages that name a
    /// line and column (`JSONSourceMap`).
    public static func parseMapped(_ bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes) throws(WireJSONError)
        -> (JSONValue, JSONSourceMap)
    {
        guard bytes.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        var map: JSONSourceMap? = JSONSourceMap(bytes: bytes)
        let value = try bytes.withUnsafeBufferPointer { buffer throws(WireJSONError) in try JSONParser.parse(buffer, into: &map) }
        return (value, map!)
    }

    /// Parses `bytes` and decodes a `Value` from them.
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes
    ) throws(WireJSONError) -> Value {
        try decode(type, from: parse(bytes, maximumBytes: maximumBytes))
    }

    /// Decodes a `Value` from an already parsed JSON value.
    public static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws(WireJSONError) -> Value {
        do {
            return try Value(from: WireJSONDecoder(value: value, codingPath: []))
        } catch let error as WireJSONError {
            throw error
        } catch {
            // A type's own init(from:) threw, e.g. DecodingError.dataCorrupted for an unknown enum case.
            // Its debugDescription may quote the value, so keep only the path.
            throw .mismatch(path: Self.codingPath(of: error), reason: "invalid value")
        }
    }

    static func codingPath(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            CodingPathText.render(context.codingPath)
        default:
            ""
        }
    }
}

/// Renders a coding path as `accounts[0].last_error.code`.
enum CodingPathText {
    static func render(_ path: [any CodingKey], appending last: (any CodingKey)? = nil) -> String {
        let path = last.map { path + [$0] } ?? path
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
