import BrokerProtocol

// The options of `account add` and `account update` that describe an account field, read into an
// `AccountConfiguration` in one place: `add` starts from an empty account, `update` from the one
// the daemon has.
extension AccountCommand {
    /// Every option that sets an account field (all but the client secret and the preset options).
    static let fieldOptions: [CommandLineArguments.Option] =
        [
            .value("--issuer"), .value("--client-id"), .repeated("--scope"), .value("--audience"), .value("--redirect-host"),
            .value("--redirect-port"), .value("--redirect-path"), .value("--redirect-uri"), .repeated("--param"),
        ] + endpointOptions.map { .value($0.flag) } + [
            .value("--discovery-url"), .value("--git-url-prefix"), .value("--git-username"), .value("--token-request-format"),
            .value("--token-endpoint-auth-method"), .value("--browser"), .value("--par"), .repeated("--pin-sha256"),
            .repeated("--tenant-allow"), .flag("--dpop"), .flag("--allow-narrowing"),
        ] + callerPolicyOptions

    /// The manual endpoint options, each with the field it sets.
    static let endpointOptions: [(flag: String, field: WritableKeyPath<ManualEndpoints, String?> & Sendable)] = [
        ("--authorization-endpoint", \.authorization), ("--token-endpoint", \.token),
        ("--revocation-endpoint", \.revocation), ("--userinfo-endpoint", \.userinfo),
        ("--device-authorization-endpoint", \.deviceAuthorization), ("--end-session-endpoint", \.endSession),
        ("--jwks-uri", \.jwksURI), ("--par-endpoint", \.pushedAuthorizationRequest),
    ]

    /// `account update`'s options that clear an optional field (back to its default), each with the
    /// options it conflicts with. The caller policy's are here too.
    static let clearingOptions: [(flag: String, conflicts: [String], clear: @Sendable (inout AccountConfiguration) -> Void)] = [
        ("--no-audience", ["--audience"], { $0.audience = nil }),
        ("--no-redirect-host", ["--redirect-host"], { $0.redirectHost = nil }),
        ("--no-redirect-port", ["--redirect-port"], { $0.redirectPort = nil }),
        ("--no-redirect-path", ["--redirect-path"], { $0.redirectPath = nil }),
        ("--no-redirect-uri", ["--redirect-uri"], { $0.redirectURI = nil }),
        ("--no-param", ["--param"], { $0.extraParameters = [:] }),
        ("--no-endpoints", endpointOptions.map(\.flag), { $0.endpoints = nil }),
        ("--no-discovery-url", ["--discovery-url"], { $0.discoveryURL = nil }),
        ("--no-git-url-prefix", ["--git-url-prefix"], { $0.gitURLPrefix = nil }),
        ("--no-git-username", ["--git-username"], { $0.gitUsername = nil }),
        ("--no-token-request-format", ["--token-request-format"], { $0.tokenRequestFormat = nil }),
        ("--no-token-endpoint-auth-method", ["--token-endpoint-auth-method"], { $0.tokenEndpointAuthMethod = nil }),
        ("--no-par", ["--par"], { $0.pushedAuthorization = nil }),
        ("--no-dpop", ["--dpop"], { $0.dpop = nil }),
        ("--no-browser", ["--browser"], { $0.browser = nil }),
        ("--no-pin-sha256", ["--pin-sha256"], { $0.pinSHA256 = nil }),
        ("--no-tenant-allow", ["--tenant-allow"], { $0.tenantAllow = nil }),
        ("--no-allow-narrowing", ["--allow-narrowing"], { $0.allowNarrowing = nil }),
        ("--no-allow-exe", ["--allow-exe"], { $0.allowExe = nil }),
        ("--no-confirm", ["--confirm"], { $0.confirmCallers = nil }),
        ("--no-allow-other-namespaces", ["--allow-other-namespaces"], { $0.allowOtherNamespaces = nil }),
        ("--no-allow-resource", ["--allow-resource"], { $0.narrowResources = nil }),
        ("--no-allow-audience", ["--allow-audience"], { $0.narrowAudiences = nil }),
        ("--no-client-secret", ["--client-secret-file"], { $0.clientSecret = nil }),
    ]

    /// Sets each field whose option is given (lists replace the field's list; endpoints are set one
    /// by one), checked here as the daemon would check them (a usage error, exit 64).
    static func setFields(_ arguments: CommandLineArguments, on configuration: inout AccountConfiguration) throws {
        if let issuer = arguments.value("--issuer") { configuration.issuer = issuer }
        if let clientID = arguments.value("--client-id") { configuration.clientID = clientID }
        let scopes = arguments.all("--scope")
        if !scopes.isEmpty { configuration.scopes = scopes }
        if let audience = arguments.value("--audience") { configuration.audience = audience }
        if let host = arguments.value("--redirect-host") { configuration.redirectHost = host }
        if let port = try arguments.integer("--redirect-port", in: 1...65_535) { configuration.redirectPort = port }
        if let path = arguments.value("--redirect-path") { configuration.redirectPath = path }
        if let uri = try redirectURI(arguments) { configuration.redirectURI = uri }
        let pairs = arguments.all("--param")
        if !pairs.isEmpty { configuration.extraParameters = try parameters(pairs) }
        var endpoints = configuration.endpoints ?? ManualEndpoints()
        for (flag, field) in endpointOptions { if let url = arguments.value(flag) { endpoints[keyPath: field] = url } }
        if !endpoints.isEmpty { configuration.endpoints = endpoints }
        if let url = arguments.value("--discovery-url") { configuration.discoveryURL = url }
        try setGitFields(arguments, on: &configuration)
        if let format: TokenRequestFormat = try choice("--token-request-format", arguments) {
            configuration.tokenRequestFormat = format
        }
        if let method: TokenEndpointAuthMethod = try choice("--token-endpoint-auth-method", arguments) {
            configuration.tokenEndpointAuthMethod = method
        }
        if let mode: PushedAuthorizationMode = try choice("--par", arguments) { configuration.pushedAuthorization = mode }
        if arguments.has("--dpop") { configuration.dpop = true }
        if let browser = arguments.value("--browser") { configuration.browser = try BrowserCommand(browser).template }
        if let pins = try pins(arguments) { configuration.pinSHA256 = pins }
        if let tenants = try tenants(arguments) { configuration.tenantAllow = tenants }
        try applyCallerPolicy(arguments, to: &configuration)
        if arguments.has("--allow-narrowing") { configuration.allowNarrowing = true }
        if let file = arguments.value("--client-secret-file") { configuration.clientSecret = try SecretFile.read(file) }
    }

    /// Applies the given `--no-*` options of `clearingOptions`; one with an option it conflicts with is refused.
    static func clearFields(_ arguments: CommandLineArguments, on configuration: inout AccountConfiguration)
        throws(UsageError)
    {
        for (flag, conflicts, clear) in clearingOptions where arguments.has(flag) {
            if let conflict = conflicts.first(where: { arguments.value($0) != nil || arguments.has($0) }) {
                throw UsageError("\(flag) and \(conflict) conflict")
            }
            clear(&configuration)
        }
    }

    /// `--param KEY=VALUE` pairs as a dictionary.
    static func parameters(_ pairs: [String]) throws(UsageError) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("--param takes KEY=VALUE, got '\(pair)'")
            }
            parameters[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return parameters
    }

    static func setGitFields(_ arguments: CommandLineArguments, on configuration: inout AccountConfiguration)
        throws(UsageError)
    {
        if let prefix = arguments.value("--git-url-prefix") {
            guard GitRemote(url: prefix) != nil else {
                throw UsageError("--git-url-prefix needs an http(s) URL such as https://git.example.com/, got '\(prefix)'")
            }
            configuration.gitURLPrefix = prefix
        }
        if let username = arguments.value("--git-username") {
            guard !username.isEmpty, username.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw UsageError("--git-username needs a plain user name, got '\(username)'")
            }
            configuration.gitUsername = username
        }
    }

    /// `--redirect-uri`, refused here as the daemon would refuse it (a usage error, exit 64), with
    /// RFC 8252's warning about a scheme without a dot.
    static func redirectURI(_ arguments: CommandLineArguments) throws(UsageError) -> String? {
        guard let text = arguments.value("--redirect-uri") else { return nil }
        do throws(PrivateUseRedirectURI.Problem) {
            let uri = try PrivateUseRedirectURI(parsing: text)
            if let warning = uri.warning { Output.note("warning: \(warning)") }
        } catch {
            throw UsageError(error.description)
        }
        return text
    }

    /// `--pin-sha256 PIN` (repeatable), refused here as the daemon would refuse it; nil when none.
    static func pins(_ arguments: CommandLineArguments) throws(UsageError) -> [String]? {
        let pins = arguments.all("--pin-sha256")
        guard !pins.isEmpty else { return nil }
        if let problem = PublicKeyPin.problem(with: pins) { throw UsageError("--pin-sha256: \(problem)") }
        return pins
    }

    /// `--tenant-allow GUID` (repeatable), refused here as the daemon would refuse it; nil when none.
    static func tenants(_ arguments: CommandLineArguments) throws(UsageError) -> [String]? {
        let tenants = arguments.all("--tenant-allow")
        guard !tenants.isEmpty else { return nil }
        if let problem = TenantID.problem(with: tenants) { throw UsageError("--tenant-allow: \(problem)") }
        return tenants
    }

    /// `--token-request-format form|json`; nil when not given (the daemon's default, form).
    /// The value of `flag`, one of `Choice`'s raw values (`--token-request-format form|json`).
    static func choice<Choice: RawRepresentable & CaseIterable>(_ flag: String, _ arguments: CommandLineArguments)
        throws(UsageError) -> Choice? where Choice.RawValue == String
    {
        guard let text = arguments.value(flag) else { return nil }
        guard let value = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue)
            throw UsageError("\(flag) takes \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), got '\(text)'")
        }
        return value
    }
}
