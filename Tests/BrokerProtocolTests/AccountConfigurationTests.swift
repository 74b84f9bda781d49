import BrokerProtocol
import Testing
import WireFormats

/// The security profile is derived from the model's encoding: every key is security-relevant
/// (a change logs the account out) unless it is on the short `tokenNeutralKeys` list.
@Suite struct AccountConfigurationTests {
    static let everyField = AccountConfiguration(
        name: "work", issuer: "https://idp.example", clientID: "cli", clientSecret: "s3cret",
        scopes: ["openid", "email"], audience: "api", redirectHost: "localhost", redirectPort: 8765, redirectPath: "/cb",
        redirectURI: "com.example.app:/cb", extraParameters: ["prompt": "consent"],
        endpoints: ManualEndpoints(
            authorization: "https://idp.example/a", token: "https://idp.example/t", revocation: "https://idp.example/r",
            userinfo: "https://idp.example/u", deviceAuthorization: "https://idp.example/d",
            endSession: "https://idp.example/e", jwksURI: "https://idp.example/j",
            pushedAuthorizationRequest: "https://idp.example/par"),
        discoveryURL: "https://idp.example/.well-known/openid-configuration",
        gitURLPrefix: "https://git.example.com/", gitUsername: "bot", tokenRequestFormat: .json,
        browser: "firefox -P work", pinSHA256: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="],
        tenantAllow: ["9122040d-6c67-4c5b-b112-36a304b66dad"],
        tokenEndpointAuthMethod: .clientSecretPost, pushedAuthorization: .always, dpop: true, allowExe: ["/usr/bin/git"],
        confirmCallers: true, allowNarrowing: true, allowOtherNamespaces: true,
        narrowResources: ["https://api.example.com/"],
        narrowAudiences: ["api://reports"], resourceURL: "https://mcp.example.com/mcp", sendResource: false,
        clientMetadataURL: "https://app.example.com/client.json", clientRegistration: .metadataDocument)

    @Test func everyKeyOfTheModelIsInTheProfileOrOnTheExemptList() throws {
        guard case .object(let encoded) = try WireJSON.encodeValue(Self.everyField) else {
            Issue.record("the model does not encode as an object")
            return
        }
        // The sample sets every field, so this checks every key the model has.
        #expect(Set(encoded.keys) == AccountConfiguration.jsonKeys, "everyField does not set every field")
        let profile = Self.everyField.securityProfile.keys
        for key in encoded.keys {
            #expect(profile.contains(key) != AccountConfiguration.tokenNeutralKeys.contains(key), "\(key)")
        }
        #expect(
            AccountConfiguration.tokenNeutralKeys == [
                "name", "git_url_prefix", "git_username", "browser", "pin_sha256", "par", "allow_exe", "confirm_callers",
                "allow_other_namespaces", "allow_narrowing", "narrow_resources", "narrow_audiences", "client_secret",
            ])
    }

    /// Fail closed: changing the value of any key not on the exempt list changes the profile.
    @Test func changingAnyOtherKeyChangesTheProfile() throws {
        guard case .object(let encoded) = try WireJSON.encodeValue(Self.everyField) else { return }
        for (key, value) in encoded {
            var fields = encoded
            fields[key] = Self.changed(value)
            let changed = try WireJSON.decode(AccountConfiguration.self, from: .object(fields))
            let relevant = changed.securityProfile != Self.everyField.securityProfile
            #expect(relevant == !AccountConfiguration.tokenNeutralKeys.contains(key), "\(key)")
        }
    }

    @Test func absentAndDefaultValuesCompareEqual() {
        let bare = AccountConfiguration(name: "work", issuer: "https://idp.example", clientID: "cli")
        var spelled = bare
        spelled.scopes = ["openid"]
        spelled.redirectHost = "127.0.0.1"
        spelled.redirectPath = "/callback"
        spelled.endpoints = ManualEndpoints()
        spelled.tenantAllow = []
        spelled.name = "renamed"
        spelled.gitUsername = "bot"
        spelled.browser = "chromium --profile-directory=Work"
        #expect(spelled.securityProfile == bare.securityProfile)
        spelled.redirectPort = 1234
        #expect(spelled.securityProfile != bare.securityProfile)
    }

    @Test func printingAConfigurationNeverShowsTheClientSecret() {
        for text in [
            String(describing: Self.everyField), String(reflecting: Self.everyField), "\(Self.everyField)",
            String(describing: [Self.everyField]),
        ] {
            #expect(!text.contains("s3cret"), "\(text)")
            #expect(text.contains("<redacted>") && text.contains("https://idp.example"), "\(text)")
        }
    }

    /// Another value of the same JSON type.
    static func changed(_ value: JSONValue) -> JSONValue {
        switch value {
        // An enumerated value changes to another member (json → form, the default: still a change).
        case .string(let text) where TokenRequestFormat(rawValue: text) != nil:
            return .string(TokenRequestFormat.allCases.first { $0.rawValue != text }?.rawValue ?? text)
        case .string(let text) where TokenEndpointAuthMethod(rawValue: text) != nil:
            return .string(TokenEndpointAuthMethod.allCases.first { $0.rawValue != text }?.rawValue ?? text)
        case .string(let text) where PushedAuthorizationMode(rawValue: text) != nil:
            return .string(PushedAuthorizationMode.allCases.first { $0.rawValue != text }?.rawValue ?? text)
        case .string(let text) where ClientRegistrationKind(rawValue: text) != nil:
            return .string(ClientRegistrationKind.allCases.first { $0.rawValue != text }?.rawValue ?? text)
        case .string(let text): return .string(text + "x")
        case .number(let literal): return .number(literal + "1")
        case .bool(let flag): return .bool(!flag)
        case .array(let elements): return .array(elements + [.string("x")])
        case .object(var members):
            if let (key, inner) = members.first { members[key] = changed(inner) } else { members["x"] = .string("y") }
            return .object(members)
        case .null: return .string("x")
        }
    }
}

@Suite struct TokenRequestFormatProfileTests {
    /// `form` is the default: stating it keeps the tokens, switching to json logs the account out.
    @Test func anAbsentFormatIsForm() {
        var stated = AccountConfigurationTests.everyField
        stated.tokenRequestFormat = .form
        var absent = stated
        absent.tokenRequestFormat = nil
        #expect(stated.securityProfile == absent.securityProfile)
        var json = stated
        json.tokenRequestFormat = .json
        #expect(json.securityProfile != absent.securityProfile)
    }

    /// A json account names no scope by default (WorkOS issues no ID token); others ask for openid.
    @Test func defaultScopesFollowTheFormat() {
        var configuration = AccountConfiguration(name: "w", issuer: "https://i", clientID: "c")
        #expect(configuration.defaultScopes == ["openid"])
        configuration.tokenRequestFormat = .json
        #expect(configuration.defaultScopes.isEmpty)
    }
}
