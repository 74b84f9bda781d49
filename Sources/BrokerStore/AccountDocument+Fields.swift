import BrokerProtocol
import WireFormats

/// The common case of `AccountDocument.decode`, read member by member instead of through the
/// key-set checks and the generic `Decodable` machinery: every account's document is decoded at
/// start-up, and with 1,000 accounts the generic path was about a quarter of the daemon's CPU until
/// READY=1 (perf record; docs/BENCHMARKS.md, "Round 3"). It only ever *accepts*: anything it is not
/// sure of — an unknown or missing key, a null, a value of another type, a number that is not a
/// plain integer — makes it answer nil, and the caller runs the generic path, which gives the same
/// error as before. A document it accepts decodes to exactly what the generic path returns
/// (`AccountDocumentFieldsTests` checks both against each other for every key).
extension AccountDocument {
    /// Every key `plainConfiguration(_:name:)` reads: `allowedKeys`, spelled out (a test checks they are equal,
    /// so a new model field that is not added here only costs the generic path, never a value).
    static let fieldKeys: Set<String> = [
        versionKey, "issuer", "client_id", "scopes", "audience", "redirect_host", "redirect_port", "redirect_path",
        "redirect_uri", "extra_parameters", "endpoints", "discovery_url", "git_url_prefix", "git_username",
        "token_request_format", "browser", "pin_sha256", "tenant_allow", "token_endpoint_auth_method", "par", "dpop",
        "allow_exe", "confirm_callers", "allow_narrowing", "allow_other_namespaces", "narrow_resources", "narrow_audiences",
    ]

    /// The configuration in the members of a version-1 document, or nil to let the generic path decide.
    static func plainConfiguration(_ fields: [String: JSONValue], name: String) -> AccountConfiguration? {
        var configuration = AccountConfiguration(name: name, issuer: "", clientID: "")
        // The keys the encoder always writes (`requiredKeys`): all five must be seen.
        var required = 0
        for (key, value) in fields {
            switch key {
            case versionKey:
                guard value == versionNumber else { return nil }
                required += 1
            case "issuer":
                guard let text = string(value) else { return nil }
                configuration.issuer = text
                required += 1
            case "client_id":
                guard let text = string(value) else { return nil }
                configuration.clientID = text
                required += 1
            case "scopes":
                guard let list = strings(value) else { return nil }
                configuration.scopes = list
                required += 1
            case "extra_parameters":
                guard case .object(let members) = value else { return nil }
                var parameters: [String: String] = [:]
                // Not for none: reserving 0 on the empty dictionary allocates a storage (104 bytes
                // per account at rest, docs/BENCHMARKS.md "Round 5").
                if !members.isEmpty { parameters.reserveCapacity(members.count) }
                for (name, member) in members {
                    guard let text = string(member) else { return nil }
                    parameters[name] = text
                }
                configuration.extraParameters = parameters
                required += 1
            case "audience": guard set(&configuration.audience, string(value)) else { return nil }
            case "redirect_host": guard set(&configuration.redirectHost, string(value)) else { return nil }
            case "redirect_path": guard set(&configuration.redirectPath, string(value)) else { return nil }
            case "redirect_uri": guard set(&configuration.redirectURI, string(value)) else { return nil }
            case "discovery_url": guard set(&configuration.discoveryURL, string(value)) else { return nil }
            case "git_url_prefix": guard set(&configuration.gitURLPrefix, string(value)) else { return nil }
            case "git_username": guard set(&configuration.gitUsername, string(value)) else { return nil }
            case "browser": guard set(&configuration.browser, string(value)) else { return nil }
            case "redirect_port":
                // Only the plain integer literal the encoder writes; `1.0`, `1e2` and range errors
                // are the generic path's to judge.
                guard case .number(let literal) = value, let port = Int(literal, radix: 10) else { return nil }
                configuration.redirectPort = port
            case "pin_sha256": guard set(&configuration.pinSHA256, strings(value)) else { return nil }
            case "tenant_allow": guard set(&configuration.tenantAllow, strings(value)) else { return nil }
            case "allow_exe": guard set(&configuration.allowExe, strings(value)) else { return nil }
            case "dpop": guard set(&configuration.dpop, bool(value)) else { return nil }
            case "confirm_callers": guard set(&configuration.confirmCallers, bool(value)) else { return nil }
            case "allow_narrowing": guard set(&configuration.allowNarrowing, bool(value)) else { return nil }
            case "allow_other_namespaces": guard set(&configuration.allowOtherNamespaces, bool(value)) else { return nil }
            case "narrow_resources": guard set(&configuration.narrowResources, strings(value)) else { return nil }
            case "narrow_audiences": guard set(&configuration.narrowAudiences, strings(value)) else { return nil }
            case "token_request_format":
                guard set(&configuration.tokenRequestFormat, string(value).flatMap(TokenRequestFormat.init)) else {
                    return nil
                }
            case "token_endpoint_auth_method":
                guard set(&configuration.tokenEndpointAuthMethod, string(value).flatMap(TokenEndpointAuthMethod.init))
                else { return nil }
            case "par":
                guard set(&configuration.pushedAuthorization, string(value).flatMap(PushedAuthorizationMode.init)) else {
                    return nil
                }
            case "endpoints":
                // Rare (providers without discovery): its own small Decodable is cheap enough.
                guard case .object = value, let endpoints = try? WireJSON.decode(ManualEndpoints.self, from: value) else {
                    return nil
                }
                configuration.endpoints = endpoints
            default:
                return nil
            }
        }
        return required == 5 ? configuration : nil
    }

    private static let versionNumber = JSONValue.number(String(version))

    private static func set<Value>(_ field: inout Value?, _ value: Value?) -> Bool {
        guard let value else { return false }
        field = value
        return true
    }

    private static func string(_ value: JSONValue) -> String? {
        guard case .string(let text) = value else { return nil }
        return text
    }

    private static func bool(_ value: JSONValue) -> Bool? {
        guard case .bool(let flag) = value else { return nil }
        return flag
    }

    private static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let elements) = value else { return nil }
        var list: [String] = []
        list.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { return nil }
            list.append(text)
        }
        return list
    }
}
