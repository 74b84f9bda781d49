import BrokerProtocol
import Testing

/// The edge checks of narrowed token requests: counts, lengths, charsets, and the normalized key.
@Suite struct TokenNarrowingTests {
    @Test func equalRequestsAreOneKeyWhateverTheOrder() throws {
        let one = try TokenNarrowing(scope: "read write read", resource: "https://b.example/ https://a.example/", audience: nil)
        let two = try TokenNarrowing(
            scopes: ["write", "read"], resources: ["https://a.example/", "https://b.example/"], audience: nil)
        #expect(one == two)
        #expect(one.scopes == ["read", "write"])
        #expect(one.queryFields.map(\.0) == ["scope", "resource"])
        #expect(try TokenNarrowing(scope: nil, resource: nil, audience: nil).isEmpty)
        #expect(
            try TokenNarrowing(scope: "read", resource: nil, audience: nil)
                != TokenNarrowing(scope: "read", resource: nil, audience: "api"))
    }

    @Test func scopesFollowRFC6749ScopeTokens() {
        for bad in ["a\"b", "back\\slash", "tab\tscope", "é", String(repeating: "s", count: 513)] {
            #expect(throws: NarrowingError.self, "\(bad)") { try TokenNarrowing(scopes: [bad], resources: [], audience: nil) }
        }
        #expect(
            (try? TokenNarrowing(
                scopes: ["https://graph.microsoft.com/.default", "repo:read", "!~"], resources: [], audience: nil)) != nil)
    }

    @Test func resourcesAreAbsoluteURIsWithoutFragments() {
        for bad in [
            "not a uri", "/relative", "https://api.example/#frag", "1http://x", ":nothing", "https:", "https://é.example/",
        ] {
            #expect(throws: NarrowingError.self, "\(bad)") { try TokenNarrowing(scopes: [], resources: [bad], audience: nil) }
        }
        for good in ["https://api.example.com/", "urn:example:resource", "http://127.0.0.1:8080/v1?x=1"] {
            #expect((try? TokenNarrowing(scopes: [], resources: [good], audience: nil)) != nil, "\(good)")
        }
    }

    @Test func countsAndLengthsAreBounded() {
        let many = (0...TokenNarrowing.maximumScopes).map { "s\($0)" }
        #expect(throws: NarrowingError.tooMany("scope", 32)) { try TokenNarrowing(scopes: many, resources: [], audience: nil) }
        let resources = (0...TokenNarrowing.maximumResources).map { "https://r\($0).example/" }
        #expect(throws: NarrowingError.tooMany("resource", 4)) {
            try TokenNarrowing(scopes: [], resources: resources, audience: nil)
        }
        // A huge query value is refused before it is split.
        let huge = String(repeating: "a ", count: 100_000)
        #expect(throws: NarrowingError.tooMany("scope", 32)) { try TokenNarrowing(scope: huge, resource: nil, audience: nil) }
        #expect(throws: NarrowingError.self) { try TokenNarrowing(scopes: [], resources: [], audience: "two words") }
        #expect(throws: NarrowingError.self) { try TokenNarrowing(scopes: [], resources: [], audience: "") }
    }

    @Test func refusalsQuoteTheValueCutShortAndWithoutControlCharacters() {
        let value = "bad\u{1B}[31m" + String(repeating: "x", count: 200) + " "
        do {
            _ = try TokenNarrowing(scopes: [], resources: [value], audience: nil)
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("\u{1B}"))
            #expect(error.description.count < 300)
            #expect(error.description.contains("RFC 8707"))
        }
    }
}
