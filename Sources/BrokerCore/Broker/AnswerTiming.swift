import BrokerHTTP
import Synchronization

/// When the last response of a token-endpoint call arrived (its last byte read), so a refresh can
/// log at debug level how long its answer then waited for the commit: that wait is the part of the
/// "provider rotated, answer not yet on disk" window that belongs to the daemon (docs/BENCHMARKS.md).
/// A task-local, because the answer comes back through the OIDC engine, which knows nothing of it.
final class AnswerTiming: Sendable {
    @TaskLocal static var current: AnswerTiming?

    private let arrived = Mutex<ContinuousClock.Instant?>(nil)

    /// Time since the last response arrived, if one did.
    var sinceArrival: Duration? { arrived.withLock { $0 }.map { ContinuousClock.now - $0 } }

    fileprivate func mark() { arrived.withLock { $0 = .now } }
}

/// Wraps the broker's transport to mark `AnswerTiming.current` when a response has been read.
struct TimedTransport: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let response = try await base.send(request)
        AnswerTiming.current?.mark()
        return response
    }
}

extension Duration {
    /// Milliseconds with three decimals, for debug timings.
    var milliseconds: String {
        let microseconds = components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
        let whole = microseconds / 1000
        let fraction = String(microseconds % 1000)
        return "\(whole).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
