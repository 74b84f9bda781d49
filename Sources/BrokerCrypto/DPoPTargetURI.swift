import WireFormats

/// A DPoP proof's `htu` (RFC 9449 §4.2): the request's target URI without query and fragment,
/// normalised the way §4.3 tells servers to compare it (`AbsoluteURL.normalizedWithoutQuery`:
/// RFC 3986 §6.2.2 syntax-based and §6.2.3 scheme-based normalisation, the path otherwise as
/// given — it is what the request line carries).
///
/// A policy over WireFormats' `AbsoluteURL`, refused fail closed: what the parser refuses, other
/// schemes than http and https, user info (a password must never be signed into a header), quotes
/// and backslashes (the claim is a JSON string), URLs longer than `maximumLength`.
public enum DPoPTargetURI {
    public static let maximumLength = AbsoluteURL.maximumLength

    public static func normalize(_ url: String) throws(DPoPError) -> String {
        try normalize(try parse(url))
    }

    /// The URL parsed for `normalize(_:)`: the daemon parses a proof's URL once and reads its
    /// origin, its `htu` and its refusal key from it (docs/BENCHMARKS.md, "DPoP proofs").
    public static func parse(_ url: String) throws(DPoPError) -> AbsoluteURL {
        guard !url.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            throw .invalidTargetURI("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)")
        }
        do throws(URLSyntaxError) {
            return try AbsoluteURL(url, maximumLength: maximumLength)
        } catch .notVisibleASCII {
            throw .invalidTargetURI("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)")
        } catch .invalidScheme {
            throw .invalidTargetURI("the scheme must be http or https")
        } catch {
            throw .invalidTargetURI(error.description)
        }
    }

    /// `htu` of a parsed URL (no second parse).
    public static func normalize(_ url: AbsoluteURL) throws(DPoPError) -> String {
        guard url.scheme == "https" || url.scheme == "http" else { throw .invalidTargetURI("the scheme must be http or https") }
        guard !url.hasUserInfo else { throw .invalidTargetURI("it has user info (user@host); remove it") }
        return url.normalizedWithoutQuery
    }
}
