import BrokerCore
import BrokerProtocol
import Dispatch
import Testing

/// Socket requests are handled by tasks that prefer their connection thread's executor (512 KiB
/// of stack). The provider calls they cause — discovery for `account add`, revocation for
/// `logout` — must run in tasks of their own, never with that preference.
@Suite struct TokenBrokerProviderTaskTests {
    @Test func addAndLogoutReachTheProviderOffTheRequestsExecutor() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker, name: "setup")
        try await Task(executorPreference: QueueExecutor()) {
            _ = try await broker.addAccount(AccountConfiguration(name: "work", issuer: harness.provider.issuer, clientID: "cli"))
            _ = try await broker.logout(account: "setup")
        }.value
        #expect(harness.provider.with { $0.revoked.count } > 0, "logout revoked nothing")
        #expect(harness.provider.with { $0.requestsOnAPreferredExecutor } == [])
    }
}

/// A task executor like the connection threads' (here on a serial queue).
final class QueueExecutor: TaskExecutor, Sendable {
    private let queue = DispatchQueue(label: "test.connection-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
