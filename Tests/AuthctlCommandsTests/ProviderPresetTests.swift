import BrokerProtocol
import Foundation
import Testing

@testable import AuthctlCommands

/// The provider preset table (`ProviderPreset.all`): every row usable as declared, its templates
/// expand, and the expansion rules (domains, overrides) hold without a daemon.
@Suite struct ProviderPresetTests {
    /// Placeholder values a row can be expanded with: `client_id`, its options, the issuer's segment.
    static func values(for preset: ProviderPreset) -> [String: String] {
        var values = ["client_id": "client_01TEST", ProviderPreset.issuerLastSegmentKey: "4242"]
        for option in preset.options { values[option.key] = "https://\(option.key).example" }
        return values
    }

    @Test func namesAreUniqueAndEveryOptionIsAnAccountAddOption() {
        let names = ProviderPreset.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(!names.contains("help"), "`--provider help` lists the presets")
        let accepted = Set(AccountCommand.addOptions.map(\.name))
        for preset in ProviderPreset.all {
            for option in preset.options {
                #expect(accepted.contains(option.flag), "\(preset.name): \(option.flag) is not an `account add` option")
                #expect(AccountCommand.help.contains(option.flag), "\(preset.name): \(option.flag) missing from the help")
            }
            #expect(AccountCommand.help.contains(preset.name), "the help does not name \(preset.name)")
        }
    }

    @Test func everyTemplateExpandsWithTheRowsOwnPlaceholders() throws {
        for preset in ProviderPreset.all {
            let values = Self.values(for: preset)
            for template in preset.templates {
                let expanded = try #require(
                    ProviderPreset.expand(template, values), "\(preset.name): '\(template)' does not expand")
                #expect(!expanded.contains("{") && !expanded.contains("}"), "\(preset.name): \(expanded)")
            }
            if case .fromDiscoveryDocument = preset.issuer {
                #expect(preset.discoveryURL != nil, "\(preset.name) takes its issuer from a document it does not name")
            }
            if let redirect = preset.redirectURI, let uri = ProviderPreset.expand(redirect, values) {
                #expect((try? PrivateUseRedirectURI(parsing: uri)) != nil, "\(preset.name): \(uri) is not a private-use redirect")
            }
        }
    }

    @Test func expansionRefusesAnUnknownPlaceholder() {
        #expect(ProviderPreset.expand("https://{tenant}/x", ["client_id": "c"]) == nil)
        #expect(ProviderPreset.expand("a{client_id}b{client_id}", ["client_id": "c"]) == "acbc")
        #expect(ProviderPreset.expand("no placeholders", [:]) == "no placeholders")
    }

    @Test func shopifyRowIsShopifysContract() throws {
        let shopify = try #require(ProviderPreset.named("shopify"))
        #expect(shopify.scopes == ["openid", "email", "customer-account-api:full"])
        #expect(shopify.endpoints.revocation == nil)
        let values = Self.values(for: shopify).merging(["shop_domain": "https://shop.myshopify.com"]) { $1 }
        #expect(
            ProviderPreset.expand(try #require(shopify.discoveryURL), values)
                == "https://shop.myshopify.com/.well-known/openid-configuration")
        #expect(ProviderPreset.expand(try #require(shopify.redirectURI), values) == "shop.4242.app://callback")
        #expect(ProviderPreset.lastPathSegment(of: "https://shopify.com/authentication/4242") == "4242")
        #expect(ProviderPreset.lastPathSegment(of: "https://shopify.com/authentication/4242/") == "4242")
        #expect(ProviderPreset.lastPathSegment(of: "https://shopify.com") == nil)
    }

    @Test func workosRowIsTheUserManagementFlow() throws {
        let workos = try #require(ProviderPreset.named("workos"))
        let values = Self.values(for: workos)
        guard case .template(let issuer) = workos.issuer else {
            Issue.record("workos has a fixed issuer")
            return
        }
        #expect(ProviderPreset.expand(issuer, values) == "https://api.workos.com/user_management/client_01TEST")
        #expect(workos.tokenRequestFormat == .json && workos.parameters == ["provider": "authkit"] && workos.scopes.isEmpty)
        let endpoints = try #require(try workos.endpoints(under: nil, values))
        #expect(endpoints.jwksURI == "https://api.workos.com/sso/jwks/client_01TEST")
        #expect(endpoints.token == "https://api.workos.com/user_management/authenticate")
        let overridden = try #require(try workos.endpoints(under: ManualEndpoints(token: "https://proxy.example/auth"), values))
        #expect(overridden.token == "https://proxy.example/auth" && overridden.authorization == endpoints.authorization)
    }

    @Test func domainsAreHostsOrLoopbackURLs() throws {
        let option = try #require(ProviderPreset.named("shopify")?.options.first)
        for (given, origin) in [
            ("Shop.myshopify.com", "https://shop.myshopify.com"), ("shop.example.com", "https://shop.example.com"),
            ("https://shop.example.com/", "https://shop.example.com"), ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
            ("http://[::1]:8123", "http://[::1]:8123"), ("shop.example.com:8443", "https://shop.example.com:8443"),
            ("https://[::1]:8443", "https://[::1]:8443"), ("http://localhost:8123", "http://localhost:8123"),
            // WireFormats' one loopback rule: `LOCALHOST` is `localhost` (this check used to compare case).
            ("http://LOCALHOST:8123", "http://localhost:8123"),
        ] {
            #expect(try PresetDomain.origin(given, option: option) == origin, "\(given)")
        }
        for bad in [
            "http://shop.example.com", "shop.example.com/path", "user@shop.example.com", "", "shop..example",
            "ftp://shop.example.com", "http://[::2]:80", "-shop.example.com", "shop.example.com:0", "shop example",
            "http://localhost.:8123", "http://a.localhost:8123",
        ] {
            #expect(throws: UsageError.self, "\(bad)") { try PresetDomain.origin(bad, option: option) }
        }
    }

    @Test func everyPresetHasItsSectionInProvidersDoc() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let markdown = try String(contentsOfFile: url.path + "/docs/providers.md", encoding: .utf8)
        let anchors = markdown.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { Self.anchor(String($0.dropFirst(3))) }
        for preset in ProviderPreset.all {
            #expect(anchors.contains(preset.docsAnchor), "docs/providers.md has no section #\(preset.docsAnchor)")
            #expect(markdown.contains("--provider \(preset.name) "), "docs/providers.md never uses --provider \(preset.name)")
        }
    }

    /// The completions restate the preset names and options (they cannot ask authctl): keep them in step.
    @Test func completionsOfferEveryPresetAndItsOptions() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        for file in ["authctl.bash", "_authctl", "authctl.fish"] {
            let text = try String(contentsOfFile: url.path + "/docs/completions/" + file, encoding: .utf8)
            let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
            for preset in ProviderPreset.all {
                #expect(words.contains(preset.name), "\(file) does not offer --provider \(preset.name)")
                for option in preset.options {
                    #expect(
                        words.contains(option.flag) || words.contains(String(option.flag.dropFirst(2))),
                        "\(file) lacks \(option.flag)")
                }
            }
        }
    }

    /// GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
    }

    @Test func showPrintsEveryFieldThatIsSet() {
        var configuration = AccountConfiguration(
            name: "shop", issuer: "https://shopify.com/authentication/4242", clientID: "c", clientSecret: "s3cret",
            scopes: ["openid"], redirectURI: "shop.4242.app://callback", extraParameters: ["b": "2", "a": "1"],
            endpoints: ManualEndpoints(jwksURI: "https://x.example/jwks"),
            discoveryURL: "https://shop.example/.well-known/openid-configuration")
        configuration.tokenRequestFormat = .json
        let lines = AccountCommand.setFields(
            of: configuration, except: ["name: shop", "issuer: x", "client_id: c", "scopes: openid"])
        #expect(
            lines == [
                "discovery_url: https://shop.example/.well-known/openid-configuration", "jwks_uri: https://x.example/jwks",
                "extra_parameters: a=1 b=2", "redirect_uri: shop.4242.app://callback", "token_request_format: json",
            ])
        #expect(!lines.joined().contains("s3cret"))
    }
}
