import BrokerProtocol
import Testing

/// `WWW-Authenticate` parsing for step-up (RFC 6750 §3, RFC 9110 §11.6.1).
struct BearerChallengeTests {
    @Test func aStepUpChallengeAmongOtherSchemes() {
        let header =
            #"Basic realm="a, b", Bearer error="insufficient_scope", scope="files:read files:write", error_description="needs \"write\"", DPoP algs="ES256""#
        let challenges = BearerChallenge.parse(header)
        #expect(challenges.map(\.scheme) == ["bearer", "dpop"])
        #expect(challenges.first?.isInsufficientScope == true)
        #expect(challenges.first?.scopes == ["files:read", "files:write"])
        #expect(challenges.first?.parameters["error_description"] == #"needs "write""#)
        #expect(BearerChallenge.stepUp(in: ["Bearer realm=x", header])?.scope == "files:read files:write")
    }

    @Test func tokensUnquotedValuesAndToken68() {
        let challenges = BearerChallenge.parse(
            #"Negotiate abc==, Bearer error=invalid_token, resource_metadata="https://r.example/.well-known/oauth-protected-resource/mcp""#
        )
        #expect(challenges.count == 1)
        #expect(challenges.first?.error == "invalid_token")
        #expect(challenges.first?.resourceMetadata == "https://r.example/.well-known/oauth-protected-resource/mcp")
        #expect(BearerChallenge.stepUp(in: ["Bearer error=invalid_token"]) == nil)
    }

    @Test func brokenTextNeverHidesWhatFollowsAndIsBounded() {
        // After a syntax error nothing more is read: no step-up from a broken header.
        #expect(BearerChallenge.parse(#"Bearer realm=, =x, error="insufficient_scope""#).first?.isInsufficientScope != true)
        #expect(BearerChallenge.parse(#"Bearer scope="unterminated"#).first?.scope == nil)
        let long = "Bearer " + String(repeating: "x=1, ", count: 5000) + #"error="insufficient_scope""#
        #expect(BearerChallenge.parse(long).first?.isInsufficientScope != true)
        // Scopes that are not RFC 6749 scope-tokens are dropped.
        #expect(BearerChallenge(scheme: "bearer", parameters: ["scope": "ok bad\u{7F} fine"]).scopes == ["ok", "fine"])
    }
}
