import BrokerCrypto
import BrokerHTTP
import Foundation
import WireFormats

/// How the mock treats DPoP (RFC 9449) at its token endpoint (`MockProviderConfiguration.dpop`).
public enum MockDPoPMode: String, Codable, Sendable {
    /// `DPoP` headers are ignored and tokens are Bearer: a provider without DPoP.
    case off
    /// A proof is verified when sent, and what is issued with it is bound to its key.
    case accepted
    /// A token request without a proof is refused with `invalid_dpop_proof`.
    case required
}

/// Why the mock refused a DPoP proof: the keys of `MockProviderStats.dpopProofsRefused`, and the
/// `error_description` of the refusal.
public enum MockDPoPRefusal: String, Error, Codable, Sendable, CaseIterable {
    case missing, multipleHeaders, malformed, wrongType, unsupportedAlgorithm, privateKeyInHeader, unusableKey
    case badSignature, wrongMethod, wrongURI, staleIssuedAt, nonceRequired, wrongAccessTokenHash, wrongKey, replayedJTI

    /// The OAuth error code (RFC 9449 §5, §7.1, §8, §9).
    var error: String { self == .nonceRequired ? "use_dpop_nonce" : "invalid_dpop_proof" }
}

/// The DPoP memory of the mock: seen `jti`s (bounded) and each server's nonces.
struct MockDPoPState {
    /// Oldest `jti`s are forgotten past this many; proofs older than the `iat` window are refused anyway.
    static let replayCapacity = 4096
    var seenJTIs: Set<String> = []
    var jtiOrder: [String] = []
    /// The authorization server's and the resource server's nonces (§8 and §9 are separate).
    var authorizationNonces = MockDPoPNonces()
    var resourceNonces = MockDPoPNonces()

    /// Records `jti`; false when it was seen before.
    mutating func remember(_ jti: String) -> Bool {
        guard seenJTIs.insert(jti).inserted else { return false }
        jtiOrder.append(jti)
        if jtiOrder.count > Self.replayCapacity { seenJTIs.remove(jtiOrder.removeFirst()) }
        return true
    }
}

/// A server's nonces: the current one (sent in every `DPoP-Nonce`) and the one before it, both
/// accepted so that two requests in flight do not both have to retry. Rotated after each use.
struct MockDPoPNonces {
    var current = MockProvider.randomToken("nonce")
    var previous: String?

    func accepts(_ nonce: String?) -> Bool { nonce != nil && (nonce == current || nonce == previous) }

    mutating func rotate() { (previous, current) = (current, MockProvider.randomToken("nonce")) }
}

/// A verified proof: its key's thumbprint.
struct MockDPoPProof {
    let jkt: String
}

extension MockProvider {
    /// Algorithms a proof may be signed with (and the metadata lists): asymmetric only.
    static let dpopAlgorithms: [JWSAlgorithm] = [.es256, .es384, .edDSA, .ps256, .rs256]
    /// Seconds an `iat` may be away from the mock's clock (RFC 9449 §11.1).
    static let dpopIssuedAtWindow = 60
    /// Longer `DPoP` headers are refused before parsing.
    static let dpopMaximumProofLength = 8192

    /// The metadata members DPoP adds.
    func dpopMetadata(_ configuration: MockProviderConfiguration) -> [String: Any] {
        configuration.dpop == .off ? [:] : ["dpop_signing_alg_values_supported": Self.dpopAlgorithms.map(\.rawValue)]
    }

    /// The DPoP check of an authorization-server endpoint (token; PAR, RFC 9449 §10.1): the
    /// proof's key thumbprint, nil when DPoP is off or no proof came and none is required, or the
    /// 400 answer (`invalid_dpop_proof`, or `use_dpop_nonce` with a fresh `DPoP-Nonce`).
    func authorizationServerDPoP(_ request: HTTPRequest) -> Result<String?, Refusal> {
        let mode = configuration.dpop
        guard mode != .off else { return .success(nil) }
        if request.headers.values("DPoP").isEmpty && mode == .accepted { return .success(nil) }
        switch verifyDPoPProof(request) {
        case .success(let proof): return .success(proof.jkt)
        case .failure(let reason):
            let body = ["error": reason.error, "error_description": "DPoP proof refused: \(reason.rawValue)"]
            return .failure(Refusal(MockResponse.json(body, status: 400, headers: dpopNonceHeader(resource: false))))
        }
    }

    /// `DPoP-Nonce: <current>` when nonces are demanded: on every answer, success included (§8.2).
    func dpopNonceHeader(resource: Bool) -> [(String, String)] {
        state.withLock { state in
            guard state.configuration.dpop != .off, state.configuration.dpopNonces else { return [] }
            return [("DPoP-Nonce", resource ? state.dpop.resourceNonces.current : state.dpop.authorizationNonces.current)]
        }
    }

    /// RFC 9449 §4.3's checks, in its order, then the nonce and replay checks under the lock. For a
    /// resource request, `accessToken` must match the proof's `ath` and its key must be `boundTo`.
    func verifyDPoPProof(
        _ request: HTTPRequest, accessToken: String? = nil, boundTo: String? = nil, resource: Bool = false
    ) -> Result<MockDPoPProof, MockDPoPRefusal> {
        let outcome: Result<(MockDPoPProof, jti: String, nonce: String?), MockDPoPRefusal>
        do throws(MockDPoPRefusal) {
            outcome = .success(try checkProof(request, accessToken: accessToken, boundTo: boundTo))
        } catch {
            outcome = .failure(error)
        }
        return state.withLock { state in
            let checked = outcome.flatMap { (proof, jti, nonce) -> Result<MockDPoPProof, MockDPoPRefusal> in
                if state.configuration.dpopNonces {
                    guard (resource ? state.dpop.resourceNonces : state.dpop.authorizationNonces).accepts(nonce) else {
                        return .failure(.nonceRequired)
                    }
                    if resource { state.dpop.resourceNonces.rotate() } else { state.dpop.authorizationNonces.rotate() }
                }
                guard state.dpop.remember(jti) else {
                    state.stats.dpopReplays += 1
                    return .failure(.replayedJTI)
                }
                return .success(proof)
            }
            switch checked {
            case .success: state.stats.dpopProofsVerified += 1
            case .failure(let reason): state.stats.dpopProofsRefused[reason.rawValue, default: 0] += 1
            }
            return checked
        }
    }

    private func checkProof(_ request: HTTPRequest, accessToken: String?, boundTo: String?) throws(MockDPoPRefusal)
        -> (MockDPoPProof, jti: String, nonce: String?)
    {
        let values = request.headers.values("DPoP")
        guard let compact = values.first else { throw .missing }
        guard values.count == 1 else { throw .multipleHeaders }
        guard compact.utf8.count <= Self.dpopMaximumProofLength, let jws = try? JWSCompact.parse(compact),
            let header = Self.jsonObject(Base64URL.decodeIfValid(compact.prefix { $0 != "." }))
        else { throw .malformed }
        guard jws.header.typ == DPoPProof.type else { throw .wrongType }
        guard let algorithm = JWSAlgorithm(rawValue: jws.header.alg), Self.dpopAlgorithms.contains(algorithm) else {
            throw .unsupportedAlgorithm
        }
        let jkt = try Self.verifySignature(jws, algorithm: algorithm, jwk: header["jwk"])
        guard let claims = Self.jsonObject(jws.payload), let jti = claims["jti"] as? String, !jti.isEmpty,
            let htm = claims["htm"] as? String, let htu = claims["htu"] as? String, let iat = claims["iat"] as? Int
        else { throw .malformed }
        guard htm == request.method else { throw .wrongMethod }
        let target = "http://127.0.0.1:\(port)" + request.path
        guard let claimed = try? DPoPTargetURI.normalize(htu), claimed == (try? DPoPTargetURI.normalize(target)) else {
            throw .wrongURI
        }
        guard abs(Int(Date().timeIntervalSince1970) - iat) <= Self.dpopIssuedAtWindow else { throw .staleIssuedAt }
        if let accessToken, claims["ath"] as? String != DPoPProof.accessTokenHash(Secret(accessToken)) {
            throw .wrongAccessTokenHash
        }
        if let boundTo, boundTo != jkt { throw .wrongKey }
        return (MockDPoPProof(jkt: jkt), jti, claims["nonce"] as? String)
    }

    /// The embedded `jwk` must be a public key (§4.3 check 7) whose signature verifies; its thumbprint.
    private static func verifySignature(_ jws: JWSCompact, algorithm: JWSAlgorithm, jwk: Any?) throws(MockDPoPRefusal) -> String {
        guard let members = jwk as? [String: Any] else { throw .malformed }
        guard Set(members.keys).isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]) else {
            throw .privateKeyInHeader
        }
        guard let json = try? JSONSerialization.data(withJSONObject: members), let key = try? JWK(json: Array(json)),
            let jkt = try? JWKThumbprint.of(jwkJSON: Array(json))
        else { throw .unusableKey }
        do {
            try key.verify(jws, algorithm: algorithm)
        } catch {
            throw error == .badSignature ? .badSignature : .unusableKey
        }
        return jkt
    }

    private static func jsonObject(_ bytes: [UInt8]?) -> [String: Any]? {
        bytes.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}

extension Base64URL {
    fileprivate static func decodeIfValid(_ text: Substring) -> [UInt8]? { try? decode(text) }
}
