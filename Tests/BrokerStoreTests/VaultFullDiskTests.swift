import BrokerCrypto
import CSQLite
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// The token store on a real, full filesystem (a 2 MiB tmpfs): a save fails with SQLITE_FULL,
/// rolls back completely, and the same connection saves again once there is room.
@Suite(.enabled(if: TinyFilesystem.canMount, "needs root to mount a tmpfs"))
struct VaultFullDiskTests {
    @Test func aFullDiskFailsTheSaveAndTheSameVaultSavesOnceThereIsRoom() throws {
        let disk = try #require(TinyFilesystem.mount(kilobytes: 2048))
        defer { disk.unmount() }
        let keys = try TemporaryDirectory(prefix: "authbroker-key")
        defer { keys.remove() }
        let keySource = KeySource.keyFile(path: keys.appending("master.key"))
        _ = try KeyFile.generate(at: keySource.path)
        let databasePath = disk.path + "/tokens.db"
        let vault = try Vault.open(databasePath: databasePath, keySource: keySource)
        let account = try vault.addAccount(sampleAccount("work"), owner: 1000, now: 1_700_000_000)
        let first = sampleTokens("1")
        try vault.saveTokens(first, accountID: account.id)

        try disk.fill()
        let second = sampleTokens("2")
        for attempt in 1...2 {
            // The second attempt proves the first rolled back: a transaction left open would make
            // BEGIN fail with "cannot start a transaction within a transaction" instead.
            let error = storeError { try vault.saveTokens(second, accountID: account.id) }
            guard case .sqlite(let code, _, _) = error else {
                Issue.record("attempt \(attempt): \(String(describing: error))")
                continue
            }
            #expect(code & 0xff == SQLITE_FULL, "attempt \(attempt): \(String(describing: error))")
        }
        #expect(try vault.loadTokens(accountID: account.id) == first, "a failed save changed what is stored")

        disk.free()
        try vault.saveTokens(second, accountID: account.id)
        #expect(try vault.loadTokens(accountID: account.id) == second)
        let reopened = try Vault.open(databasePath: databasePath, keySource: keySource)
        #expect(try reopened.loadTokens(accountID: account.id) == second)
        try SQLiteConnection(path: databasePath).integrityCheck()
    }
}
