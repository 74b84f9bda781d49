import CSQLite

/// One SQLite connection. Owns the `sqlite3*` and closes it in `deinit`.
///
/// Not Sendable and not thread-safe (opened with `SQLITE_OPEN_NOMUTEX`): give it one owner — an
/// actor or a dedicated thread. Configured for crash safety on open (see `configure`).
/// Errors carry SQLite's code and message and what we were doing, never statement arguments.
public final class SQLiteConnection {
    let handle: OpaquePointer
    /// The database file.
    public let path: String
    /// Prepared statements of `run` and `query`, by SQL text: parsing the SQL again for every call
    /// was a third of the daemon's start-up with 1,000 accounts (perf: sqlite3Parser, sqlite3RunParser).
    private var statements: [String: SQLiteStatement] = [:]
    /// SQL whose cached statement is being stepped (a `query` whose row mapping runs the same SQL
    /// gets a statement of its own).
    private var statementsInUse: Set<String> = []
    /// The vault has a few dozen distinct statements; SQL built with values in it is not cached beyond this.
    static let statementCacheLimit = 64

    /// Opens (creating if needed) the database at `path`. The file is created 0600 *before* SQLite
    /// opens it, so the -wal and -shm files SQLite creates later inherit 0600; the parent directory
    /// is created 0700 when missing.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(StoreError) {
        try SecureFiles.prepareDatabaseFile(path)
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw .sqlite(code: code, message: message, operation: "opening '\(path)'")
        }
        self.handle = connection
        self.path = path
        try configure(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    deinit {
        statements.removeAll()  // finalized before the close, so it is not deferred
        sqlite3_close_v2(handle)
    }

    /// WAL so readers never block the writer; `synchronous=FULL` so a commit is on disk when
    /// `COMMIT` returns. With NORMAL a committed transaction can be lost on power failure (not on
    /// a process crash); the vault's commits carry rotated refresh tokens — the old one is already
    /// void at the provider — so losing one means a forced re-login. The price is one fsync of the
    /// WAL per commit, and the vault commits a handful of times per hour.
    /// `cache_size=-512`: at most 512 KiB of page cache instead of SQLite's 2 MiB. The daemon reads
    /// every row once at start-up and then touches one account's rows at a time, so a larger cache
    /// only keeps the start-up's pages in memory for the daemon's lifetime (a 1,000-account vault
    /// is 1.2 MB, a 10,000-account one 12 MB).
    private func configure(busyTimeoutMilliseconds: Int32) throws(StoreError) {
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        let mode = try query("PRAGMA journal_mode=WAL") { $0.text(0) }.first
        guard mode?.lowercased() == "wal" else {
            throw .sqlite(code: SQLITE_ERROR, message: "journal mode is \(mode ?? "unknown")", operation: "enabling WAL")
        }
        try execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-\(Self.cacheKibibytes);")
    }

    /// The page cache's bound in KiB (see `configure`).
    static let cacheKibibytes = 512

    /// The page cache's bytes in use now (`SQLITE_DBSTATUS_CACHE_USED`).
    var cacheBytesUsed: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
        return Int(current)
    }

    /// Frees the page cache's unused pages (`sqlite3_db_release_memory`); later reads load what
    /// they need again. Start-up reads every row once: the cache then holds up to
    /// `cacheKibibytes` of pages nothing reads again until a write (docs/BENCHMARKS-archive.md,
    /// "Memory per account").
    func releaseCache() {
        sqlite3_db_release_memory(handle)
    }

    /// Runs one or more SQL statements without arguments (schema, pragmas).
    public func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, "executing SQL") }
    }

    public func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs one statement with `arguments` to completion; returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int {
        try withStatement(sql) { statement throws(StoreError) in
            try statement.bind(arguments)
            while try statement.step() {}
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs one query and maps every row.
    public func query<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (SQLiteRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        try withStatement(sql) { statement throws(StoreError) in
            try statement.bind(arguments)
            var rows: [T] = []
            while try statement.step() { rows.append(try map(statement.row)) }
            return rows
        }
    }

    /// `sql`'s cached statement (prepared on first use), reset after `body` however it ends, so no
    /// statement keeps a read snapshot open between calls.
    private func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> T {
        guard !statementsInUse.contains(sql) else { return try body(try prepare(sql)) }
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try SQLiteStatement(connection: self, sql: sql, cached: true)
            if statements.count < Self.statementCacheLimit { statements[sql] = statement }
        }
        statementsInUse.insert(sql)
        defer {
            sqlite3_reset(statement.handle)
            statementsInUse.remove(sql)
        }
        return try body(statement)
    }

    /// Whether any statement of this connection is between its first step and its reset.
    var hasActiveStatement: Bool {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return true }
            statement = sqlite3_next_stmt(handle, current)
        }
        return false
    }

    /// How many prepared statements this connection holds, and how often the busiest one ran.
    var preparedStatements: (count: Int, mostRuns: Int32) {
        var (count, most): (Int, Int32) = (0, 0)
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            count += 1
            most = max(most, sqlite3_stmt_status(current, Int32(SQLITE_STMTSTATUS_RUN), 0))
            statement = sqlite3_next_stmt(handle, current)
        }
        return (count, most)
    }

    /// `SQLITE_CONSTRAINT_UNIQUE` (extended result code): a computed macro, so it does not import.
    public static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (take the write lock up front, so a busy
    /// database fails or waits here, not halfway through), `COMMIT` when `body` returns,
    /// `ROLLBACK` when it throws (the error is rethrown). Nested calls use a savepoint.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let nested = sqlite3_get_autocommit(handle) == 0
        try execute(nested ? "SAVEPOINT nested" : "BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
        } catch {
            // A failed rollback leaves SQLite rolling back by itself; the body's error is the news.
            try? execute(nested ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK")
            throw error
        }
        do {
            try execute(nested ? "RELEASE nested" : "COMMIT")
        } catch {
            try? execute(nested ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK")
            throw error
        }
        return result
    }

    /// `PRAGMA integrity_check`: the problems found, or an empty array when the database is sound.
    public func integrityProblems() throws(StoreError) -> [String] {
        let lines = try query("PRAGMA integrity_check") { $0.text(0) }
        return lines == ["ok"] ? [] : lines
    }

    /// Throws `integrityCheckFailed` unless `PRAGMA integrity_check` answers "ok".
    public func integrityCheck() throws(StoreError) {
        let problems = try integrityProblems()
        guard problems.isEmpty else { throw .integrityCheckFailed(database: path, problems: problems) }
    }

    /// The current SQLite error as a `StoreError`.
    func error(_ code: Int32, _ operation: String) -> StoreError {
        .sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), operation: operation)
    }
}
