import BrokerCrypto
import WireFormats

/// The account's own authorization-server endpoints, which a DPoP proof must never be made for:
/// a caller holding a proof for the token endpoint (plus the access token) could redeem or refresh
/// there with the account's key — the key that must never leave the daemon would sign for it.
/// Token, pushed authorization (RFC 9126), revocation (RFC 7009), device authorization (RFC 8628),
/// authorization and end-session endpoints are refused; userinfo and the JWKS are resources the
/// access token is meant for (OpenID Connect Core §5.3), so their proofs are served.
/// URLs are compared as RFC 9449 §4.3 tells a server to compare `htu`: without query and fragment,
/// after RFC 3986 §6.2.2 normalisation — and more (the whole URL lower-cased, dot segments
/// removed, a trailing slash and a host's trailing dot dropped), so a spelling the server might
/// accept is refused too (fail closed).
///
/// Made once per metadata document (`CachedProviderMetadata.proofTargets`): a proof parses only
/// the caller's URL, and most proofs go to another host than the endpoints', answered by a set
/// lookup of the host.
struct AuthorizationServerTargets: Sendable, Equatable {
    private let keys: Set<String>
    private let hosts: Set<String>
    /// False when made without metadata: then `allows` answers no to every URL (fail closed).
    private let known: Bool

    init(_ metadata: ProviderMetadata?) {
        guard let metadata else {
            (keys, hosts, known) = ([], [], false)
            return
        }
        known = true
        let endpoints = [
            metadata.tokenEndpoint, metadata.pushedAuthorizationRequestEndpoint, metadata.revocationEndpoint,
            metadata.deviceAuthorizationEndpoint, metadata.authorizationEndpoint, metadata.endSessionEndpoint,
        ].compactMap { $0 }
        // An endpoint that does not parse is compared as written, lower-cased: no URL that parses
        // matches it, and none is served a proof before its own parse succeeded.
        let parsed = endpoints.map { text in (try? AbsoluteURL(text)).map { (Self.key($0), Self.hostKey($0)) } }
        keys = Set(zip(endpoints, parsed).map { text, parsed in parsed?.0 ?? text.lowercased() })
        hosts = Set(parsed.compactMap { $0?.1 })
    }

    /// True when a proof for `url` would be usable at one of the endpoints.
    func contains(_ url: AbsoluteURL) -> Bool {
        hosts.contains(Self.hostKey(url)) && keys.contains(Self.key(url))
    }

    /// `contains` of a URL not parsed yet; one that does not parse is refused elsewhere.
    func contains(_ url: String) -> Bool {
        guard let parsed = try? AbsoluteURL(url) else { return keys.contains(url.lowercased()) }
        return contains(parsed)
    }

    /// True when the endpoints are known and `url` is none of them (the fast path's question).
    func allows(_ url: AbsoluteURL) -> Bool { known && !contains(url) }

    /// `allows` of a URL not parsed yet; one that does not parse is not allowed (fail closed).
    func allows(_ url: String) -> Bool { (try? AbsoluteURL(url)).map(allows) ?? false }

    private static func hostKey(_ url: AbsoluteURL) -> String {
        url.host.text.hasSuffix(".") ? String(url.host.text.dropLast()) : url.host.text
    }

    /// `scheme://host[:port]/path`, lower-case, the default port and the query and fragment gone,
    /// unreserved characters percent-decoded, dot segments removed, no trailing slash.
    static func key(_ url: AbsoluteURL) -> String {
        var key = url.scheme + "://" + (url.host.kind == .ipv6 ? url.host.uriText : hostKey(url))
        if let port = url.port, port != url.defaultPort { key += ":" + String(port) }
        var segments: [Substring] = []
        for segment in url.normalizedPath.lowercased().split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        while segments.last == "" { segments.removeLast() }
        return key + "/" + segments.joined(separator: "/")
    }
}
