import BrokerProtocol
import WireFormats

/// An option a preset needs (e.g. `--shop-domain`): its own flag, whose value fills the `{key}`
/// placeholder of the row's templates, or an ordinary `account add` option the provider cannot do
/// without (Auth0's `--audience`).
struct PresetOption: Sendable {
    /// What the value is and how it becomes a placeholder value.
    enum Kind: Sendable, Equatable {
        /// A host name (`SHOP.myshopify.com`, `https://HOST`), expanded to its https origin.
        case domain
        /// A base URL with an optional path (`https://sso.example.com/realms/dev`), trailing slash dropped.
        case url
        /// A Microsoft Entra tenant: a GUID, a verified domain, `organizations`, `common` or `consumers`.
        case tenant
        /// An `account add` option of its own (not a placeholder) that the preset requires.
        case accountOption
    }

    let flag: String
    /// Its placeholder in the row's templates (empty for `accountOption`).
    let key: String
    /// What a value looks like, for messages and `--provider help`.
    let example: String
    /// What it is, for messages.
    let what: String
    let kind: Kind
    /// The value when the option is not given; nil: the option is required.
    var defaultValue: String? = nil

    static func domain(_ flag: String, key: String, example: String, what: String) -> PresetOption {
        PresetOption(flag: flag, key: key, example: example, what: what, kind: .domain)
    }

    static func url(_ flag: String, key: String, example: String, what: String, default: String? = nil) -> PresetOption {
        PresetOption(flag: flag, key: key, example: example, what: what, kind: .url, defaultValue: `default`)
    }

    static func tenant(_ flag: String, key: String) -> PresetOption {
        PresetOption(
            flag: flag, key: key, example: "ID|organizations|common|consumers", what: "the Entra tenant", kind: .tenant)
    }

    /// `flag`, an existing `account add` option, made required by the preset.
    static func required(_ flag: String, example: String, what: String) -> PresetOption {
        PresetOption(flag: flag, key: "", example: example, what: what, kind: .accountOption)
    }

    /// The placeholder value for `text` as given on the command line.
    func placeholderValue(_ text: String) throws(UsageError) -> String {
        switch kind {
        case .domain: try PresetDomain.origin(text, option: self)
        case .url: try PresetURL.base(text, option: self)
        case .tenant: try EntraTenant.pathSegment(text, option: self)
        case .accountOption: text
        }
    }
}

/// A preset's URL option (`--realm-url`, `--dex-url`): `https://HOST[:PORT][/PATH]`, a bare host
/// taken as https, `http://` only for loopback hosts (as `PresetDomain`). The host is lower-cased,
/// the path kept as given (Keycloak realm names are case-sensitive) without its trailing slash, so
/// `{key}/…` templates never double it. No query, fragment or user info: the value is an issuer.
enum PresetURL {
    static func base(_ text: String, option: PresetOption) throws(UsageError) -> String {
        let problem = UsageError("\(option.flag) takes \(option.what) such as \(option.example), got '\(text)'")
        guard let url = try? AbsoluteURL(text.contains("://") ? text : "https://" + text), !url.hasUserInfo,
            url.query == nil, url.fragment == nil
        else { throw problem }
        var path = url.path
        while path.last == "/" { path = path.dropLast() }
        let pathAllowed = path.utf8.allSatisfy { byte in
            (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57)
                || [UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
        }
        guard pathAllowed, !path.contains("//"), !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw problem
        }
        return try PresetDomain.origin(url.scheme + "://" + url.authority, option: option) + path
    }
}

/// Microsoft Entra's tenant path segment (`login.microsoftonline.com/{tenant}/v2.0`).
enum EntraTenant {
    /// The tenant id of personal Microsoft accounts: the `consumers` document names this issuer,
    /// so `consumers` is written as it for discovery's issuer check to pass.
    static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    static func pathSegment(_ text: String, option: PresetOption) throws(UsageError) -> String {
        let value = text.lowercased()
        if value == "consumers" { return consumersTenantID }
        if value == "organizations" || value == "common" || isGUID(value) { return value }
        if let host = Host(value), host.kind == .name, PresetDomain.isHostName(host), host.text.contains(".") {
            return host.text  // a verified domain (contoso.onmicrosoft.com) names the tenant too
        }
        throw UsageError(
            "\(option.flag) takes a tenant id (GUID), a verified domain, organizations, common or consumers, got '\(text)'")
    }

    static func isGUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
