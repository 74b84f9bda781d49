import BrokerProtocol
import Testing
import WireFormats

@testable import BrokerStore

/// `AccountDocument`'s member-by-member reader, the one decoder of stored account documents:
/// every key it reads, known answers, the unusual spellings it still takes, and the error each
/// document it refuses reports (the first problem in key order, naming the key and not the value).
@Suite struct AccountDocumentFieldsTests {
    /// Every field of the model set, each to a value of its own.
    static let allFields = AccountConfiguration(
        name: "all", issuer: "https://idp.example", clientID: "client-all", scopes: ["openid", "offline_access"],
        audience: "https://api.example", redirectHost: "localhost", redirectPort: 8765, redirectPath: "/cb",
        redirectURI: "shop.4242.app://callback", extraParameters: ["access_type": "offline", "prompt": "consent"],
        endpoints: ManualEndpoints(token: "https://idp.example/token", jwksURI: "https://idp.example/jwks"),
        discoveryURL: "https://shop.example/.well-known/openid-configuration", gitURLPrefix: "https://git.example.com/",
        gitUsername: "bot", tokenRequestFormat: .json, browser: "firefox -P work %u",
        pinSHA256: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="], tenantAllow: ["9188040d-6c67-4c5b-b112-36a304b66dad"],
        tokenEndpointAuthMethod: .clientSecretPost, pushedAuthorization: .always, dpop: true,
        allowExe: ["/usr/bin/git"], confirmCallers: false, allowNarrowing: true, allowOtherNamespaces: true,
        narrowResources: ["https://api.example.com/"], narrowAudiences: ["api://reports"],
        resourceURL: "https://mcp.example.com/mcp", sendResource: false, clientMetadataURL: "https://app.example/client.json",
        clientRegistration: .dynamic)

    static func members(_ text: String) throws -> [String: JSONValue] {
        guard case .object(let fields) = try WireJSON.parse(Array(text.utf8)) else { throw WireJSONError.tooLarge(limit: 0) }
        return fields
    }

    @Test func itReadsExactlyTheKeysAStoredDocumentMayHave() {
        #expect(AccountDocument.fieldKeys == AccountDocument.allowedKeys)
        // The five `read` counts as required are the ones the encoder always writes.
        #expect(AccountDocument.requiredKeys == ["version", "issuer", "client_id", "scopes", "extra_parameters"])
    }

    @Test func aKnownDocumentDecodesToKnownValues() throws {
        let text = #"""
            {"version":1,"issuer":"https://idp.example","client_id":"c1","scopes":["openid","email"],
             "extra_parameters":{"prompt":"consent"},"redirect_port":8080,"dpop":false,"par":"never",
             "token_request_format":"form","token_endpoint_auth_method":"client_secret_basic",
             "allow_exe":["/usr/bin/git","/usr/bin/curl"],"endpoints":{"token_endpoint":"https://idp.example/t"}}
            """#
        let expected = AccountConfiguration(
            name: "work", issuer: "https://idp.example", clientID: "c1", scopes: ["openid", "email"],
            redirectPort: 8080, extraParameters: ["prompt": "consent"],
            endpoints: ManualEndpoints(token: "https://idp.example/t"), tokenRequestFormat: .form,
            tokenEndpointAuthMethod: .clientSecretBasic, pushedAuthorization: .never, dpop: false,
            allowExe: ["/usr/bin/git", "/usr/bin/curl"])
        #expect(AccountDocument.decode(text, name: "work") == .success(expected))
    }

    /// Every stored key, alone beside the required ones and all together, reads back what was written.
    @Test func everyKeyRoundTrips() throws {
        let text = try AccountDocument.encode(Self.allFields)
        let all = try Self.members(text)
        #expect(Set(all.keys) == AccountDocument.allowedKeys, "the fixture sets every field")
        #expect(AccountDocument.decode(text, name: "all") == .success(Self.allFields))
        let base = all.filter { AccountDocument.requiredKeys.contains($0.key) }
        for (key, value) in all {
            var fields = base
            fields[key] = value
            let decoded = try AccountDocument.configuration(fields, name: "all").get()
            let again = try Self.members(AccountDocument.encode(decoded))
            #expect(again == fields, "\(key)")
        }
    }

    /// Spellings the encoder never writes but a hand-edited document may have, as `Decodable` took them.
    @Test(arguments: [
        (#""audience":null"#, AccountConfiguration(name: "work", issuer: "i", clientID: "c")),
        (#""endpoints":null,"dpop":null"#, AccountConfiguration(name: "work", issuer: "i", clientID: "c")),
        (#""redirect_port":8080.0"#, AccountConfiguration(name: "work", issuer: "i", clientID: "c", redirectPort: 8080)),
        (#""redirect_port":8e3"#, AccountConfiguration(name: "work", issuer: "i", clientID: "c", redirectPort: 8000)),
    ])
    func unusualSpellingsAreRead(members: String, expected: AccountConfiguration) {
        let text = #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"# + members + "}"
        #expect(AccountDocument.decode(text, name: "work") == .success(expected))
    }

    /// Documents it refuses, and the key each error names.
    @Test(arguments: [
        (#""surprise":1"#, AccountDocumentError.unexpectedKey("surprise")),
        (#""name":"x""#, .unexpectedKey("name")),
        (#""client_secret":"x""#, .unexpectedKey("client_secret")),
        (#""scopes":"openid""#, .malformed("the value of 'scopes' is not a list of strings")),
        (#""scopes":[1]"#, .malformed("the value of 'scopes' is not a list of strings")),
        (#""extra_parameters":{"a":1}"#, .malformed("the value of 'extra_parameters' is not an object of strings")),
        (#""issuer":1"#, .malformed("the value of 'issuer' is not a string")),
        (#""issuer":null"#, .malformed("the value of 'issuer' is not a string")),
        (#""dpop":"yes""#, .malformed("the value of 'dpop' is not true or false")),
        (#""par":"sometimes""#, .malformed("the value of 'par' is not one this authbroker knows")),
        (#""redirect_port":1.5"#, .malformed("the value of 'redirect_port' is not an integer in range")),
        (#""redirect_port":99999999999999999999"#, .malformed("the value of 'redirect_port' is not an integer in range")),
        (#""endpoints":[]"#, .malformed("the value of 'endpoints' is not an object of endpoint URLs")),
    ])
    func documentsItRefusesSayWhy(members: String, expected: AccountDocumentError) throws {
        var fields = try Self.members(#"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{}}"#)
        for (key, value) in try Self.members("{" + members + "}") { fields[key] = value }
        #expect(AccountDocument.configuration(fields, name: "work") == .failure(expected))
    }

    /// With several problems the error is the first in a fixed order — a missing key, then an
    /// unknown one, then the first bad value by key — whatever order the members come in.
    @Test func theErrorDoesNotDependOnTheMembersOrder() throws {
        let bad = try Self.members(
            #"{"version":1,"issuer":1,"client_id":"c","scopes":[1],"extra_parameters":{},"zzz":1,"aaa":2}"#)
        #expect(AccountDocument.configuration(bad, name: "w") == .failure(.unexpectedKey("aaa")))
        var missing = bad
        missing["extra_parameters"] = nil
        #expect(AccountDocument.configuration(missing, name: "w") == .failure(.missingKey("extra_parameters")))
        let types = bad.filter { $0.key != "zzz" && $0.key != "aaa" }
        #expect(AccountDocument.configuration(types, name: "w") == .failure(.malformed("the value of 'issuer' is not a string")))
    }
}
