import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// The rows of the usual providers (issue 12 item 6), each expanded from a command line as
/// `account add` parses it: endpoints, parameters, scopes, required options and their values.
@Suite struct ProviderPresetRowsTests {
    static func values(_ name: String, _ words: [String]) throws -> (ProviderPreset, [String: String]) {
        let preset = try #require(ProviderPreset.named(name))
        let arguments = try CommandLineArguments(words, command: "authctl account add", options: AccountCommand.addOptions)
        return (preset, try preset.values(clientID: "cid", arguments: arguments))
    }

    static func issuer(_ preset: ProviderPreset, _ values: [String: String]) throws -> String? {
        guard case .template(let template) = preset.issuer else { return nil }
        return ProviderPreset.expand(template, values)
    }

    @Test func everyRequiredOptionIsNamedWhenMissing() throws {
        for preset in ProviderPreset.all {
            for option in preset.options where option.defaultValue == nil {
                let arguments = try CommandLineArguments([], command: "authctl account add", options: AccountCommand.addOptions)
                #expect(throws: UsageError.self, "\(preset.name) without \(option.flag)") {
                    try preset.values(clientID: "cid", arguments: arguments)
                }
                #expect(
                    AccountCommand.addOptions.contains { $0.name == option.flag }, "\(option.flag) is not an account add option")
            }
        }
    }

    @Test func githubIsManualEndpointsWithoutOpenID() throws {
        let (github, values) = try Self.values("github", [])
        #expect(try Self.issuer(github, values) == "https://github.com")
        let endpoints = try #require(try github.endpoints(under: nil, values))
        #expect(endpoints.authorization == "https://github.com/login/oauth/authorize")
        #expect(endpoints.token == "https://github.com/login/oauth/access_token")
        #expect(endpoints.deviceAuthorization == "https://github.com/login/device/code")
        #expect(
            endpoints.jwksURI == nil && endpoints.revocation == nil, "GitHub has no JWKS (no ID token) and no RFC 7009 endpoint")
        #expect(!github.scopes.contains("openid") && github.scopes == ["repo", "read:org"])
        #expect(github.tokenEndpointAuthMethod == .clientSecretPost, "GitHub documents client_secret as a body parameter")
    }

    @Test func gitlabDefaultsToGitLabDotComAndTakesASelfManagedURL() throws {
        let (gitlab, values) = try Self.values("gitlab", [])
        #expect(try Self.issuer(gitlab, values) == "https://gitlab.com")
        let (_, own) = try Self.values("gitlab", ["--gitlab-url", "https://Git.Example.com/gitlab/"])
        #expect(try Self.issuer(gitlab, own) == "https://git.example.com/gitlab")
        #expect(gitlab.scopes == ["openid", "read_repository", "write_repository"] && gitlab.endpoints.isEmpty)
    }

    @Test func googleAsksForARefreshTokenOnEveryConsent() throws {
        let google = try #require(ProviderPreset.named("google"))
        #expect(google.parameters == ["access_type": "offline", "prompt": "consent"])
        #expect(
            try Self.issuer(google, ["client_id": "c"]) == "https://accounts.google.com" && google.scopes == ["openid", "email"])
    }

    @Test func microsoftBuildsTheTenantsV2Issuer() throws {
        for (tenant, issuer) in [
            (
                "72f988bf-86f1-41af-91ab-2d7cd011db47",
                "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"
            ),
            ("organizations", "https://login.microsoftonline.com/organizations/v2.0"),
            ("Common", "https://login.microsoftonline.com/common/v2.0"),
            ("consumers", "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"),
            ("contoso.onmicrosoft.com", "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0"),
        ] {
            let (microsoft, values) = try Self.values("microsoft", ["--tenant", tenant])
            #expect(try Self.issuer(microsoft, values) == issuer)
        }
        for bad in ["", "72f988bf-86f1-41af-91ab", "../common", "https://login.microsoftonline.com/x", "tenant", "a.b:443"] {
            #expect(throws: UsageError.self, "\(bad)") { try Self.values("microsoft", ["--tenant", bad]) }
        }
        let microsoft = try #require(ProviderPreset.named("microsoft"))
        #expect(microsoft.scopes.contains("offline_access") && microsoft.redirectHost == "localhost")
    }

    @Test func keycloakDexAndTheToolkitKeepTheURLsPath() throws {
        let (keycloak, realm) = try Self.values("keycloak", ["--realm-url", "sso.example.com/realms/Dev/"])
        #expect(try Self.issuer(keycloak, realm) == "https://sso.example.com/realms/Dev")
        let (dex, dexValues) = try Self.values("dex", ["--dex-url", "http://127.0.0.1:5556/dex"])
        #expect(try Self.issuer(dex, dexValues) == "http://127.0.0.1:5556/dex" && dex.redirectHost == "localhost")
        let (dot, dotValues) = try Self.values("django-oauth-toolkit", ["--dot-url", "https://app.example.com/o"])
        let endpoints = try #require(try dot.endpoints(under: nil, dotValues))
        #expect(endpoints.revocation == "https://app.example.com/o/revoke_token/")
        #expect(
            endpoints.jwksURI == "https://app.example.com/o/.well-known/jwks.json"
                && endpoints.token == "https://app.example.com/o/token/")
        for bad in [
            "http://sso.example.com/realms/x", "https://sso.example.com/realms/x?a=b", "https://sso.example.com/a/../b",
            "https://user@sso.example.com/x", "https://sso.example.com//x", "https://sso.example.com/x#y",
        ] {
            #expect(throws: UsageError.self, "\(bad)") { try Self.values("keycloak", ["--realm-url", bad]) }
        }
    }

    @Test func oktaAndAuth0BuildTheirIssuersAndAuth0NeedsTheAudience() throws {
        let (okta, oktaValues) = try Self.values("okta", ["--okta-domain", "ORG.okta.com"])
        #expect(try Self.issuer(okta, oktaValues) == "https://org.okta.com/oauth2/default")
        #expect(throws: UsageError.self) { try Self.values("auth0", ["--auth0-domain", "t.eu.auth0.com"]) }
        let (auth0, values) = try Self.values(
            "auth0", ["--auth0-domain", "t.eu.auth0.com", "--audience", "https://api.example.com"])
        #expect(try Self.issuer(auth0, values) == "https://t.eu.auth0.com/", "Auth0's issuer ends with a slash")
        #expect(values["audience"] == nil && values[""] == nil, "--audience is the account's own field, not a placeholder")
        #expect(!ProviderPreset.allOptionFlags.contains("--audience"), "--audience stays usable without a preset")
    }
}
