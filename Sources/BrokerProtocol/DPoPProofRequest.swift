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
    public func checkedOrigin() -> Result<String, Problem> {
        if !Self.isToken(method) {
            return .failure(Problem(
                "The method must be an HTTP method such as GET or POST (a token of at most \(Self.maximumMethodLength) characters)."))
        }
        if let nonce, !Self.isNonce(nonce) {
            return .failure(Problem(
                "The nonce must be the resource server's DPoP-Nonce value as sent (at most \(Self.maximumNonceLength) visible ASCII characters, no quotes)."))
        }
        let origin: String
        switch Self.origin(of: url) {
        case .success(let value): origin = value
        case .failure(let why): return .failure(Problem("The URL cannot be signed: \(why)."))
        }
        if scope != nil || resource != nil || audience != nil {
            do throws(NarrowingError) {
                _ = try narrowing()
            } catch {
                return .failure(Problem(error.description))
            }
        }
        return .success(origin)
    }

    /// Why a request cannot be signed: one sentence saying what to pass.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `scheme://host[:port]` of the URL, for audit lines (never the path or query: they may carry
    /// identifiers the log does not need), or why the URL is refused. Works on the UTF-8 bytes:
    /// everything past the first check is visible ASCII.
    public static func origin(of url: String) -> Result<String, URLProblem> {
        var url = url
        return url.withUTF8(origin(ofBytes:))
    }

    private static func origin(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> Result<String, URLProblem> {
        guard bytes.count <= maximumURLLength else { return .failure(.init("it is longer than \(maximumURLLength) bytes")) }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else {
            return .failure(.init("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)"))
        }
        guard let separator = schemeSeparator(bytes) else {
            return .failure(.init("it is not absolute; pass https://host/path"))
        }
        let scheme = asciiLowercased(bytes[..<separator])
        let rest = bytes[(separator + 3)...]
        let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard !authority.isEmpty else { return .failure(.init("it has no host")) }
        guard !authority.contains(UInt8(ascii: "@")) else { return .failure(.init("it has user info (user@host); remove it")) }
        switch scheme {
        case "https": break
        case "http" where isLoopback(hostPart(authority)): break
        case "http": return .failure(.init("http is allowed only for a loopback host (127.0.0.1, [::1], localhost); use https"))
        default: return .failure(.init("the scheme must be https"))
        }
        return .success(scheme + "://" + asciiLowercased(authority))
    }

    /// The index of the first `://`.
    private static func schemeSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 3 else { return nil }
        for index in 0...(bytes.count - 3)
        where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/") {
            return index
        }
        return nil
    }

    private static func asciiLowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
            return bytes.count
        }
    }

    /// Why a URL is refused, as a phrase.
    public struct URLProblem: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private static func hostPart(_ authority: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        if authority.first == UInt8(ascii: "["), let close = authority.firstIndex(of: UInt8(ascii: "]")) {
            return authority[...close]
        }
        return authority.prefix { $0 != UInt8(ascii: ":") }
    }

    /// `localhost`, `[::1]` or a dotted-quad `127.x.y.z`, on the host's bytes (a String split here
    /// was a twentieth of a proof for a loopback URL).
    private static func isLoopback(_ host: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let name = asciiLowercased(host)
        if name == "localhost" || name == "[::1]" { return true }
        let parts = host.split(separator: UInt8(ascii: "."), maxSplits: 4, omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0].elementsEqual("127".utf8)
            && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy { (0x30...0x39).contains($0) }
                    && part.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 255
            }
    }

    /// RFC 9110 §5.6.2 token: visible ASCII except delimiters.
    public static func isToken(_ method: String) -> Bool {
        let delimiters = Array("\"(),/:;<=>?@[\\]{}".utf8)
        let bytes = method.utf8
        return (1...maximumMethodLength).contains(bytes.count)
            && bytes.allSatisfy { (0x21...0x7E).contains($0) && !delimiters.contains($0) }
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR`, NQCHAR = %x21 / %x23-5B / %x5D-7E.
    public static func isNonce(_ nonce: String) -> Bool {
        let bytes = nonce.utf8
        return (1...maximumNonceLength).contains(bytes.count)
            && bytes.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
    }
}
