import BrokerProtocol
import WireFormats

/// The one reader of a version-1 document's members, member by member: every account's document is
/// decoded at start-up, and with 1,000 accounts the generic key-set checks and `Decodable` it
/// replaced were about a quarter of the daemon's CPU until READY=1 (perf record; docs/BENCHMARKS-archive.md,
/// "READY=1 with 1,000 accounts"). One pass over the parsed object's members; only a document with
/// a problem is looked at again, in key order, so the error it reports does not depend on the order
/// a dictionary happens to hold its members in.
extension AccountDocument {
    /// Every key `read(_:_:into:)` takes: `allowedKeys`, spelled out (a test checks they are equal, so
    /// a new model field is read here or no document with it is stored).
    static let fieldKeys: Set<String> = [
        versionKey, "issuer", "client_id", "scopes", "audience", "redirect_host", "redirect_port", "redirect_path",
        "redirect_uri", "extra_parameters", "endpoints", "discovery_url", "git_url_prefix", "git_username",
        "token_request_format", "browser", "pin_sha256", "tenant_allow", "token_endpoint_auth_method", "par", "dpop",
        "allow_exe", "confirm_callers", "allow_narrowing", "allow_other_namespaces", "narrow_resources", "narrow_audiences",
        "resource_url", "send_resource", "client_metadata_url", "client_registration",
    ]

    /// The configuration in the members of a version-1 document (its version already checked).
    static func configuration(_ fields: [String: JSONValue], name: String) -> Result<AccountConfiguration, AccountDocumentError> {
        var configuration = AccountConfiguration(name: name, issuer: "", clientID: "")
        var required = 0
        for (key, value) in fields {
            do throws(AccountDocumentError) {
                if try read(key, value, into: &configuration) { required += 1 }
            } catch {
                return .failure(firstProblem(fields, name: name))
            }
        }
        guard required == requiredKeys.count else { return .failure(firstProblem(fields, name: name)) }
        return .success(configuration)
    }

    /// The problem a document reports: the first missing key, else the first unknown key, else the
    /// first value of the wrong type, in key order.
    private static func firstProblem(_ fields: [String: JSONValue], name: String) -> AccountDocumentError {
        if let missing = requiredKeys.subtracting(fields.keys).sorted().first { return .missingKey(missing) }
        if let unexpected = Set(fields.keys).subtracting(allowedKeys).sorted().first { return .unexpectedKey(unexpected) }
        var scratch = AccountConfiguration(name: name, issuer: "", clientID: "")
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            do throws(AccountDocumentError) { _ = try read(key, value, into: &scratch) } catch { return error }
        }
        return .malformed("the document could not be read")
    }

    /// Reads one member into `configuration`; true for a key every document has (`requiredKeys`).
    /// A null for an optional key leaves that option unset (the encoder never writes one; the
    /// generic decoder this replaced took it). The error names the key, never the value.
    // Inlined, and the cases in the old fast reader's order (a switch on strings compares them in
    // turn): so it costs 3 % fewer instructions than that reader did, not 2–4 % more (callgrind,
    // 1,000 documents of the encoder's shape, release build: 10.38 M against 10.70 M).
    @inline(__always)
    private static func read(_ key: String, _ value: JSONValue, into configuration: inout AccountConfiguration)
        throws(AccountDocumentError) -> Bool
    {
        let null: Bool
        if case .null = value { null = true } else { null = false }
        switch key {
        case versionKey: return true  // checked by `decode`
        case "issuer":
            configuration.issuer = try string(value, key)
            return true
        case "client_id":
            configuration.clientID = try string(value, key)
            return true
        case "scopes":
            configuration.scopes = try strings(value, key)
            return true
        case "extra_parameters":
            configuration.extraParameters = try parameters(value, key)
            return true
        case "audience": configuration.audience = null ? nil : try string(value, key)
        case "redirect_host": configuration.redirectHost = null ? nil : try string(value, key)
        case "redirect_path": configuration.redirectPath = null ? nil : try string(value, key)
        case "redirect_uri": configuration.redirectURI = null ? nil : try string(value, key)
        case "discovery_url": configuration.discoveryURL = null ? nil : try string(value, key)
        case "git_url_prefix": configuration.gitURLPrefix = null ? nil : try string(value, key)
        case "git_username": configuration.gitUsername = null ? nil : try string(value, key)
        case "browser": configuration.browser = null ? nil : try string(value, key)
        case "redirect_port": configuration.redirectPort = null ? nil : try integer(value, key)
        case "pin_sha256": configuration.pinSHA256 = null ? nil : try strings(value, key)
        case "tenant_allow": configuration.tenantAllow = null ? nil : try strings(value, key)
        case "allow_exe": configuration.allowExe = null ? nil : try strings(value, key)
        case "dpop": configuration.dpop = null ? nil : try bool(value, key)
        case "confirm_callers": configuration.confirmCallers = null ? nil : try bool(value, key)
        case "allow_narrowing": configuration.allowNarrowing = null ? nil : try bool(value, key)
        case "allow_other_namespaces": configuration.allowOtherNamespaces = null ? nil : try bool(value, key)
        case "narrow_resources": configuration.narrowResources = null ? nil : try strings(value, key)
        case "narrow_audiences": configuration.narrowAudiences = null ? nil : try strings(value, key)
        case "token_request_format": configuration.tokenRequestFormat = null ? nil : try choice(value, key)
        case "token_endpoint_auth_method": configuration.tokenEndpointAuthMethod = null ? nil : try choice(value, key)
        case "par": configuration.pushedAuthorization = null ? nil : try choice(value, key)
        case "endpoints": configuration.endpoints = null ? nil : try endpoints(value, key)
        case "resource_url": configuration.resourceURL = null ? nil : try string(value, key)
        case "send_resource": configuration.sendResource = null ? nil : try bool(value, key)
        case "client_metadata_url": configuration.clientMetadataURL = null ? nil : try string(value, key)
        case "client_registration": configuration.clientRegistration = null ? nil : try choice(value, key)
        default: throw .unexpectedKey(key)
        }
        return false
    }

    /// Rare (providers without discovery): its own small Decodable is cheap enough.
    private static func endpoints(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> ManualEndpoints {
        guard case .object = value, let endpoints = try? WireJSON.decode(ManualEndpoints.self, from: value) else {
            throw .malformed("the value of '\(key)' is not an object of endpoint URLs")
        }
        return endpoints
    }

    private static func string(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> String {
        guard case .string(let text) = value else { throw .malformed("the value of '\(key)' is not a string") }
        return text
    }

    private static func bool(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> Bool {
        guard case .bool(let flag) = value else { throw .malformed("the value of '\(key)' is not true or false") }
        return flag
    }

    /// The plain integer literal the encoder writes; another spelling of an integer (`8080.0`,
    /// `8e3`) as WireJSON's `Int` decoding reads it.
    private static func integer(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> Int {
        guard case .number(let literal) = value else { throw .malformed("the value of '\(key)' is not a number") }
        if let number = Int(literal, radix: 10) { return number }
        guard let number = try? WireJSON.decode(Int.self, from: value) else {
            throw .malformed("the value of '\(key)' is not an integer in range")
        }
        return number
    }

    private static func choice<Value: RawRepresentable<String>>(_ value: JSONValue, _ key: String)
        throws(AccountDocumentError) -> Value
    {
        guard case .string(let text) = value, let choice = Value(rawValue: text) else {
            throw .malformed("the value of '\(key)' is not one this authbroker knows")
        }
        return choice
    }

    private static func strings(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> [String] {
        guard case .array(let elements) = value else { throw .malformed("the value of '\(key)' is not a list of strings") }
        var list: [String] = []
        list.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { throw .malformed("the value of '\(key)' is not a list of strings") }
            list.append(text)
        }
        return list
    }

    private static func parameters(_ value: JSONValue, _ key: String) throws(AccountDocumentError) -> [String: String] {
        guard case .object(let members) = value else { throw .malformed("the value of '\(key)' is not an object of strings") }
        var parameters: [String: String] = [:]
        // Not for none: reserving 0 on the empty dictionary allocates a storage (104 bytes per
        // account at rest, docs/BENCHMARKS-archive.md, "Memory per account").
        if !members.isEmpty { parameters.reserveCapacity(members.count) }
        for (name, member) in members {
            guard case .string(let text) = member else { throw .malformed("the value of '\(key)' is not an object of strings") }
            parameters[name] = text
        }
        return parameters
    }
}
