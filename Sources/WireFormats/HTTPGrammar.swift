/// The RFC 9110 token and RFC 9449 nonce rules as every module checks them (a DPoP proof's method
/// and nonce on both sides of the socket, a `DPoP-Nonce` header). The HTTP codec's own parser and
/// serializer use the same byte rule (`HTTPSyntax.isTokenByte`).
public enum HTTPGrammar {
    /// RFC 9110 §5.6.2: `token = 1*tchar`, at most `maximumLength` bytes.
    public static func isToken(_ text: String, maximumLength: Int = .max) -> Bool {
        let bytes = text.utf8
        return bytes.count <= maximumLength && HTTPSyntax.isToken(bytes)
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR`, NQCHAR = %x21 / %x23-5B / %x5D-7E (visible ASCII but
    /// quote and backslash), at most `maximumLength` bytes.
    public static func isNonce(_ text: String, maximumLength: Int) -> Bool {
        let bytes = text.utf8
        return (1...maximumLength).contains(bytes.count)
            && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
