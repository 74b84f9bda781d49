import BrokerProtocol

// `authctl account add NAME --provider PRESET …`: the preset row (`ProviderPreset`) under the
// options the user gave.
extension AccountCommand {
    /// `--provider` and every preset's own options (`account add` accepts them all, then
    /// `selectedPreset` checks them against the preset).
    static let presetOptions: [CommandLineArguments.Option] =
        [.value("--provider")] + ProviderPreset.allOptionFlags.map { .value($0) }

    /// `--provider help`: each preset with its summary and the options it needs.
    static func presetList() -> String {
        var lines = ["provider presets (authctl account add NAME --provider PRESET --client-id ID ...):"]
        for preset in ProviderPreset.all {
            let needs = (["--client-id ID"] + preset.options.map(\.usage)).joined(separator: " ")
            lines.append("  " + preset.name.padding(16) + preset.summary)
            lines.append("  " + "".padding(16) + "needs: " + needs)
            lines.append("  " + "".padding(16) + "walk-through: docs/providers.md#" + preset.docsAnchor)
        }
        lines.append("A preset fills in the issuer, scopes, parameters, endpoints and redirect; options given")
        lines.append("explicitly override it.")
        return lines.joined(separator: "\n")
    }

    /// The preset `--provider` names, nil without one. A preset option without its preset, or
    /// with another one, is a usage error that says what to add.
    static func selectedPreset(_ arguments: CommandLineArguments) throws(UsageError) -> ProviderPreset? {
        let given = ProviderPreset.allOptionFlags.filter { arguments.value($0) != nil }
        func owners(_ flag: String) -> String {
            ProviderPreset.all.filter { $0.options.contains { $0.flag == flag } }.map { "--provider \($0.name)" }
                .joined(separator: " or ")
        }
        guard let name = arguments.value("--provider") else {
            if let flag = given.first { throw UsageError("\(flag) is an option of a provider preset: add \(owners(flag))") }
            return nil
        }
        guard let preset = ProviderPreset.named(name) else {
            let known = ProviderPreset.all.map(\.name).joined(separator: ", ")
            throw UsageError("unknown provider preset '\(name)' (known: \(known)); see: authctl account add --provider help")
        }
        if let flag = given.first(where: { flag in !preset.options.contains { $0.flag == flag } }) {
            throw UsageError("\(flag) is not an option of --provider \(name); it belongs to \(owners(flag))")
        }
        return preset
    }

    /// Fills what `preset` provides into `configuration` (built from the explicit options, which
    /// win), the issuer last: a discovery-document issuer is asked of the daemon, because authctl
    /// links no HTTP client (`POST /v1/discovery`).
    static func apply(
        _ preset: ProviderPreset, to configuration: inout AccountConfiguration, _ arguments: CommandLineArguments,
        _ context: CommandContext
    ) throws {
        var values = try preset.values(clientID: configuration.clientID, arguments: arguments)
        if configuration.discoveryURL == nil, let template = preset.discoveryURL {
            configuration.discoveryURL = try preset.expanded(template, values)
        }
        if arguments.all("--scope").isEmpty { configuration.scopes = preset.scopes }
        configuration.tokenRequestFormat = configuration.tokenRequestFormat ?? preset.tokenRequestFormat
        if preset.keepsGrantOnNarrowedRefresh { configuration.allowNarrowing = configuration.allowNarrowing ?? true }
        configuration.tokenEndpointAuthMethod = configuration.tokenEndpointAuthMethod ?? preset.tokenEndpointAuthMethod
        if preset.dpop { configuration.dpop = true }
        if !preset.sendsResourceParameter, configuration.resourceURL != nil { configuration.sendResource = false }
        if configuration.scopes.isEmpty { configuration.scopes = configuration.defaultScopes }
        configuration.extraParameters.merge(preset.parameters) { given, _ in given }
        configuration.endpoints = try preset.endpoints(under: configuration.endpoints, values)
        if arguments.value("--issuer") == nil {
            configuration.issuer = try presetIssuer(preset, configuration, values, arguments, context)
        }
        let loopbackGiven = ["--redirect-uri", "--redirect-host", "--redirect-port", "--redirect-path"].contains {
            arguments.value($0) != nil
        }
        if let host = preset.redirectHost, !loopbackGiven { configuration.redirectHost = host }
        if let template = preset.redirectURI, !loopbackGiven {
            values[ProviderPreset.issuerLastSegmentKey] = ProviderPreset.lastPathSegment(of: configuration.issuer)
            guard let uri = ProviderPreset.expand(template, values), (try? PrivateUseRedirectURI(parsing: uri)) != nil else {
                throw UsageError(
                    "cannot derive --provider \(preset.name)'s redirect URI from the issuer '\(configuration.issuer)'; "
                        + "give the one registered at the provider with --redirect-uri")
            }
            configuration.redirectURI = uri
        }
    }

    private static func presetIssuer(
        _ preset: ProviderPreset, _ configuration: AccountConfiguration, _ values: [String: String],
        _ arguments: CommandLineArguments, _ context: CommandContext
    ) throws -> String {
        switch preset.issuer {
        case .template(let template):
            return try preset.expanded(template, values)
        case .fromDiscoveryDocument:
            guard let url = configuration.discoveryURL else {
                throw UsageError("--provider \(preset.name) needs --discovery-url URL or --issuer URL")
            }
            do throws(BrokerClientError) {
                return try context.client.call(.discovery, body: DiscoveryRequest(url: url, pinSHA256: configuration.pinSHA256))
                    .issuer
            } catch {
                guard case .api(let wire) = error else { throw error }
                // Name the option that most likely holds the mistake.
                let suspect =
                    arguments.value("--discovery-url") != nil
                    ? "is --discovery-url right?"
                    : preset.options.first { preset.discoveryURL?.contains("{\($0.key)}") == true }
                        .map { "is \($0.flag) \($0.what)?" } ?? "check the options"
                throw BrokerClientError.api(WireError(code: wire.code, message: "\(wire.message); \(suspect)"))
            }
        }
    }
}

extension PresetOption {
    /// `--flag EXAMPLE`, in brackets with its default when the option may be left out (`--provider
    /// help` and providers.md's table).
    var usage: String {
        defaultValue.map { "[\(flag) \(example), default \($0)]" } ?? "\(flag) \(example)"
    }
}

extension String {
    /// Left-aligned in `width` columns (no Foundation in the CLI).
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
