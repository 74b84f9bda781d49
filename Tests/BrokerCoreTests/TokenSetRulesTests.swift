import BrokerCore
import BrokerCrypto
import BrokerStore
import Foundation
import Testing
import WireFormats

/// The two token rules, each stated once: the expiry rule (`TokenResponse.statedExpiry`, then
/// `RefreshPolicy.effectiveExpiry`) and the refresh carry-over rule (`TokenSet.carryingOver`).
@Suite struct TokenSetRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var seconds: Double { now.timeIntervalSince1970 }

    /// A JWT-shaped access token (RFC 9068) whose payload is `payload`; the signature is never checked.
    func jwt(_ payload: String) -> Secret {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"at+jwt"}"#.utf8))
        return Secret(header + "." + Base64URL.encode(Array(payload.utf8)) + "." + Base64URL.encode([1, 2, 3]))
    }

    func stated(_ accessToken: Secret, expiresIn: Int? = nil) -> Double? {
        TokenResponse(accessToken: accessToken, expiresIn: expiresIn).statedExpiry(receivedAt: now)
    }

    @Test func expiresInIsTheStatedExpiryWhateverTheAccessTokenSays() {
        let future = jwt(#"{"exp":\#(Int(seconds) + 300)}"#)
        for token in [Secret("opaque"), future, jwt(#"{"exp":1}"#), jwt(#"{"sub":"u"}"#)] {
            #expect(stated(token, expiresIn: 60) == seconds + 60)
            // 0: expired at once (refreshed before it is served), not "unknown".
            #expect(stated(token, expiresIn: 0) == seconds)
        }
    }

    @Test func withoutExpiresInOnlyAFutureJWTExpCounts() {
        #expect(stated(jwt(#"{"exp":\#(Int(seconds) + 300)}"#)) == seconds + 300)
        #expect(stated(jwt(#"{"exp":\#(Int(seconds) - 5)}"#)) == nil, "a past exp (clock skew) is ignored")
        #expect(stated(jwt(#"{"exp":\#(Int(seconds))}"#)) == nil, "an exp of now is not in the future")
        #expect(stated(jwt(#"{"sub":"u"}"#)) == nil, "a JWT without exp")
        #expect(stated(jwt(#"{"exp":"soon"}"#)) == nil, "an exp that is not a number")
        #expect(stated(Secret("opaque.not-a-jwt")) == nil)
        #expect(stated(Secret("opaque")) == nil)
    }

    @Test func theTokensOfAnAnswerCarryItsStatedExpiry() {
        let response = TokenResponse(accessToken: Secret("a"), expiresIn: 60, scope: "granted")
        let tokens = TokenSet(response, requestedScope: "asked", receivedAt: now)
        #expect(tokens == TokenSet(accessToken: Secret("a"), scope: "granted", expiresAt: seconds + 60, obtainedAt: seconds))
        let restated = TokenSet(TokenResponse(accessToken: Secret("a")), requestedScope: "asked", receivedAt: now)
        #expect(restated.scope == "asked" && restated.expiresAt == nil)
    }

    /// The second half: an unknown lifetime is assumed (900 s) only when a refresh can replace the
    /// token; a stated expiry is always used as is.
    @Test func theBrokerAssumesALifetimeOnlyWhenNothingWasStatedAndARefreshIsPossible() {
        var policy = RefreshPolicy()
        func tokens(expiresAt: Double?, refresh: String?) -> TokenSet {
            TokenSet(accessToken: Secret("a"), refreshToken: refresh.map { Secret($0) }, expiresAt: expiresAt, obtainedAt: 1_000)
        }
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: nil, refresh: "r")) == 1_900)
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: nil, refresh: nil)) == nil, "never expires")
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: nil, refresh: "")) == nil, "an empty refresh token cannot refresh")
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: 1_060, refresh: "r")) == 1_060)
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: 1_060, refresh: nil)) == 1_060)
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: 1_000, refresh: "r")) == 1_000, "expires_in 0")
        policy.assumedLifetime = 120
        #expect(policy.effectiveExpiry(of: tokens(expiresAt: nil, refresh: "r")) == 1_120)
    }

    /// Every combination of what a refresh answer may omit: each omitted field keeps the old value,
    /// each given one replaces it; the access token, its type and its lifetime are always new.
    @Test func aRefreshAnswerKeepsWhatItOmitsAndReplacesWhatItGives() {
        let previous = TokenSet(
            accessToken: Secret("at-old"), refreshToken: Secret("rt-old"), idToken: idToken(sub: "u1", tag: "old"),
            tokenType: "bearer", scope: "old scope", expiresAt: 100, obtainedAt: 10)
        for mask in 0..<8 {
            let (hasRefresh, hasID, hasScope) = (mask & 1 != 0, mask & 2 != 0, mask & 4 != 0)
            let answer = TokenSet(
                accessToken: Secret("at-new"), refreshToken: hasRefresh ? Secret("rt-new") : nil,
                idToken: hasID ? idToken(sub: "u1", tag: "new") : nil, scope: hasScope ? "new scope" : nil,
                expiresAt: 2_060, obtainedAt: 2_000)
            let merged = answer.carryingOver(from: previous)
            let expected = TokenSet(
                accessToken: Secret("at-new"), refreshToken: hasRefresh ? Secret("rt-new") : Secret("rt-old"),
                idToken: hasID ? idToken(sub: "u1", tag: "new") : previous.idToken?.token,
                scope: hasScope ? "new scope" : "old scope", expiresAt: 2_060, obtainedAt: 2_000)
            #expect(merged == expected, "refresh_token \(hasRefresh), id_token \(hasID), scope \(hasScope)")
            #expect(merged.idTokenClaims?.nonce == (hasID ? "new" : "old"), "the claims follow the ID token")
        }
    }

    @Test func nothingIsInventedWhenNeitherSideHasAField() {
        let merged = TokenSet(accessToken: Secret("at-new"), obtainedAt: 2_000)
            .carryingOver(from: TokenSet(accessToken: Secret("at-old"), obtainedAt: 10))
        #expect(merged == TokenSet(accessToken: Secret("at-new"), obtainedAt: 2_000))
        #expect(!merged.canRefresh && merged.idTokenClaims == nil)
    }

    /// An ID token for `sub`, told apart by its nonce claim.
    func idToken(sub: String, tag: String) -> Secret {
        let claims = #"{"iss":"\#(testIssuer)","sub":"\#(sub)","aud":"c","exp":2000000000,"iat":1800000000,"nonce":"\#(tag)"}"#
        return jwt(claims)
    }
}
