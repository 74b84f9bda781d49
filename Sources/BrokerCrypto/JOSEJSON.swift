#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import FoundationEssentials
#endif

/// JSON decoding for JOSE objects (headers, JWKs, JWKS). Any decoding failure becomes the one
/// `JWSError` the caller names: the decoder's own message may quote the input, which can be a token.
enum JOSEJSON {
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8], else error: JWSError)
        throws(JWSError) -> Value
    {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch _ {
            throw error
        }
    }
}
