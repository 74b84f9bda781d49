import BrokerProtocol
import Testing

/// `AuthenticationChallenge.parse`: RFC 9110 §11.6.1's grammar, as resources send it.
@Suite struct AuthenticationChallengeTests {
    @Test func aBearerChallengeAfterABasicOneWhoseRealmHoldsAComma() {
        let header =
            #"Basic realm="mock, resource", Bearer resource_metadata="https://r.example/.well-known/oauth-protected-resource/mcp", scope="a b""#
        let challenges = AuthenticationChallenge.parse([header])
        #expect(challenges.map(\.scheme) == ["basic", "bearer"])
        #expect(challenges[0].parameters == ["realm": "mock, resource"])
        #expect(
            challenges[1].parameters == [
                "resource_metadata": "https://r.example/.well-known/oauth-protected-resource/mcp", "scope": "a b",
            ])
    }

    @Test func severalFieldsCaseAndSpacingAndEscapes() {
        let fields = [#"DPoP algs="ES256""#, #"BEARER  Error = "insufficient_scope" ,SCOPE="files:read \"x\"",realm=api"#]
        let bearer = AuthenticationChallenge.first("Bearer", in: fields)
        #expect(bearer?.parameters == ["error": "insufficient_scope", "scope": #"files:read "x""#, "realm": "api"])
        #expect(AuthenticationChallenge.parse(fields).map(\.scheme) == ["dpop", "bearer"])
    }

    @Test func token68AndBareSchemes() {
        let challenges = AuthenticationChallenge.parse(["Negotiate abc+/==, Basic, Bearer"])
        #expect(
            challenges == [
                AuthenticationChallenge(scheme: "negotiate", token68: "abc+/=="), AuthenticationChallenge(scheme: "basic"),
                AuthenticationChallenge(scheme: "bearer"),
            ])
    }

    @Test func theFirstOfARepeatedParameterWins() {
        let bearer = AuthenticationChallenge.first("bearer", in: [#"Bearer scope="a", scope="b""#])
        #expect(bearer?.parameters["scope"] == "a")
    }

    /// What follows a syntax error is not read; what came before is kept.
    @Test(arguments: [
        #"Bearer scope="unterminated"#, "Bearer scope=\"a\u{01}b\"", #"Bearer scope=, x"#, "Bearer scope=\"a\\",
    ])
    func malformedInputYieldsNoParameters(_ header: String) {
        let bearer = AuthenticationChallenge.first("bearer", in: [header])
        #expect(bearer?.parameters["scope"] == nil)
    }

    @Test func boundedInSizeAndCount() {
        let long = "Bearer scope=\"" + String(repeating: "a", count: AuthenticationChallenge.maximumBytes) + "\""
        #expect(AuthenticationChallenge.parse([long]).isEmpty)
        let many = Array(repeating: "Basic", count: 100).joined(separator: ", ")
        #expect(AuthenticationChallenge.parse([many]).count == AuthenticationChallenge.maximumChallenges)
        let parameters = (0..<100).map { "p\($0)=v" }.joined(separator: ", ")
        #expect(
            AuthenticationChallenge.parse(["Bearer " + parameters]).first?.parameters.count
                == AuthenticationChallenge.maximumParameters)
    }
}
