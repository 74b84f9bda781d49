/// One named schema step. Migrations run in array order; the number applied is `PRAGMA user_version`.
public struct Migration: Sendable {
    public let name: String
    public let apply: @Sendable (SQLiteConnection) throws -> Void

    public init(name: String, apply: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        self.name = name
        self.apply = apply
    }

    /// A migration that is a fixed SQL script.
    public init(name: String, sql: String) {
        self.init(name: name) { connection in try connection.execute(sql) }
    }
}

/// Brings a database up to date with a list of migrations.
public enum Migrator {
    /// `PRAGMA user_version`: how many migrations the database has had.
    public static func version(of connection: SQLiteConnection) throws(StoreError) -> Int {
        Int(try connection.query("PRAGMA user_version") { $0.int64(0) }.first ?? 0)
    }

    /// Applies the migrations the database has not had yet, each in its own transaction together
    /// with the `user_version` bump (so a crash leaves the database at a migration boundary).
    /// Refuses a database whose version is beyond `migrations.count`: a newer authbroker wrote it,
    /// and guessing at its schema could destroy data.
    /// - Returns: the names of the migrations applied.
    @discardableResult
    public static func migrate(_ connection: SQLiteConnection, migrations: [Migration]) throws -> [String] {
        let current = try version(of: connection)
        guard current <= migrations.count else {
            throw StoreError.schemaTooNew(database: connection.path, found: current, supported: migrations.count)
        }
        var applied: [String] = []
        for (index, migration) in migrations.enumerated().dropFirst(current) {
            try connection.transaction {
                // Re-read inside the write lock: another process may have migrated meanwhile.
                guard try version(of: connection) == index else { return }
                try migration.apply(connection)
                try connection.execute("PRAGMA user_version = \(index + 1)")
                applied.append(migration.name)
            }
        }
        return applied
    }
}
