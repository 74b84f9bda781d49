import BrokerProtocol

extension AccountCommand {
    /// `account add`'s options for an account of a protected resource (RFC 9728, RFC 8707).
    static let resourceOptions: [CommandLineArguments.Option] = [
        .value("--resource-url"), .flag("--no-resource-parameter"), .value("--client-metadata-url"),
    ]

    /// `--resource-url URL` and `--no-resource-parameter` (checked and made canonical by the daemon).
    static func applyResource(_ arguments: CommandLineArguments, to configuration: inout AccountConfiguration) throws(UsageError)
    {
        configuration.resourceURL = arguments.value("--resource-url")
        configuration.clientMetadataURL = arguments.value("--client-metadata-url")
        if configuration.clientMetadataURL != nil, configuration.resourceURL == nil || arguments.value("--issuer") != nil {
            throw UsageError("--client-metadata-url needs --resource-url URL without --issuer (the daemon discovers the server)")
        }
        guard arguments.has("--no-resource-parameter") else { return }
        guard configuration.resourceURL != nil else { throw UsageError("--no-resource-parameter needs --resource-url URL") }
        configuration.sendResource = false
    }
}
