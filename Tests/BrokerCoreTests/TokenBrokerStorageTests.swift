import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import BrokerCore

/// The broker on a real vault on a small tmpfs that the test fills: the tokens of a login that
/// cannot be saved are kept, served and shown as `storage_failed`, and saved by a retry or by the
/// last save at shutdown once there is room.
@Suite(.enabled(if: TinyFilesystem.canMount, "needs root to mount a tmpfs"))
struct TokenBrokerStorageTests {
    /// A broker whose vault is on a fresh 2 MiB tmpfs, with account "work" added (not logged in).
    func brokerOnTinyDisk() async throws -> (BrokerHarness, TinyFilesystem, TokenBroker) {
        let disk = try #require(TinyFilesystem.mount(kilobytes: 2048))
        var harness = try BrokerHarness()
        harness.databaseDirectory = disk.path
        let broker = try await harness.makeBroker()
        _ = try await broker.addAccount(AccountConfiguration(name: "work", issuer: harness.provider.issuer, clientID: "cli"))
        return (harness, disk, broker)
    }

    func lastErrorCode(_ broker: TokenBroker) async -> WireErrorCode? {
        await broker.status().accounts.first?.lastError?.code
    }

    func login(_ broker: TokenBroker) async throws -> LoginStatus {
        let started = try await broker.startLogin(account: "work", request: LoginRequest())
        return try await broker.loginStatus(id: started.loginID, wait: 5)
    }

    @Test func aLoginThatCannotBeSavedIsServedShownAndSavedByARetry() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer {
            disk.unmount()
            harness.remove()
        }
        try disk.fill()
        #expect(try await login(broker).outcome == .succeeded)
        guard case .token(let token) = await broker.tokenOrCode() else {
            Issue.record("the unsaved login's token was not served")
            return
        }
        #expect(await eventually { await lastErrorCode(broker) == .storageFailed })
        #expect(harness.logs.captured.joined(separator: "\n").contains("keeping them in memory and retrying"))

        disk.free()
        harness.clock.advance(2)  // past the first retry
        #expect(await eventually { await lastErrorCode(broker) == nil }, "\(harness.logs.captured.joined(separator: "\n"))")
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == .token(token))
        await restarted.shutdown()
    }

    /// docs/security.md, "Secrets in memory": once a retried save commits them, the machine holds
    /// the tokens' ID token in the vault only, as after a save that succeeds at once.
    @Test func aRetriedSaveLeavesNoIDTokenInMemory() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer {
            disk.unmount()
            harness.remove()
        }
        harness.provider.with { $0.loginIDToken = "header.payload.signature" }
        try disk.fill()
        #expect(try await login(broker).outcome == .succeeded)
        #expect(await eventually { await lastErrorCode(broker) == .storageFailed })
        let unsaved = try #require(await broker.accounts.values.first?.machine.currentTokens)
        #expect(unsaved.idToken == .token(Secret("header.payload.signature")), "kept in memory while unsaved")
        disk.free()
        harness.clock.advance(2)  // past the first retry
        #expect(await eventually { await lastErrorCode(broker) == nil })
        let runtime = try #require(await broker.accounts.values.first)
        let current = try #require(runtime.machine.currentTokens)
        #expect(current.idToken == .stored(identity: nil), "\(String(describing: current.idToken))")
        #expect(runtime.persistedTokens?.sharesStorage(with: current) == true)
        let id = runtime.id
        #expect(try await broker.worker.perform { try $0.loadIDToken(accountID: id) } == Secret("header.payload.signature"))
        await broker.shutdown()
    }

    @Test func unsavedTokensGetALastSaveAtShutdown() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer {
            disk.unmount()
            harness.remove()
        }
        try disk.fill()
        #expect(try await login(broker).outcome == .succeeded)
        let token = await broker.tokenOrCode()
        #expect(await eventually { await lastErrorCode(broker) == .storageFailed })
        disk.free()
        await broker.shutdown()  // before the retry is due: the clock does not move
        #expect(
            harness.logs.captured.joined(separator: "\n").contains("unsaved tokens saved at shutdown"),
            "\(harness.logs.captured.joined(separator: "\n"))")
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == token)
        await restarted.shutdown()
    }

    @Test func anAccountUpdateThatCannotBeStoredChangesNothing() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer {
            disk.unmount()
            harness.remove()
        }
        #expect(try await login(broker).outcome == .succeeded)
        let token = await broker.tokenOrCode()
        try disk.fill()
        let changed = AccountConfiguration(
            name: "work", issuer: harness.provider.issuer, clientID: "cli", scopes: ["openid", "email"])
        do throws(WireError) {
            _ = try await broker.updateAccount(changed)
            Issue.record("the update succeeded on a full disk")
        } catch {
            #expect(error.code == .storageFailed, "\(error)")
        }
        #expect(await broker.tokenOrCode() == token, "a failed update signed the account out")
        #expect(await broker.status().accounts.first?.state == .active)
        await broker.shutdown()
    }
}

/// A refresh answer that arrives while a new login's tokens are being committed is dropped and
/// revoked: committed after the login's, it would put the old grant back in the row (and beside the
/// login's ID token, kept as stored).
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerLoginCommitTests {
    @Test func aRefreshAnswerDuringALoginsCommitIsDropped() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        defer { Task { await broker.shutdown() } }
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        let worker = await broker.worker
        let gate = DispatchSemaphore(value: 0)
        worker.enqueue({ _ in gate.wait() }, onError: { _ in })
        #expect(await eventually { worker.queuedJobs == 0 }, "the vault thread holds the gate")
        let started = try await broker.startLogin(account: "work", request: LoginRequest())
        #expect(await eventually { worker.queuedJobs == 1 }, "the new login's commit waits behind the gate")
        harness.clock.advance(20)
        let refresh = Task { await broker.tokenOrCode(minTTL: 95) }
        #expect(await eventually { harness.logs.captured.contains { $0.contains("a login is being saved") } })
        gate.signal()
        #expect(try await broker.loginStatus(id: started.loginID, wait: 5).outcome == .succeeded)
        _ = await refresh.value
        let login = try harness.provider.issuedAccess(1)
        let refreshed = try harness.provider.issuedAccess(2)
        #expect(
            await eventually { harness.provider.with { $0.revoked.contains { $0.token == refreshed } } },
            "the dropped answer's tokens are revoked")
        let runtime = try #require(await broker.accounts.values.first)
        #expect(runtime.machine.currentTokens?.accessToken == Secret(login))
        let id = runtime.id
        #expect(try await worker.perform { try $0.loadTokens(accountID: id)?.accessToken } == Secret(login))
    }
}
