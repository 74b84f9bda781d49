import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// When a new account gets DPoP, and when `account add` only suggests it (`DPoPAdvice`): metadata
/// that advertises ES256 warns an account without `--dpop`; a preset that requires DPoP turns it on.
@Suite struct DPoPAdviceTests {
    static func account(dpop: Bool? = nil) -> AccountConfiguration {
        AccountConfiguration(name: "work", issuer: "https://idp.example", clientID: "c", dpop: dpop)
    }

    @Test func advertisedES256WarnsABearerAccountWithWhatToAdd() throws {
        let warning = try #require(DPoPAdvice.warning(for: Self.account(), advertised: ["RS256", "ES256"]))
        #expect(warning.hasPrefix("warning: ") && warning.contains("--dpop") && warning.contains("'work'"))
        #expect(!warning.contains("\n"))
    }

    @Test(arguments: [nil, [], ["RS256", "PS256"]] as [[String]?])
    func noWarningWithoutAnES256Advertisement(_ advertised: [String]?) {
        #expect(DPoPAdvice.warning(for: Self.account(), advertised: advertised) == nil)
    }

    @Test func noWarningForADPoPAccount() {
        #expect(DPoPAdvice.warning(for: Self.account(dpop: true), advertised: ["ES256"]) == nil)
    }

    @Test func aPresetThatRequiresDPoPTurnsItOn() throws {
        let preset = ProviderPreset(
            name: "dpop-required", summary: "a provider that takes only DPoP clients", options: [],
            issuer: .template("https://idp.example"), dpop: true, docsAnchor: "none")
        let arguments = try CommandLineArguments(
            ["work", "--client-id", "c"], command: "authctl account add", options: AccountCommand.addOptions)
        var configuration = AccountConfiguration(name: "work", issuer: "", clientID: "c")
        try AccountCommand.apply(
            preset, to: &configuration, arguments, CommandContext(socketPath: "/nonexistent", environment: [:]))
        #expect(configuration.dpop == true && configuration.issuer == "https://idp.example")
        #expect(DPoPAdvice.warning(for: configuration, advertised: ["ES256"]) == nil)
    }
}
