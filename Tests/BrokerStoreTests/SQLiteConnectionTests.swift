import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

@Suite struct SQLiteConnectionTests {
    @Test func migrationsFromEmptyCreateTheVaultSchema() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        #expect(try Migrator.version(of: vault.connection) == Vault.schemaVersion)
        let tables = try vault.connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.text(0)
        }
        for table in ["accounts", "jwks_cache", "meta", "provider_metadata", "tokens"] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        try vault.integrityCheck()
    }

    /// Start-up runs the same few queries for every account: each is parsed once, then reused.
    @Test func aQueryRunAgainReusesItsPreparedStatementAndLeavesNothingActive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("c.db"))
        try connection.execute("CREATE TABLE t (a INTEGER)")
        for value in 1...3 { try connection.run("INSERT INTO t (a) VALUES (?)", [.integer(Int64(value))]) }
        let before = connection.preparedStatements.count
        for value in 1...3 {
            #expect(
                try connection.query("SELECT a FROM t WHERE a = ?", [.integer(Int64(value))]) { $0.int64(0) } == [Int64(value)])
        }
        #expect(connection.preparedStatements.count == before + 1)
        #expect(connection.preparedStatements.mostRuns == 3)
        #expect(!connection.hasActiveStatement)
        // A mapping that throws half-way leaves no statement holding a read snapshot open.
        #expect(throws: StoreError.self) {
            _ = try connection.query("SELECT a FROM t ORDER BY a") { row throws(StoreError) in
                if row.int64(0) == 2 { throw StoreError.unknownAccountID(2) }
                return row.int64(0)
            }
        }
        #expect(!connection.hasActiveStatement)
        // Running the same SQL from inside its own row mapping gets a statement of its own.
        let nested = try connection.query("SELECT a FROM t ORDER BY a") { row throws(StoreError) in
            try connection.query("SELECT a FROM t ORDER BY a") { $0.int64(0) }.count + Int(row.int64(0))
        }
        #expect(nested == [4, 5, 6])
    }

    /// The daemon reads every row at start-up: the page cache must not keep a big vault in memory.
    @Test func readingAWholeLargeDatabaseKeepsAtMostTheBoundedPageCache() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("big.db"))
        try connection.execute("CREATE TABLE t (a BLOB)")
        try connection.transaction {
            for _ in 0..<600 { _ = try connection.run("INSERT INTO t (a) VALUES (randomblob(4000))") }
        }
        let total = try connection.query("SELECT sum(length(a)) FROM t") { $0.int64(0) }.first ?? 0
        #expect(total == 2_400_000, "the table is larger than SQLite's default 2 MiB cache")
        #expect(connection.cacheBytesUsed <= SQLiteConnection.cacheKibibytes * 1024 * 11 / 10)
    }

    @Test func migratorRunsNamedMigrationsInOrderOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("m.db"))
        let migrations = [
            Migration(name: "one", sql: "CREATE TABLE t (a INTEGER)"),
            Migration(name: "two", sql: "ALTER TABLE t ADD COLUMN b TEXT"),
        ]
        #expect(try Migrator.migrate(connection, migrations: Array(migrations.prefix(1))) == ["one"])
        #expect(try Migrator.migrate(connection, migrations: migrations) == ["two"])
        #expect(try Migrator.migrate(connection, migrations: migrations) == [])
        #expect(try Migrator.version(of: connection) == 2)
        try connection.run("INSERT INTO t (a, b) VALUES (1, 'x')")
    }

    @Test func failedMigrationLeavesVersionUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("m.db"))
        let migrations = [
            Migration(name: "good", sql: "CREATE TABLE t (a INTEGER)"),
            Migration(name: "bad", sql: "CREATE TABLE u (a INTEGER); THIS IS NOT SQL"),
        ]
        #expect(throws: StoreError.self) { try Migrator.migrate(connection, migrations: migrations) }
        #expect(try Migrator.version(of: connection) == 1)
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE name = 'u'") { $0.text(0) }
        #expect(tables.isEmpty)
    }

    @Test func schemaNewerThanTheBinaryIsRefused() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        do {
            let raw = try fixture.rawConnection()
            try raw.execute("PRAGMA user_version = 99")
        }
        let error = storeError { _ = try fixture.open() }
        #expect(error == .schemaTooNew(database: fixture.databasePath, found: 99, supported: Vault.schemaVersion))
        let text = error?.description ?? ""
        #expect(text.contains(fixture.databasePath))
        #expect(text.contains("Upgrade authbroker"))
        #expect(text.contains("another state directory"))
    }

    @Test func databaseWalAndShmAre0600AndStateDirectoryIs0700() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        try vault.addAccount(sampleAccount("modes"), owner: 1000, now: 1)
        // While the connection is open in WAL mode, -wal and -shm exist.
        for path in [fixture.databasePath, fixture.databasePath + "-wal", fixture.databasePath + "-shm"] {
            #expect(try fileMode(path) == 0o600, "\(path)")
        }
        #expect(try fileMode(fixture.directory.appending("state")) == 0o700)
        #expect(try fileMode(fixture.keyPath) == 0o600)
        #expect(try fileMode(fixture.directory.appending("config")) == 0o700)
    }

    /// docs/security.md: DB, WAL and SHM files looser than 0600 are refused, like key files —
    /// not silently tightened — and so are symlinks and files of another user.
    @Test func looseForeignOrLinkedDatabaseFilesAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("loose.db")
        try writeFile(path, "", mode: 0o644)
        #expect(throws: StoreError.permissionsTooOpen(path: path, mode: S_IFREG | 0o644)) { try SQLiteConnection(path: path) }
        #expect(try fileMode(path) == 0o644)
        #expect(StoreError.permissionsTooOpen(path: path, mode: 0o644).description.contains("run: chmod 600 '\(path)'"))
        chmod(path, 0o600)
        for suffix in ["-wal", "-shm"] {
            try writeFile(path + suffix, "", mode: 0o640)
            #expect(throws: StoreError.permissionsTooOpen(path: path + suffix, mode: S_IFREG | 0o640)) {
                try SQLiteConnection(path: path)
            }
            unlink(path + suffix)
        }
        _ = try SQLiteConnection(path: path)

        let link = directory.appending("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: StoreError.filesystem(path: link, operation: "creating", errno: ELOOP)) {
            try SQLiteConnection(path: link)
        }
        if geteuid() == 0 {
            let foreign = directory.appending("foreign.db")
            try writeFile(foreign, "", mode: 0o600)
            chown(foreign, 65534, 65534)
            #expect(throws: StoreError.wrongOwner(path: foreign, owner: 65534)) { try SQLiteConnection(path: foreign) }
        }
    }

    @Test func transactionCommitsOnReturnAndRollsBackOnThrow() throws {
        struct Injected: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("t.db"))
        try connection.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Injected.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t VALUES (1)")
                throw Injected()
            }
        }
        #expect(try connection.query("SELECT count(*) FROM t") { $0.int64(0) } == [0])
        let value = try connection.transaction {
            try connection.run("INSERT INTO t VALUES (2)")
            // A nested transaction that throws rolls back only its own work.
            try? connection.transaction {
                try connection.run("INSERT INTO t VALUES (3)")
                throw Injected()
            }
            return 42
        }
        #expect(value == 42)
        #expect(try connection.query("SELECT v FROM t ORDER BY v") { $0.int64(0) } == [2])
    }

    @Test func typedBindingAndColumnReadsRoundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("b.db"))
        try connection.execute("CREATE TABLE v (i INTEGER, r REAL, t TEXT, b BLOB, e BLOB, n TEXT)")
        try connection.run(
            "INSERT INTO v VALUES (?, ?, ?, ?, ?, ?)",
            [.integer(Int64.min), .real(1.5e300), .text("héllo ✓"), .blob([0, 1, 255]), .blob([]), .null])
        let rows = try connection.query("SELECT i, r, t, b, e, n, typeof(e) FROM v") { row in
            #expect(row.int64(0) == Int64.min)
            #expect(row.double(1) == 1.5e300)
            #expect(row.text(2) == "héllo ✓")
            #expect(row.blob(3) == [0, 1, 255])
            #expect(row.optionalBlob(4) == [])
            #expect(row.text(6) == "blob")
            #expect(row.optionalText(5) == nil)
            #expect(row.isNull(5))
            return 1
        }
        #expect(rows.count == 1)
    }

    @Test func sqliteErrorsCarryCodeButNotArguments() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("e.db"))
        try connection.execute("CREATE TABLE u (v TEXT UNIQUE)")
        let secret = "tok-\(UUID().uuidString)"
        try connection.run("INSERT INTO u VALUES (?)", [.text(secret)])
        let error = storeError { try connection.run("INSERT INTO u VALUES (?)", [.text(secret)]) }
        guard case .sqlite(let code, let message, _) = error else {
            Issue.record("expected .sqlite, got \(String(describing: error))")
            return
        }
        #expect(code == SQLiteConnection.constraintUnique)
        #expect(message.contains("UNIQUE"))
        let text = error?.description ?? secret
        #expect(!text.contains(secret))
        #expect(throws: StoreError.self) { try connection.execute("NOT SQL") }
    }

    @Test func integrityCheckPassesOnAFreshDatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.appending("i.db"))
        try connection.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1)")
        #expect(try connection.integrityProblems() == [])
        try connection.integrityCheck()
    }
}
