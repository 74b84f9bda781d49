import BrokerCrypto

/// The vault's `meta` table: the sealed key check and, for passphrase-keyed vaults, the scrypt
/// salt and cost parameters.
struct VaultMeta {
    enum Key: String {
        case keyCheck = "key_check"
        case kdfSalt = "kdf_salt"
        case kdfN = "kdf_n"
        case kdfR = "kdf_r"
        case kdfP = "kdf_p"
    }

    /// The key check's AAD: distinct from every account field's AAD.
    static let keyCheckAAD = Array("authbroker/v1/meta/key-check".utf8)
    static let keyCheckPlaintext = Array("authbroker key check v1".utf8)

    let connection: SQLiteConnection

    func value(_ key: Key) throws(StoreError) -> SQLiteValueReader? {
        try connection.query("SELECT value FROM meta WHERE key = ?", [.text(key.rawValue)]) {
            SQLiteValueReader(blob: $0.optionalBlob(0), integer: $0.int64(0))
        }.first
    }

    func blob(_ key: Key) throws(StoreError) -> [UInt8]? { try value(key)?.blob }

    func set(_ key: Key, _ value: SQLValue) throws(StoreError) {
        try connection.run(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key.rawValue), value])
    }

    func writeKeyCheck(key: SymmetricKey) throws {
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(Self.keyCheckPlaintext, key: key, associatedData: Self.keyCheckAAD)
        } catch let error as CryptoError {
            throw StoreError.crypto(error)
        }
        try set(.keyCheck, .blob(sealed))
    }

    // MARK: Passphrase KDF

    /// scrypt salt and parameters of a passphrase-keyed vault.
    struct KDFRecord: Equatable {
        var salt: [UInt8]
        var parameters: KeyDerivation.ScryptParameters

        static func fresh(parameters: KeyDerivation.ScryptParameters) throws -> KDFRecord {
            do { return KDFRecord(salt: try Random.bytes(16), parameters: parameters) } catch let error as CryptoError {
                throw StoreError.crypto(error)
            }
        }

        func deriveKey(passphrase: Secret) throws -> SymmetricKey {
            do {
                let derived = try KeyDerivation.scrypt(
                    password: passphrase, salt: salt, parameters: parameters, length: SymmetricKey.byteCount)
                return try SymmetricKey(derived)
            } catch {
                throw StoreError.crypto(error)
            }
        }
    }

    func kdfRecord() throws(StoreError) -> KDFRecord? {
        guard let salt = try blob(.kdfSalt) else { return nil }
        let n = try value(.kdfN)?.integer ?? 0
        let r = try value(.kdfR)?.integer ?? 0
        let p = try value(.kdfP)?.integer ?? 0
        // Stored values are checked again by KeyDerivation; here only that they fit the types.
        guard n > 0, (1...Int64(UInt32.max)).contains(r), (1...Int64(UInt32.max)).contains(p) else {
            throw .crypto(.invalidParameters("stored scrypt parameters are damaged"))
        }
        return KDFRecord(salt: salt, parameters: .init(n: UInt64(n), r: UInt32(r), p: UInt32(p)))
    }

    /// Stores `record`, or removes the KDF rows when nil (the vault is keyed by a key file).
    func setKDFRecord(_ record: KDFRecord?) throws(StoreError) {
        guard let record else {
            try connection.run("DELETE FROM meta WHERE key LIKE 'kdf_%'")
            return
        }
        try set(.kdfSalt, .blob(record.salt))
        try set(.kdfN, .integer(Int64(record.parameters.n)))
        try set(.kdfR, .integer(Int64(record.parameters.r)))
        try set(.kdfP, .integer(Int64(record.parameters.p)))
    }
}

/// One meta value read both ways (the column is ANY).
struct SQLiteValueReader {
    let blob: [UInt8]?
    let integer: Int64
}
