import BrokerProtocol

/// When DPoP is on for a new account, and when `account add` only suggests it.
///
/// The rule: DPoP is on when asked for (`--dpop`, `"dpop": true`) or when the preset requires it
/// (`ProviderPreset.dpop`, applied before the account is sent). Provider metadata cannot require
/// it: `dpop_signing_alg_values_supported` (RFC 9449 §5.1) says only that proofs are accepted, and
/// whether a client must use them is the provider's per-client setting (Okta's "Require DPoP"),
/// which a client cannot read. So an advertisement turns nothing on — it gets a one-line warning
/// when the account does not use DPoP and ES256, the only algorithm authbrokerd signs with, is listed.
enum DPoPAdvice {
    /// The warning for `configuration` given the provider's advertised algorithms, or nil.
    static func warning(for configuration: AccountConfiguration, advertised: [String]?) -> String? {
        guard configuration.dpop != true, advertised?.contains("ES256") == true else { return nil }
        let name = configuration.name
        return "warning: the provider accepts DPoP (ES256), but '\(name)' will get Bearer tokens; to bind them to a key "
            + "only authbrokerd holds, add the account with --dpop (or set \"dpop\": true with authctl account apply), then log in"
    }
}
