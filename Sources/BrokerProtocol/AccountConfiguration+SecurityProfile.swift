import WireFormats

extension AccountConfiguration {
    /// The keys whose change keeps the tokens: they say where the account is used, not what its
    /// tokens were granted for (`browser` only says how authctl opens the login page; `pin_sha256`
    /// only narrows which connections are trusted, and adding the next key must not sign the
    /// account out; `par` only says how the next login's authorization request travels — pushed
    /// to the provider or in the browser URL — not what the tokens were granted for; `allow_exe`, `confirm_callers` and `allow_other_namespaces` only say which local programs may receive
    /// the tokens — tightening it must take effect at once, not force a new login; `allow_narrowing`
    /// only lets callers ask for tokens narrower than the grant, and `narrow_resources` /
    /// `narrow_audiences` only say which of those narrowings callers may ask for — policy on who gets
    /// what, like `allow_exe`: checked on every request, so tightening takes effect at once). Every other key — including any field added later — is part of the
    /// security profile (fail closed). The client secret is compared separately by the daemon (it
    /// is never returned to clients, so a re-applied file could not carry it for comparison).
    public static let tokenNeutralKeys: Set<String> = Set(
        tokenNeutralFields + [CodingKeys.name, .clientSecret].map(\.stringValue))

    /// The fields a user can change while keeping the tokens, in the order `authctl account
    /// --help`, docs/authctl.1, docs/guide.md and docs/api.md list them (a test holds each of
    /// those lists to this one): `tokenNeutralKeys` without `name` (never changed by an update)
    /// and `client_secret` (a new secret signs the account out: compared by the daemon).
    public static let tokenNeutralFields: [String] = [
        CodingKeys.browser, .gitURLPrefix, .gitUsername, .pinSHA256, .pushedAuthorization, .allowExe, .confirmCallers,
        .allowOtherNamespaces, .allowNarrowing, .narrowResources, .narrowAudiences,
    ].map(\.stringValue)

    /// The part of a configuration that tokens were granted for: when it changes, the old tokens
    /// must not be served for the new configuration (pizauth's rule). Derived from the model's own
    /// JSON encoding, so no field list is restated here.
    public struct SecurityProfile: Equatable, Sendable {
        /// The encoded model minus `tokenNeutralKeys`; nil if it could not be encoded.
        let fields: [String: JSONValue]?

        /// The JSON keys the profile compares.
        public var keys: Set<String> { Set(fields?.keys.map { $0 } ?? []) }

        /// A profile that could not be derived equals nothing, not even itself: a change is assumed.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            guard let left = lhs.fields, let right = rhs.fields else { return false }
            return left == right
        }
    }

    /// Normalised so that an absent and a default value compare equal: no scopes means `defaultScopes`,
    /// redirect host 127.0.0.1, path /callback, the form token
    /// request format and `dpop` false are the defaults, empty manual endpoints and an empty tenant allow-list are none.
    public var securityProfile: SecurityProfile {
        var normalised = self
        if normalised.scopes.isEmpty { normalised.scopes = defaultScopes }
        if normalised.redirectHost == "127.0.0.1" { normalised.redirectHost = nil }
        if normalised.redirectPath == "/callback" { normalised.redirectPath = nil }
        normalised.endpoints = endpoints.flatMap { $0.isEmpty ? nil : $0 }
        if normalised.tokenRequestFormat == .form { normalised.tokenRequestFormat = nil }
        if normalised.tenantAllow?.isEmpty == true { normalised.tenantAllow = nil }
        // `dpop` is in the profile: Bearer tokens must not be served as DPoP ones, nor the reverse.
        if normalised.dpop == false { normalised.dpop = nil }
        guard case .object(let fields)? = try? WireJSON.encodeValue(normalised) else {
            return SecurityProfile(fields: nil)
        }
        return SecurityProfile(fields: fields.filter { !Self.tokenNeutralKeys.contains($0.key) })
    }
}
