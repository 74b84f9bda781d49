import BrokerCore
import BrokerProtocol
import Foundation
import Testing
import TestSupport

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
        defer { disk.unmount(); harness.remove() }
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

    @Test func unsavedTokensGetALastSaveAtShutdown() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer { disk.unmount(); harness.remove() }
        try disk.fill()
        #expect(try await login(broker).outcome == .succeeded)
        let token = await broker.tokenOrCode()
        #expect(await eventually { await lastErrorCode(broker) == .storageFailed })
        disk.free()
        await broker.shutdown()  // before the retry is due: the clock does not move
        #expect(harness.logs.captured.joined(separator: "\n").contains("unsaved tokens saved at shutdown"), "\(harness.logs.captured.joined(separator: "\n"))")
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == token)
        await restarted.shutdown()
    }

    @Test func anAccountUpdateThatCannotBeStoredChangesNothing() async throws {
        let (harness, disk, broker) = try await brokerOnTinyDisk()
        defer { disk.unmount(); harness.remove() }
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
