import CSQLite

/// A value bound to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null

    /// `.null` for nil, otherwise the wrapped value.
    public static func optional(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    public static func optional(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
    public static func optional(_ value: [UInt8]?) -> SQLValue { value.map { .blob($0) } ?? .null }
}

/// `SQLITE_TRANSIENT`: a macro that does not import. It tells SQLite to copy bound bytes at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Owns its `sqlite3_stmt*` (finalized in deinit) and keeps the connection
/// alive — except the connection's own cached statements, which it finalizes before it closes.
/// Not thread-safe: use it from the connection's thread only.
public final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    /// The connection, held for statements handed out by `prepare`; nil in the connection's
    /// statement cache (a strong reference there would be a cycle).
    private let keptAlive: SQLiteConnection?

    init(connection: SQLiteConnection, sql: String, cached: Bool = false) throws(StoreError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(code, "preparing a statement")
        }
        self.handle = statement
        self.connection = connection
        self.keptAlive = cached ? nil : connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to parameters 1…n.
    public func bind(_ values: [SQLValue]) throws(StoreError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, transient)
            case .blob(let bytes):
                // A zero-length blob must still be a blob, not NULL: bind_zeroblob does that.
                code =
                    bytes.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, bytes, Int32(bytes.count), transient)
            case .null: code = sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else { throw connection.error(code, "binding parameter \(index)") }
        }
    }

    /// Advances to the next row: true when a row is available, false when done.
    public func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code, "executing a statement")
        }
    }

    /// The current row's columns (valid until the next `step`).
    public var row: SQLiteRow { SQLiteRow(handle: handle) }
}

/// Typed column reads of the current row. Indexes start at 0. The non-optional readers follow
/// SQLite's conversions (NULL reads as 0, "" or []); use the `optional…` readers where NULL means "absent".
public struct SQLiteRow {
    let handle: OpaquePointer

    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    public func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    public func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func blob(_ index: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }
    public func optionalDouble(_ index: Int32) -> Double? { isNull(index) ? nil : double(index) }
    public func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }
    public func optionalBlob(_ index: Int32) -> [UInt8]? { isNull(index) ? nil : blob(index) }
}
