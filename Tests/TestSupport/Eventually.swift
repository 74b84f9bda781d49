import Foundation

/// Polls `condition` every 10 ms for up to `seconds`; true as soon as it holds, and it is asked
/// once more after the deadline (one sleep on a starved machine can overshoot it). A bound for
/// waiting on another thread, not a timing assertion.
public func eventually(_ seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
