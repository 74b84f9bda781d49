import FoundationEssentials

/// When the companion metadata document was last consulted for an endpoint it turned out not to
/// have, per (issuer, source document, endpoint): the bound on gap-filling.
///
/// An operation that needs an endpoint the cached metadata lacks (logout needs
/// `revocation_endpoint`) consults the other document (RFC 8414 beside OpenID Discovery) — but
/// not again within `recheckInterval` once that document answered without it, so a provider that
/// really has no revocation endpoint costs one extra GET per hour, not one per logout. Failures
/// that are not answers (network, 5xx) are not recorded: the next need tries again.
struct MetadataGapLedger: Sendable, Equatable {
    struct Key: Hashable, Sendable {
        var issuer: String
        var documentURL: String
        var endpoint: ProviderEndpoint
    }

    let recheckInterval: Duration
    private var lackedAt: [Key: Date] = [:]

    init(recheckInterval: Duration) {
        self.recheckInterval = recheckInterval
    }

    /// False while a recent answer said the companion document lacks the endpoint (a clock that
    /// jumped back counts as "long ago").
    func shouldConsult(_ key: Key, now: Date) -> Bool {
        lackedAt[key].map { isExpired($0, now: now) } ?? true
    }

    /// The companion document answered without the endpoint (or is absent).
    mutating func recordLack(_ key: Key, now: Date) {
        // Bounded: one entry per account source and endpoint, pruned of expired entries.
        lackedAt = lackedAt.filter { !isExpired($0.value, now: now) }
        lackedAt[key] = now
    }

    /// The companion has the endpoint now: forget the lack.
    mutating func forget(_ key: Key) {
        lackedAt[key] = nil
    }

    private func isExpired(_ checked: Date, now: Date) -> Bool {
        let age = now.timeIntervalSince(checked)
        return age < 0 || age >= Double(recheckInterval.components.seconds)
    }
}
