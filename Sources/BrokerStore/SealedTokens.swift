/// A tokens row as stored: the sealed fields not yet opened, the plain ones read.
struct SealedTokens {
    /// The columns `init(_:from:)` reads, in its order (`t` is the tokens table).
    static let columns =
        "t.access_token, t.refresh_token, t.id_token, t.token_type, t.scope, t.expires_at, t.obtained_at, t.dpop_key"

    var access: [UInt8]
    var refresh: [UInt8]?
    var id: [UInt8]?
    var type: String
    var scope: String?
    var expiresAt: Double?
    var obtainedAt: Double
    var dpopKey: [UInt8]?

    /// `columns`, starting at column `first` of `row`.
    init(_ row: SQLiteRow, from first: Int32) {
        access = row.blob(first)
        refresh = row.optionalBlob(first + 1)
        id = row.optionalBlob(first + 2)
        type = row.text(first + 3)
        scope = row.optionalText(first + 4)
        expiresAt = row.optionalDouble(first + 5)
        obtainedAt = row.double(first + 6)
        dpopKey = row.optionalBlob(first + 7)
    }
}
