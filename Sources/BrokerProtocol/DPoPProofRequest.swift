import WireFormats

/// `POST /v1/accounts/{name}/dpop-proof`'s body: the request a caller is about to send to a
/// resource server, for which the daemon signs a proof (docs/dpop.md).
///
/// Checked on both sides before anything is signed (`problem`): `method` an RFC 9110 token of at
/// most 32 bytes, `url` an absolute https URL (http only for a loopback host) of at most
/// `maximumURLLength` bytes without user info, `nonce` the resource server's `DPoP-Nonce`
/// (RFC 9449 §8.1 NQCHARs, at most 512 bytes); `scope`, `resource`, `audience` (optional, as in
/// the token route's query: `TokenNarrowing`) ask for a proof with a narrowed token.
public struct DPoPProofRequest: Codable, Sendable, Equatable {
    public static let maximumURLLength = 8192
    public static let maximumMethodLength = 32
    public static let maximumNonceLength = 512

    public var method: String
    public var url: String
    public var nonce: String?
    /// Space-separated, like the token route's query fields; nil: the account's own token.
    public var scope: String?
    public var resource: String?
    public var audience: String?

    public init(method: String, url: String, nonce: String? = nil, narrowing: TokenNarrowing = .none) {
        self.method = method
        self.url = url
        self.nonce = nonce
        let fields = Dictionary(uniqueKeysWithValues: narrowing.queryFields)
        (scope, resource, audience) = (fields["scope"], fields["resource"], fields["audience"])
    }

    /// The request read straight from a parsed body of the usual shape — an object whose members
    /// are all among the six names and strings — without the generic `Decoder` (a proof's hot
    /// path, docs/BENCHMARKS.md); nil for anything else, which the caller then decodes generically
    /// (to the same value, or to its error message). `DPoPProofRequestPlainJSONTests` holds the two
    /// to the same results.
    public init?(plainJSON json: JSONValue) {
        guard case .object(let members) = json, members.count <= 6, case .string(let method)? = members["method"],
            case .string(let url)? = members["url"]
        else { return nil }
        (self.method, self.url) = (method, url)
        (nonce, scope, resource, audience) = (nil, nil, nil, nil)
        for (name, value) in members {
            guard case .string(let text) = value else { return nil }
            switch name {
            case "method", "url": break
            case "nonce": nonce = text
            case "scope": scope = text
            case "resource": resource = text
            case "audience": audience = text
            default: return nil
            }
        }
    }

    /// The narrowed token the proof is asked with (`.none` for the account's own).
    public func narrowing() throws(NarrowingError) -> TokenNarrowing {
        try TokenNarrowing(scope: scope, resource: resource, audience: audience)
    }

    /// Why the request cannot be signed (one sentence saying what to pass), nil when it can.
    public var problem: String? {
        if case .failure(let problem) = checkedOrigin() { problem.description } else { nil }
    }

    /// The URL's origin (`origin(of:)`) once the whole request is known signable, or the sentence
    /// `problem` gives. Why one call: the daemon checks the request and audits its origin with one
    /// pass over the URL on the proof route's hot path (docs/BENCHMARKS.md, "DPoP proofs").
    public func checkedOrigin() -> Result<String, Problem> { checkedTarget().map(\.origin) }

    /// `checkedOrigin`'s check, answering the parsed URL (its origin for the audit line, its `htu`
    /// for the proof) so the proof route parses the caller's URL once.
    public func checkedTarget() -> Result<AbsoluteURL, Problem> {
        if !Self.isToken(method) {
            return .failure(
                Problem(
                    "The method must be an HTTP method such as GET or POST (a token of at most \(Self.maximumMethodLength) characters)."
                ))
        }
        if let nonce, !Self.isNonce(nonce) {
            return .failure(
                Problem(
                    "The nonce must be the resource server's DPoP-Nonce value as sent (at most \(Self.maximumNonceLength) visible ASCII characters, no quotes)."
                ))
        }
        let target: AbsoluteURL
        switch Self.target(url) {
        case .success(let value): target = value
        case .failure(let why): return .failure(Problem("The URL cannot be signed: \(why)."))
        }
        if scope != nil || resource != nil || audience != nil {
            do throws(NarrowingError) {
                _ = try narrowing()
            } catch {
                return .failure(Problem(error.description))
            }
        }
        return .success(target)
    }

    /// Why a request cannot be signed: one sentence saying what to pass.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `scheme://host[:port]` of the URL, for audit lines (never the path or query: they may carry
    /// identifiers the log does not need), or why the URL is refused.
    public static func origin(of url: String) -> Result<String, URLProblem> { target(url).map(\.origin) }

    /// The URL parsed once (WireFormats' `AbsoluteURL`) and checked as a proof's target: https, or
    /// http to a loopback host; no user info; no quotes or backslashes (the `htu` claim is a JSON
    /// string). The daemon reads the origin and the `htu` from this one parse.
    public static func target(_ url: String) -> Result<AbsoluteURL, URLProblem> {
        guard !url.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return .failure(.init("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)"))
        }
        let parsed: AbsoluteURL
        do throws(URLSyntaxError) {
            parsed = try AbsoluteURL(url, maximumLength: maximumURLLength)
        } catch {
            return .failure(.init(problem(error)))
        }
        guard !parsed.hasUserInfo else { return .failure(.init("it has user info (user@host); remove it")) }
        switch parsed.scheme {
        case "https": return .success(parsed)
        case "http" where parsed.host.isLoopback: return .success(parsed)
        case "http": return .failure(.init("http is allowed only for a loopback host (127.0.0.1, [::1], localhost); use https"))
        default: return .failure(.init("the scheme must be https"))
        }
    }

    private static func problem(_ error: URLSyntaxError) -> String {
        switch error {
        case .notVisibleASCII: "it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)"
        case .notAbsolute: "it is not absolute; pass https://host/path"
        case .invalidScheme: "the scheme must be https"
        default: error.description
        }
    }

    /// Why a URL is refused, as a phrase.
    public struct URLProblem: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// RFC 9110 §5.6.2 token of at most `maximumMethodLength` bytes (WireFormats' rule).
    public static func isToken(_ method: String) -> Bool { HTTPGrammar.isToken(method, maximumLength: maximumMethodLength) }

    /// RFC 9449 §8.1 nonce of at most `maximumNonceLength` bytes (WireFormats' rule).
    public static func isNonce(_ nonce: String) -> Bool { HTTPGrammar.isNonce(nonce, maximumLength: maximumNonceLength) }
}
