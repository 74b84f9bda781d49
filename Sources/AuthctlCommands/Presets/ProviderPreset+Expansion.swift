import BrokerProtocol
import WireFormats

// Filling a configuration from a preset row: placeholder values, template expansion, and the rule
// that an option the user gave wins over the row.
extension ProviderPreset {
    /// The placeholder filled from the issuer once it is known.
    static let issuerLastSegmentKey = "issuer_last_segment"

    /// Placeholder values from the command line: `client_id` and each of the row's options (its
    /// default when not given); a required option that is missing is a usage error naming it.
    func values(clientID: String, arguments: CommandLineArguments) throws(UsageError) -> [String: String] {
        var values = ["client_id": clientID]
        for option in options {
            guard let text = arguments.value(option.flag) ?? option.defaultValue else {
                throw UsageError("--provider \(name) needs \(option.flag) \(option.example) (\(option.what))")
            }
            let value = try option.placeholderValue(text)
            if option.kind != .accountOption { values[option.key] = value }
        }
        return values
    }

    /// `template` with every `{key}` replaced; nil when it names a placeholder `values` lacks (a
    /// defect of the table, which `ProviderPresetTests` rules out for every row).
    static func expand(_ template: String, _ values: [String: String]) -> String? {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}"),
                let value = values[String(rest[rest.index(after: open)..<close])]
            else { return nil }
            result += rest[..<open] + value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Every template of the row (issuer, discovery URL, endpoints, redirect), for the table's tests.
    var templates: [String] {
        var all = [discoveryURL, redirectURI].compactMap { $0 } + endpoints.configured.map(\.url)
        if case .template(let issuer) = issuer { all.append(issuer) }
        return all
    }

    /// `template` expanded, or an error naming the preset (never expected: see `expand`).
    func expanded(_ template: String, _ values: [String: String]) throws(UsageError) -> String {
        guard let text = Self.expand(template, values) else {
            throw UsageError("the --provider \(name) preset has a broken template '\(template)'; please report it")
        }
        return text
    }

    /// The preset's endpoints under the ones given explicitly (each explicit one wins), merged
    /// through the JSON encoding so a new endpoint needs no change here.
    func endpoints(under explicit: ManualEndpoints?, _ values: [String: String]) throws(UsageError) -> ManualEndpoints? {
        var fields: [String: JSONValue] = [:]
        for (key, template) in endpoints.configured { fields[key] = .string(try expanded(template, values)) }
        if let explicit, case .object(let given)? = try? WireJSON.encodeValue(explicit) {
            fields.merge(given) { _, mine in mine }
        }
        guard !fields.isEmpty else { return explicit }
        return try? WireJSON.decode(ManualEndpoints.self, from: .object(fields))
    }

    /// The last path segment of `issuer` (Shopify's shop id), nil when it has none.
    static func lastPathSegment(of issuer: String) -> String? {
        (try? AbsoluteURL(issuer))?.path.split(separator: "/").last.map(String.init)
    }
}

/// A preset's domain option (`--shop-domain`, `--authkit-domain`): a host name, expanded to its
/// origin. The usual form is a bare host (`SHOP.myshopify.com`, a custom domain); `https://HOST` is
/// accepted as pasted; `http://` only for loopback hosts (WireFormats' one rule, `Host.isLoopback`,
/// as the daemon applies to http issuers), so tests can point it at a local provider.
enum PresetDomain {
    static func origin(_ text: String, option: PresetOption) throws(UsageError) -> String {
        let problem = UsageError("\(option.flag) takes \(option.what) such as \(option.example), got '\(text)'")
        guard let url = try? AbsoluteURL(text.contains("://") ? text : "https://" + text),
            url.scheme == "https" || url.scheme == "http", !url.hasUserInfo, url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/", isHostName(url.host)
        else { throw problem }
        guard url.scheme == "https" || url.host.isLoopback else {
            throw UsageError("\(option.flag) needs https; plain http is allowed only for loopback hosts, got '\(text)'")
        }
        return url.origin
    }

    /// A DNS host name (RFC 1123 labels of letters, digits and inner hyphens, at most 253 bytes), an
    /// IPv4 address, or a loopback IPv6 literal.
    static func isHostName(_ host: Host) -> Bool {
        switch host.kind {
        case .ipv4: return true
        case .ipv6: return host.isLoopback
        case .name:
            let labels = host.text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            return host.text.utf8.count <= 253
                && labels.allSatisfy { label in
                    !label.isEmpty && label.count <= 63 && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                        && label.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
                }
        }
    }
}
