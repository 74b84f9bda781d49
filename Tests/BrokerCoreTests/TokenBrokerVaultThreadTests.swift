import BrokerProtocol
import BrokerStore
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import BrokerCore

/// After a refresh's commit, the rest of the refresh — the machine hears of the tokens, the callers
/// that wait get them — continues on the vault thread that committed, instead of waking a pool
/// thread for it (`VaultWorker` as a task executor). The request to the provider never runs there.
@Suite struct TokenBrokerVaultThreadTests {
    @Test func aRefreshContinuesOnTheVaultThreadAfterItsCommit() async throws {
        var harness = try BrokerHarness()
        defer { harness.remove() }
        let lines = Mutex<[(line: String, thread: pthread_t)]>([])
        harness.logger = Logger(minimumLevel: .debug) { _, line in lines.withLock { $0.append((line, pthread_self())) } }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        // Three refreshes: one that finds the actor busy (another task holds it as the commit ends)
        // goes on where the actor runs; without the preference none would ever go on on the vault thread.
        for _ in 1...3 {
            harness.clock.advance(60)  // inside the margin: the next request refreshes first
            let answer = await broker.tokenOrCode(minTTL: 90)
            #expect(answer == .token(harness.provider.with { $0.issuedAccess.last } ?? ""))
        }
        let vaultThread = try await broker.worker.perform { _ in pthread_self() }
        let afterCommit = lines.withLock { lines in
            lines.filter { $0.line.contains("refresh answer committed") || $0.line.contains("access token refreshed") }
        }
        #expect(afterCommit.count == 6)
        #expect(afterCommit.contains { pthread_equal($0.thread, vaultThread) != 0 }, "no refresh went on on the vault thread")
        #expect(harness.provider.with { $0.requestsOnAPreferredExecutor } == [])
        await broker.shutdown()
    }

    /// A task that still prefers the worker after it stopped (a refresh drained at shutdown) is not lost.
    @Test(.timeLimit(.minutes(1)))
    func aTaskPreferringAStoppedWorkerRunsOnThePool() async throws {
        let directory = try TemporaryDirectory(prefix: "authbroker-worker")
        defer { directory.remove() }
        let vault = try await openVault {
            try Vault.open(databasePath: directory.appending("tokens.db"), keySource: .defaultKeyFile(path: directory.appending("key")))
        }
        let worker = VaultWorker(vault: vault)
        #expect(try await Task(executorPreference: worker) { worker.isCurrentThread }.value)
        await worker.stop()
        #expect(await Task(executorPreference: worker) { worker.isCurrentThread }.value == false)
    }
}
