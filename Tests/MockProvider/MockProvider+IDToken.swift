import BrokerCrypto
import Foundation
import TestSupport
import WireFormats

// ID tokens, well-formed or with the configured defect.
extension MockProvider {
    func mintIDToken(nonce: String?, accessToken: String) throws -> String {
        let (configuration, key) = try state.withLock { state in (state.configuration, try signingKey(&state)) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: Any] = [
            "iss": issuer, "sub": configuration.subject, "aud": configuration.clientID,
            "iat": now, "exp": now + Double(configuration.idTokenLifetime), "auth_time": now,
            "email": configuration.email,
        ]
        if let nonce { claims["nonce"] = nonce }
        if let tenant = configuration.entraTenant { (claims["iss"], claims["tid"]) = (entraIssuer(tenant: tenant), tenant) }
        let digest = key.algorithm.hash(Array(accessToken.utf8))
        claims["at_hash"] = Base64URL.encode(digest.prefix(digest.count / 2))
        let defect = configuration.idTokenDefect
        switch defect {
        case .wrongIssuer: claims["iss"] = (claims["iss"] as? String ?? issuer) + "/other"
        case .wrongAudience: claims["aud"] = "someone-else"
        case .expired: (claims["iat"], claims["exp"]) = (now - 7200, now - 3600)
        case .futureIssuedAt: claims["iat"] = now + 3600
        case .badNonce: claims["nonce"] = "not-the-nonce"
        case .changedSubject: claims["sub"] = configuration.subject + "-other"
        default: break
        }
        let payload = defect == .deepPayload ? DeepJSON.objectHolding("iss") : try TestSigningKey.json(claims)
        let token: String
        switch defect {
        case .badSignature: token = try key.tokenWithFlippedSignatureByte(payload: payload)
        case .algNone: token = try TestSigningKey.unsecuredToken(header: ["kid": key.kid], payload: payload)
        case .unknownKid: token = try TestSigningKey(.p256, kid: "unpublished-key").sign(payload: payload)
        default: token = try key.sign(payload: payload)
        }
        state.withLock { _ = $0.issuedIDTokens.insert(token) }
        return token
    }
}
