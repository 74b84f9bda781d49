import BrokerProtocol
import TestSupport
import Testing

@testable import BrokerStore
import WireFormats

/// `AccountDocument.plainConfiguration`, the member-by-member reader start-up uses, against the
/// generic key-set checks and `Decodable` it stands in for: it must accept only what the generic
/// path accepts, decode it to the same value, and leave everything else (and so every error's
/// wording) to the generic path.
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
        narrowResources: ["https://api.example.com/"], narrowAudiences: ["api://reports"])

    static func members(_ text: String) throws -> [String: JSONValue] {
        guard case .object(let fields) = try WireJSON.parse(Array(text.utf8)) else { throw WireJSONError.tooLarge(limit: 0) }
        return fields
    }

    @Test func itReadsExactlyTheKeysAStoredDocumentMayHave() {
        #expect(AccountDocument.fieldKeys == AccountDocument.allowedKeys)
        // The five it counts as required are the ones the generic path requires.
        #expect(AccountDocument.requiredKeys == ["version", "issuer", "client_id", "scopes", "extra_parameters"])
    }

    @Test func aKnownDocumentDecodesToKnownValues() throws {
        let text = #"""
            {"version":1,"issuer":"https://idp.example","client_id":"c1","scopes":["openid","email"],
             "extra_parameters":{"prompt":"consent"},"redirect_port":8080,"dpop":false,"par":"never",
             "token_request_format":"form","token_endpoint_auth_method":"client_secret_basic",
             "allow_exe":["/usr/bin/git","/usr/bin/curl"],"endpoints":{"token_endpoint":"https://idp.example/t"}}
            """#
        let fields = try Self.members(text)
        let expected = AccountConfiguration(
            name: "work", issuer: "https://idp.example", clientID: "c1", scopes: ["openid", "email"],
            redirectPort: 8080, extraParameters: ["prompt": "consent"],
            endpoints: ManualEndpoints(token: "https://idp.example/t"), tokenRequestFormat: .form,
            tokenEndpointAuthMethod: .clientSecretBasic, pushedAuthorization: .never, dpop: false,
            allowExe: ["/usr/bin/git", "/usr/bin/curl"])
        #expect(AccountDocument.plainConfiguration(fields, name: "work") == expected)
        #expect(AccountDocument.generic(fields, name: "work") == .success(expected))
        #expect(AccountDocument.decode(text, name: "work") == .success(expected))
    }

    /// Every stored key, alone beside the required ones and all together: both readers agree.
    @Test func everyKeyDecodesAsTheGenericPathDecodesIt() throws {
        let all = try Self.members(AccountDocument.encode(Self.allFields))
        #expect(Set(all.keys) == AccountDocument.allowedKeys, "the fixture sets every field")
        #expect(AccountDocument.plainConfiguration(all, name: "all") == Self.allFields)
        #expect(AccountDocument.generic(all, name: "all") == .success(Self.allFields))
        let base = all.filter { AccountDocument.requiredKeys.contains($0.key) }
        for (key, value) in all {
            var fields = base
            fields[key] = value
            let plain = try #require(AccountDocument.plainConfiguration(fields, name: "all"), "\(key)")
            #expect(AccountDocument.generic(fields, name: "all") == .success(plain), "\(key)")
        }
    }

    /// What the member reader leaves to the generic path: documents the generic path refuses, and
    /// the unusual spellings it accepts (a null option, an integral port written `8080.0`).
    @Test(arguments: [
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"surprise":1}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[]}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"name":"x"}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"client_secret":"x"}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":"openid","extra_parameters":{}}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[1],"extra_parameters":{}}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{"a":1}}"#,
        #"{"version":1,"issuer":1,"client_id":"c","scopes":[],"extra_parameters":{}}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"dpop":"yes"}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"par":"sometimes"}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"redirect_port":1.5}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"redirect_port":99999999999999999999}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"endpoints":[]}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"audience":null}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"redirect_port":8080.0}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"redirect_port":8e3}"#,
        #"{"version":1,"issuer":"i","client_id":"c","scopes":[],"extra_parameters":{},"endpoints":null}"#,
    ])
    func documentsItDoesNotTakeGetTheGenericAnswer(text: String) throws {
        let fields = try Self.members(text)
        #expect(AccountDocument.plainConfiguration(fields, name: "work") == nil)
        #expect(AccountDocument.decode(text, name: "work") == AccountDocument.generic(fields, name: "work"))
    }

    /// Documents built from random subsets of the keys, each with a value of the right type or a
    /// wrong one: whenever the member reader accepts one, the generic path accepts the same value,
    /// and `decode` always answers what the generic path answers.
    @Test func randomDocumentsGetTheGenericAnswer() throws {
        let all = try Self.members(AccountDocument.encode(Self.allFields))
        let wrong: [JSONValue] = [.null, .bool(true), .number("1"), .number("2.5"), .string("x"), .array([.number("1")]), .object([:])]
        var generator = SplitMix64(seed: 0x5EED)
        var accepted = 0
        for _ in 0..<2_000 {
            var fields: [String: JSONValue] = [:]
            // Sorted: a dictionary's order differs between processes, and the run must not.
            for (key, value) in all.sorted(by: { $0.key < $1.key }) {
                let required = AccountDocument.requiredKeys.contains(key)
                guard generator.next() % (required ? 16 : 4) != 0 else { continue }
                fields[key] = generator.next() % 30 == 0 ? wrong[Int(generator.next() % UInt64(wrong.count))] : value
            }
            let generic = AccountDocument.generic(fields, name: "r")
            if let plain = AccountDocument.plainConfiguration(fields, name: "r") {
                accepted += 1
                #expect(generic == .success(plain), "\(fields.keys.sorted())")
            }
            let text = String(decoding: WireJSON.serialize(.object(fields)), as: UTF8.self)
            if fields["version"] == .number("1") { #expect(AccountDocument.decode(text, name: "r") == generic) }
        }
        #expect(accepted > 500, "the generator should also make documents the member reader accepts")
    }
}
