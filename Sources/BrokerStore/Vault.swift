import BrokerCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The encrypted token vault: accounts, their tokens (each sealed separately with AES-256-GCM and
/// AAD "authbroker/v1/<account id>/<field>"), cached provider metadata and JWKS.
///
/// Not Sendable: one owner uses it. Its calls block (SQLite I/O, an fsync per commit — ~300
/// commits/s measured on ext4 here), so the daemon should drive it from a dedicated thread, not
/// from the cooperative pool.
/// Opening verifies the key against a sealed key-check value before anything else, so a wrong key
/// is one clear refusal (`StoreError.wrongKey`) rather than a per-account mess; the vault never
/// re-keys by itself (`rekey` is explicit).
public final class Vault {
    let connection: SQLiteConnection
    var key: SymmetricKey {
        didSet { (opener, sealer) = (nil, nil) }
    }
    /// One cipher context for every open under `key`, made at the first open: start-up opens three
    /// or four values per account, and a context per open was most of their cost (`AESGCMOpener`).
    private var opener: AESGCMOpener?
    /// The same for seals (`AESGCMSealer`): a token save seals three or four fields inside the
    /// commit, the window in which the provider has rotated and nothing is on disk yet.
    private var sealer: AESGCMSealer?
    /// Where the current key came from (named in errors).
    public internal(set) var keySource: KeySource

    public var databasePath: String { connection.path }

    /// Runs `body` (many reads) as one transaction: one lock and one consistent snapshot instead of
    /// one per statement — restoring 1,000 accounts took ~40 % less time (bench/daemon-footprint.sh).
    public func batch<T>(_ body: () throws -> T) throws -> T { try connection.transaction(body) }

    /// Hands the page cache's pages back to malloc, after a read of every account (start-up).
    public func releaseCache() { connection.releaseCache() }

    /// The page cache's bytes in use now.
    public var cacheBytesUsed: Int { connection.cacheBytesUsed }

    /// The number of schema migrations this build knows.
    public static var schemaVersion: Int { VaultSchema.count }

    private init(connection: SQLiteConnection, key: SymmetricKey, keySource: KeySource) {
        self.connection = connection
        self.key = key
        self.keySource = keySource
    }

    /// Opens (creating and migrating as needed) the vault at `databasePath` with the key from
    /// `keySource`. A first open writes the key check (and, for a passphrase, the scrypt salt and
    /// `passphraseParameters`); later opens verify it. Accounts stored before accounts had owners
    /// are given to `existingOwner` (the daemon's uid: they were its user's accounts).
    public static func open(
        databasePath: String, keySource: KeySource,
        passphraseParameters: KeyDerivation.ScryptParameters = .passphraseDefault, existingOwner: UInt32 = getuid()
    ) throws -> Vault {
        let connection = try SQLiteConnection(path: databasePath)
        try Migrator.migrate(connection, migrations: VaultSchema.migrations(existingOwner: existingOwner))
        let meta = VaultMeta(connection: connection)
        let keyCheck = try meta.blob(.keyCheck)
        let kdf = try meta.kdfRecord()
        let context = KeyLoadingContext(
            source: keySource, database: databasePath, databaseIsKeyed: keyCheck != nil, storedKDF: kdf,
            newPassphraseParameters: passphraseParameters)
        let (key, newKDF) = try context.loadKey()
        if let keyCheck {
            guard (try? AESGCM.open(keyCheck, key: key, associatedData: VaultMeta.keyCheckAAD)) != nil else {
                let pending = keySource.path + ".new"
                if !keySource.isPassphrase, SecureFiles.exists(pending) {
                    throw StoreError.interruptedRotation(
                        keySource: keySource.description, pendingKeyFile: pending, database: databasePath)
                }
                throw StoreError.wrongKey(keySource: keySource.description, database: databasePath)
            }
        } else {
            let raced = try connection.transaction {
                // Another process may have keyed the database since we looked: keep its key check.
                guard try meta.blob(.keyCheck) == nil else { return true }
                try meta.writeKeyCheck(key: key)
                if let newKDF { try meta.setKDFRecord(newKDF) }
                return false
            }
            if raced {
                return try open(
                    databasePath: databasePath, keySource: keySource, passphraseParameters: passphraseParameters,
                    existingOwner: existingOwner)
            }
        }
        return Vault(connection: connection, key: key, keySource: keySource)
    }

    /// Runs `PRAGMA integrity_check`; throws `integrityCheckFailed` with the problems found.
    public func integrityCheck() throws {
        try connection.integrityCheck()
    }

    // MARK: Sealing

    /// Seals under the vault's key, with its one cipher context (made at the first seal).
    func seal(_ secret: Secret, accountID: Int64, field: SealedField) throws -> [UInt8] {
        try seal(secret, accountID: accountID, field: field) {
            let sealer = try self.sealer ?? AESGCMSealer(key: key)
            self.sealer = sealer
            return sealer
        }
    }

    /// Seals under another key than the vault's (a rekey's new key).
    func seal(_ secret: Secret, accountID: Int64, field: SealedField, key: SymmetricKey) throws -> [UInt8] {
        try seal(secret, accountID: accountID, field: field) { try AESGCMSealer(key: key) }
    }

    private func seal(
        _ secret: Secret, accountID: Int64, field: SealedField, with sealer: () throws -> AESGCMSealer
    ) throws -> [UInt8] {
        do {
            let sealer = try sealer()
            return try secret.withUnsafeBytes { bytes in
                try sealer.seal(bytes, associatedData: field.associatedData(accountID: accountID))
            }
        } catch let error as CryptoError {
            throw StoreError.crypto(error)
        }
    }

    /// Opens a sealed column; any failure (tag, AAD, truncation) is `cannotDecrypt` naming the
    /// account and field — the caller's other accounts are unaffected.
    func open(_ envelope: [UInt8], accountID: Int64, accountName: String, field: SealedField) throws -> Secret {
        guard var plaintext = try? opened(envelope, associatedData: field.associatedData(accountID: accountID)) else {
            throw StoreError.cannotDecrypt(account: accountName, field: field.rawValue)
        }
        defer { plaintext.withUnsafeMutableBytes { wipe($0) } }
        return Secret(plaintext)
    }

    private func opened(_ envelope: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        if let opener { return try opener.open(envelope, associatedData: associatedData) }
        let opener = try AESGCMOpener(key: key)
        self.opener = opener
        return try opener.open(envelope, associatedData: associatedData)
    }

    func openOptional(_ envelope: [UInt8]?, accountID: Int64, accountName: String, field: SealedField) throws
        -> Secret?
    {
        try envelope.map { try open($0, accountID: accountID, accountName: accountName, field: field) }
    }
}

/// Turns a key source into a key, given what the database already says about its key.
private struct KeyLoadingContext {
    let source: KeySource
    let database: String
    let databaseIsKeyed: Bool
    let storedKDF: VaultMeta.KDFRecord?
    let newPassphraseParameters: KeyDerivation.ScryptParameters

    /// The key, plus the KDF record to store when a passphrase keys a new database.
    func loadKey() throws -> (SymmetricKey, VaultMeta.KDFRecord?) {
        if databaseIsKeyed, (storedKDF != nil) != source.isPassphrase {
            throw StoreError.keyKindMismatch(
                keySource: source.description, database: database, databaseUsesPassphrase: storedKDF != nil)
        }
        if source.isPassphrase {
            let passphrase = try PassphraseFile.read(source.path)
            let record = try storedKDF ?? VaultMeta.KDFRecord.fresh(parameters: newPassphraseParameters)
            return (try record.deriveKey(passphrase: passphrase), storedKDF == nil ? record : nil)
        }
        guard SecureFiles.exists(source.path) else {
            if databaseIsKeyed { throw StoreError.keyFileMissing(keySource: source.description, database: database) }
            if case .defaultKeyFile = source { return (try generateDefaultKey(), nil) }
            return (try KeyFile.read(source.path), nil)  // throws the precise "cannot open" error
        }
        return (try KeyFile.read(source.path), nil)
    }

    /// First start: make the default key. If another process won the race, use its key.
    private func generateDefaultKey() throws -> SymmetricKey {
        do {
            return try KeyFile.generate(at: source.path)
        } catch StoreError.filesystem(_, _, let code) where code == EEXIST {
            return try KeyFile.read(source.path)
        }
    }
}

/// A passphrase file: the passphrase is the file's bytes minus one trailing newline.
enum PassphraseFile {
    static func read(_ path: String) throws(StoreError) -> Secret {
        var bytes = try SecureFiles.readSecretFile(path).revealBytes()
        defer { bytes.withUnsafeMutableBytes { wipe($0) } }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .invalidKeyFile(path: path, reason: "the passphrase file is empty") }
        return Secret(bytes)
    }
}
