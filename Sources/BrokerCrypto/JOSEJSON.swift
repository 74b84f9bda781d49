import WireFormats

/// JSON decoding for JOSE objects (headers, JWKs, JWKS) with WireJSON, the daemon's one JSON
/// decoder (strict RFC 8259; no Foundation in BrokerCrypto). Any decoding failure becomes the one
/// `JWSError` the caller names: the decoder's own message may quote the input, which can be a token.
/// The nesting gate runs first: a JWKS or header comes from the provider, and a deeply nested
/// one must be refused before the decoder sees it.
enum JOSEJSON {
    /// `what` names the document in the too-deep error ("the JWKS", "the header").
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8], what: String, else error: JWSError)
        throws(JWSError) -> Value
    {
        do throws(JSONTooDeep) {
            try JSONNesting.check(bytes)
        } catch {
            throw .malformed(error.describing(what))
        }
        do throws(WireJSONError) {
            return try WireJSON.decode(type, from: bytes)
        } catch _ {
            throw error
        }
    }
}
