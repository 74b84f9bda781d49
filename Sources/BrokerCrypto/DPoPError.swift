/// Why a DPoP proof could not be made. No case carries the URL (its query may hold secrets), the
/// nonce or any key material: only what is wrong and what to do.
public enum DPoPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request URL cannot be a proof's `htu`; the reason names the part at fault.
    case invalidTargetURI(String)
    /// The method is not an HTTP token (RFC 9110 §9.1) of at most `DPoPProof.maximumMethodLength` characters.
    case invalidMethod
    /// A server's `DPoP-Nonce` is not 1–`DPoPProof.maximumNonceLength` NQCHARs (RFC 9449 §8.1).
    case invalidNonce
    /// OpenSSL could not sign (or encode) the proof.
    case signingFailed(CryptoError)

    public var description: String {
        switch self {
        case .invalidTargetURI(let why):
            "cannot make a DPoP proof for this URL: \(why); give an absolute http(s) URL such as https://api.example.com/v1/items"
        case .invalidMethod:
            "cannot make a DPoP proof: the HTTP method must be a token such as GET or POST"
        case .invalidNonce:
            "the server's DPoP-Nonce is not a valid nonce (RFC 9449 §8.1); it was not used — report this to the server's operator"
        case .signingFailed(let error):
            "cannot sign the DPoP proof: \(error)"
        }
    }
}
