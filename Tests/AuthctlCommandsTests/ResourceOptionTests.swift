import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// `--resource-url`, `--no-resource-parameter`, `--client-metadata-url` as `account add` parses
/// them, and the microsoft preset, whose provider refuses RFC 8707's parameter.
@Suite struct ResourceOptionTests {
    static func parsed(_ words: [String]) throws -> CommandLineArguments {
        try CommandLineArguments(words, command: "authctl account add", options: AccountCommand.addOptions)
    }

    @Test func theMicrosoftPresetKeepsTheURLButSendsNoResource() throws {
        let preset = try #require(ProviderPreset.named("microsoft"))
        let arguments = try Self.parsed([
            "work", "--provider", "microsoft", "--tenant", "contoso.onmicrosoft.com", "--client-id", "c",
            "--resource-url", "https://mcp.example.com/mcp",
        ])
        var configuration = AccountConfiguration(name: "work", issuer: "", clientID: "c")
        try AccountCommand.applyResource(arguments, to: &configuration)
        try AccountCommand.apply(
            preset, to: &configuration, arguments, CommandContext(socketPath: "/nonexistent", environment: [:]))
        #expect(configuration.resourceURL == "https://mcp.example.com/mcp" && configuration.sendResource == false)
        #expect(ProviderPreset.all.filter { !$0.sendsResourceParameter }.map(\.name) == ["microsoft"])
    }

    @Test func theFlagsNeedTheResource() throws {
        var configuration = AccountConfiguration(name: "work", issuer: "https://idp.example", clientID: "c")
        #expect(throws: UsageError.self) {
            try AccountCommand.applyResource(try Self.parsed(["work", "--no-resource-parameter"]), to: &configuration)
        }
        #expect(throws: UsageError.self) {
            try AccountCommand.applyResource(
                try Self.parsed(["work", "--client-metadata-url", "https://a.example/c.json"]), to: &configuration)
        }
        try AccountCommand.applyResource(
            try Self.parsed([
                "work", "--resource-url", "https://mcp.example.com/mcp", "--client-metadata-url", "https://a.example/c.json",
            ]),
            to: &configuration)
        #expect(configuration.clientMetadataURL == "https://a.example/c.json" && configuration.sendResource == nil)
    }
}
