import BrokerCrypto
import Synchronization
import WireFormats

/// The latest `DPoP-Nonce` (RFC 9449 §8) each authorization server origin sent, from every answer
/// — success included — so the next proof to that origin carries it without a refused round trip.
///
/// In memory only (nonces are short-lived by design), shared by every account's client (pinned
/// ones too: the nonce belongs to the server, not the account), and bounded: at most
/// `capacity` origins, the least recently updated one forgotten first.
public final class DPoPNonces: Sendable {
    public static let defaultCapacity = 64
    private let capacity: Int
    private let state = Mutex<[(origin: String, nonce: String)]>([])

    public init(capacity: Int = defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The nonce last seen from `origin` (`scheme://host[:port]`, as `origin(of:)` gives).
    public func nonce(for origin: String) -> String? {
        state.withLock { entries in entries.last { $0.origin == origin }?.nonce }
    }

    /// Records `nonce` as `origin`'s latest; a value that is not a valid nonce is ignored, not echoed.
    public func remember(_ nonce: String, for origin: String) {
        guard DPoPProof.isNonce(nonce) else { return }
        state.withLock { entries in
            entries.removeAll { $0.origin == origin }
            entries.append((origin, nonce))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// How many origins are remembered.
    public var count: Int { state.withLock { $0.count } }

    /// The origin (`scheme://host[:port]`, WireFormats' `AbsoluteURL.origin`) of an absolute URL;
    /// nil when it is not one.
    public static func origin(of url: String) -> String? { (try? AbsoluteURL(url))?.origin }
}
