import BrokerProtocol

extension AccountCommand {
    /// `--resource-url URL` and `--no-resource-parameter` (checked and made canonical by the daemon).
    static func applyResource(_ arguments: CommandLineArguments, to configuration: inout AccountConfiguration) throws(UsageError) {
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
