import BrokerCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Key rotation (`authctl rekey`).
///
/// `rekey` re-encrypts every sealed field — client secrets, access/refresh/ID tokens and the key
/// check — under the new key in ONE transaction: after a crash the database is entirely under the
/// old key or entirely under the new one. If any field fails to open under the old key, nothing
/// changes and the error names that account and field (log that account out first).
///
/// Writing the new key somewhere durable is part of the job only in `rotateKeyFile(at:)`; with
/// `rekey(to:keySource:)` the caller must have stored the new key durably BEFORE calling it.
extension Vault {
    /// Re-encrypts everything under `newKey`, which the caller has already stored at `keySource`
    /// (a key file or systemd credential). Passphrase settings are dropped.
    public func rekey(to newKey: SymmetricKey, keySource newSource: KeySource) throws {
        guard !newSource.isPassphrase else {
            // A passphrase needs a salt and KDF record: rekey(toPassphraseFile:) makes them.
            throw StoreError.keyKindMismatch(
                keySource: newSource.description, database: databasePath, databaseUsesPassphrase: false)
        }
        try reseal(to: newKey, kdf: nil)
        keySource = newSource
    }

    /// Re-encrypts everything under a key derived from the passphrase in `path` with a fresh salt.
    public func rekey(
        toPassphraseFile path: String, parameters: KeyDerivation.ScryptParameters = .passphraseDefault
    ) throws {
        let record = try VaultMeta.KDFRecord.fresh(parameters: parameters)
        let newKey = try record.deriveKey(passphrase: PassphraseFile.read(path))
        try reseal(to: newKey, kdf: record)
        keySource = .passphraseFile(path: path)
    }

    /// Rotates the key in the key file at `path`, crash-safely:
    /// 1. a fresh key is written to `<path>.new` (0600, fsynced);
    /// 2. the database is re-encrypted under it (one transaction);
    /// 3. `<path>.new` is renamed over `path` and the directory fsynced.
    /// A crash after 2 and before 3 leaves the database under the key in `<path>.new`: the wrong-key
    /// refusal then tells the user to use that file (`mv <path>.new <path>`).
    public func rotateKeyFile(at path: String) throws {
        let pending = path + ".new"
        if SecureFiles.exists(pending) {
            throw StoreError.filesystem(path: pending, operation: "refusing to overwrite a pending key", errno: EEXIST)
        }
        let newKey = try KeyFile.generate(at: pending)
        do {
            try reseal(to: newKey, kdf: nil)
        } catch {
            unlink(pending)
            throw error
        }
        try SecureFiles.rename(pending, to: path)
        keySource = .keyFile(path: path)
    }

    private func reseal(to newKey: SymmetricKey, kdf: VaultMeta.KDFRecord?) throws {
        try connection.transaction {
            try resealClientSecrets(to: newKey)
            try resealTokens(to: newKey)
            try resealRegistrationTokens(to: newKey)
            let meta = VaultMeta(connection: connection)
            try meta.writeKeyCheck(key: newKey)
            try meta.setKDFRecord(kdf)
        }
        key = newKey
    }

    private func resealClientSecrets(to newKey: SymmetricKey) throws {
        let rows = try connection.query("SELECT id, name, client_secret FROM accounts WHERE client_secret IS NOT NULL") {
            (id: $0.int64(0), name: $0.text(1), sealed: $0.blob(2))
        }
        for row in rows {
            let secret = try open(row.sealed, accountID: row.id, accountName: row.name, field: .clientSecret)
            let resealed = try seal(secret, accountID: row.id, field: .clientSecret, key: newKey)
            try connection.run("UPDATE accounts SET client_secret = ? WHERE id = ?", [.blob(resealed), .integer(row.id)])
        }
    }

    private func resealTokens(to newKey: SymmetricKey) throws {
        let rows = try connection.query(
            """
            SELECT t.account_id, a.name, t.access_token, t.refresh_token, t.id_token, t.dpop_key
            FROM tokens t JOIN accounts a ON a.id = t.account_id
            """
        ) { row in
            (id: row.int64(0), name: row.text(1), sealed: (2...5).map { row.optionalBlob($0) })
        }
        for row in rows {
            var resealed: [SQLValue] = []
            for (field, sealed) in zip(SealedField.tokenFields, row.sealed) {
                let secret = try openOptional(sealed, accountID: row.id, accountName: row.name, field: field)
                resealed.append(.optional(try secret.map { try seal($0, accountID: row.id, field: field, key: newKey) }))
            }
            try connection.run(
                "UPDATE tokens SET access_token = ?, refresh_token = ?, id_token = ?, dpop_key = ? WHERE account_id = ?",
                resealed + [.integer(row.id)])
        }
    }
}
