import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing
import WireFormats

/// The mock enforces RFC 9449 at its token endpoint and its protected resource, over real sockets.
@Suite struct MockProviderDPoPTests {
    typealias Driver = MockProviderDPoPDriver

    @Test func anAcceptedProofBindsTheTokensToItsKey() async throws {
        let driver = try Driver { $0.dpop = .required }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let tokens = try await driver.tokens(key)
        #expect(tokens["token_type"] as? String == "DPoP")
        let accessToken = try #require(tokens["access_token"] as? String)
        let cnf = try Driver.claims(ofJWT: accessToken)["cnf"] as? [String: String]
        #expect(cnf == ["jkt": key.publicJWK.thumbprint])
        let resource = try await driver.resource(
            token: accessToken, proofs: [driver.proof(key, "GET", "resource", accessToken: accessToken)])
        #expect(resource.status == 200)
        #expect(try Driver.json(resource)["jkt"] as? String == key.publicJWK.thumbprint)
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let refreshed = try await driver.refresh(refreshToken, proofs: [driver.proof(key, "POST", "token")])
        #expect(try Driver.answer(of: refreshed, "token_type") == "200 DPoP")
        #expect(driver.provider.stats.dpopProofsVerified == 3 && driver.provider.stats.dpopProofsRefused.isEmpty)
    }

    @Test func requiredRefusesATokenRequestWithoutAProofAndMetadataSaysSo() async throws {
        let driver = try Driver { $0.dpop = .required }
        defer { Task { await driver.stop() } }
        let answer = try await driver.exchange(driver.code(), proofs: [])
        #expect(try Driver.answer(of: answer, "error") == "400 invalid_dpop_proof")
        #expect(driver.provider.stats.dpopProofsRefused == ["missing": 1] && driver.provider.stats.codeExchanges == 0)
        let metadata = try Driver.json(
            try await driver.http.send(
                HTTPClientRequest(url: driver.provider.url(".well-known/openid-configuration"))))
        #expect((metadata["dpop_signing_alg_values_supported"] as? [String])?.contains("ES256") == true)
    }

    @Test func withDPoPOffProofsAreIgnoredAndTokensAreBearer() async throws {
        let driver = try Driver { $0.dpop = .off }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let answer = try await driver.exchange(driver.code(), proofs: [driver.proof(key, "POST", "token")])
        #expect(try Driver.json(answer)["token_type"] as? String == "Bearer")
        let metadata = try Driver.json(
            try await driver.http.send(
                HTTPClientRequest(url: driver.provider.url(".well-known/openid-configuration"))))
        #expect(metadata["dpop_signing_alg_values_supported"] == nil)
        #expect(driver.provider.stats.dpopProofsVerified == 0)
    }

    @Test func anotherKeyCannotRedeemTheCodeRefreshOrUseTheToken() async throws {
        let driver = try Driver { $0.dpop = .accepted }
        defer { Task { await driver.stop() } }
        let (key, other) = (try ECSigningKey.generate(), try ECSigningKey.generate())
        let bound = try await driver.code(dpopJKT: key.publicJWK.thumbprint)
        let stolen = try await driver.exchange(bound, proofs: [driver.proof(other, "POST", "token")])
        #expect(try Driver.answer(of: stolen, "error") == "400 invalid_grant")
        let tokens = try await driver.tokens(key)
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        for proofs in [[try driver.proof(other, "POST", "token")], []] {
            let refresh = try await driver.refresh(refreshToken, proofs: proofs)
            #expect(try Driver.answer(of: refresh, "error") == "400 invalid_grant")
        }
        let accessToken = try #require(tokens["access_token"] as? String)
        let resource = try await driver.resource(
            token: accessToken, proofs: [driver.proof(other, "GET", "resource", accessToken: accessToken)])
        #expect(resource.status == 401)
        #expect(resource.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true)
        #expect(driver.provider.stats.dpopProofsRefused == ["wrongKey": 1])
        // The rightful key still refreshes: the refusals rotated nothing out.
        #expect(try await driver.refresh(refreshToken, proofs: [driver.proof(key, "POST", "token")]).status == 200)
    }

    @Test func aReplayedProofIsRefused() async throws {
        let driver = try Driver { $0.dpop = .required }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let proof = try driver.proof(key, "POST", "token")
        #expect(try await driver.exchange(driver.code(), proofs: [proof]).status == 200)
        let replay = try await driver.exchange(driver.code(), proofs: [proof])
        #expect(try Driver.answer(of: replay, "error") == "400 invalid_dpop_proof")
        #expect(driver.provider.stats.dpopReplays == 1 && driver.provider.stats.dpopProofsRefused == ["replayedJTI": 1])
    }

    @Test func staleOrFutureProofsAndOtherRequestsProofsAreRefused() async throws {
        let driver = try Driver { $0.dpop = .required }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let proofs = [
            try driver.proof(key, "POST", "token", age: 3600), try driver.proof(key, "POST", "token", age: -3600),
            try driver.proof(key, "POST", "revoke"), try driver.proof(key, "GET", "token"),
        ]
        for proof in proofs {
            #expect(try await driver.exchange(driver.code(), proofs: [proof]).status == 400)
        }
        #expect(driver.provider.stats.dpopProofsRefused == ["staleIssuedAt": 2, "wrongURI": 1, "wrongMethod": 1])
        // htu ignores the query and is compared normalised: a proof for …/token?x=1 with an upper-case host is good.
        let normalised = try DPoPProof(
            key: key, method: "POST",
            url: driver.provider.url("token").uppercased().replacingOccurrences(of: "/TOKEN", with: "/token") + "?x=1",
            issuedAt: Int(Date().timeIntervalSince1970)
        ).compact
        #expect(try await driver.exchange(driver.code(), proofs: [normalised]).status == 200)
    }

    @Test func malformedProofsAreRefusedWithTheirReason() async throws {
        let driver = try Driver { $0.dpop = .required }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let jwk = ["kty": "EC", "crv": "P-256", "x": key.publicJWK.x, "y": key.publicJWK.y]
        let private_ = try key.exportPKCS8().revealBytes()
        let claims: [String: Any] = [
            "jti": try Random.base64URL(byteCount: 16), "htm": "POST", "htu": driver.provider.url("token"),
            "iat": Int(Date().timeIntervalSince1970),
        ]
        let cases: [([String], String)] = [
            ([try driver.proof(key, "POST", "token"), try driver.proof(key, "POST", "token")], "multipleHeaders"),
            (["not.a.jwt"], "malformed"),
            ([try Driver.crafted(key, header: ["typ": "JWT", "alg": "ES256", "jwk": jwk], claims: claims)], "wrongType"),
            (
                [try Driver.crafted(key, header: ["typ": "dpop+jwt", "alg": "HS256", "jwk": jwk], claims: claims)],
                "unsupportedAlgorithm"
            ),
            (
                [
                    try Driver.crafted(
                        key,
                        header: [
                            "typ": "dpop+jwt", "alg": "ES256",
                            "jwk": jwk.merging(["d": Base64URL.encode(private_[36..<68])]) { $1 },
                        ],
                        claims: claims)
                ], "privateKeyInHeader"
            ),
            (
                [
                    try Driver.crafted(
                        key,
                        header: [
                            "typ": "dpop+jwt", "alg": "ES256",
                            "jwk": jwk.merging(["x": try ECSigningKey.generate().publicJWK.x]) { $1 },
                        ],
                        claims: claims)
                ], "unusableKey"
            ),  // a point off the curve
            (
                [
                    try Driver.crafted(
                        key,
                        header: ["typ": "dpop+jwt", "alg": "ES256", "jwk": try Self.members(ECSigningKey.generate().publicJWK)],
                        claims: claims)
                ], "badSignature"
            ),
        ]
        for (proofs, reason) in cases {
            let answer = try await driver.exchange(driver.code(), proofs: proofs)
            #expect(try Driver.answer(of: answer, "error_description") == "400 DPoP proof refused: \(reason)")
        }
        #expect(driver.provider.stats.dpopProofsRefused.values.reduce(0, +) == cases.count)
        #expect(driver.provider.stats.codeExchanges == 0)
    }

    static func members(_ jwk: ECPublicJWK) -> [String: String] { ["kty": jwk.kty, "crv": jwk.crv, "x": jwk.x, "y": jwk.y] }

    @Test func theNonceDanceAtTheTokenEndpointAndTheResource() async throws {
        let driver = try Driver {
            $0.dpop = .required
            $0.dpopNonces = true
        }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let first = try await driver.exchange(driver.code(), proofs: [driver.proof(key, "POST", "token")])
        #expect(try Driver.answer(of: first, "error") == "400 use_dpop_nonce")
        let nonce = try #require(first.headers["DPoP-Nonce"])
        let retried = try await driver.exchange(driver.code(), proofs: [driver.proof(key, "POST", "token", nonce: nonce)])
        #expect(retried.status == 200)
        let next = try #require(retried.headers["DPoP-Nonce"])  // sent on success too, and rotated
        #expect(next != nonce)
        let made = try await driver.exchange(driver.code(), proofs: [driver.proof(key, "POST", "token", nonce: "made-up")])
        #expect(try Driver.json(made)["error"] as? String == "use_dpop_nonce")

        let accessToken = try #require(try Driver.json(retried)["access_token"] as? String)
        let challenge = try await driver.resource(
            token: accessToken, proofs: [driver.proof(key, "GET", "resource", nonce: next, accessToken: accessToken)])
        #expect(challenge.status == 401)  // the resource server has nonces of its own
        #expect(challenge.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"use_dpop_nonce\"") == true)
        let resourceNonce = try #require(challenge.headers["DPoP-Nonce"])
        let served = try await driver.resource(
            "POST", token: accessToken,
            proofs: [driver.proof(key, "POST", "resource", nonce: resourceNonce, accessToken: accessToken)])
        #expect(served.status == 200 && served.headers["DPoP-Nonce"] != nil)
        #expect(driver.provider.stats.dpopProofsRefused == ["nonceRequired": 3])
    }

    @Test func theResourceChecksTheAccessTokenHashAndRefusesBearerUse() async throws {
        let driver = try Driver { $0.dpop = .accepted }
        defer { Task { await driver.stop() } }
        let key = try ECSigningKey.generate()
        let accessToken = try #require(try await driver.tokens(key)["access_token"] as? String)
        let refusals = [
            try await driver.resource(token: accessToken, proofs: [driver.proof(key, "GET", "resource")]),
            try await driver.resource(token: accessToken, proofs: [driver.proof(key, "GET", "resource", accessToken: "another")]),
            try await driver.resource(token: accessToken, proofs: []),
            try await driver.resource(token: accessToken, scheme: "Bearer", proofs: []),
        ]
        #expect(refusals.map(\.status) == [401, 401, 401, 401])
        #expect(refusals.last?.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
        #expect(driver.provider.stats.dpopProofsRefused == ["wrongAccessTokenHash": 2, "missing": 1])
        let served = try await driver.resource(
            token: accessToken, proofs: [driver.proof(key, "GET", "resource", accessToken: accessToken)])
        #expect(served.status == 200)
    }

    @Test func theKnobsCanBeSetFromAnotherProcess() async throws {
        let driver = try Driver { _ in }
        defer { Task { await driver.stop() } }
        let answer = try await driver.http.send(
            HTTPClientRequest(
                method: "POST", url: driver.provider.url("_mock/config"),
                headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: Array(#"{"dpop":"required","dpopNonces":true}"#.utf8)))
        #expect(answer.status == 200)
        #expect(driver.provider.configuration.dpop == .required && driver.provider.configuration.dpopNonces)
        let refused = try await driver.exchange(driver.code(), proofs: [])
        #expect(try Driver.answer(of: refused, "error") == "400 invalid_dpop_proof" && refused.headers["DPoP-Nonce"] != nil)
    }
}
