import BrokerCrypto
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Errors from the SQLite store, the encrypted vault and its key sources.
///
/// No case carries a secret or a statement argument: only paths, account names, field names,
/// SQLite's own codes/messages and counts. Each `description` says what to do about it.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SQLite call failed. `operation` names what we were doing (never the bound values).
    case sqlite(code: Int32, message: String, operation: String)
    /// The database was written by a newer authbroker (its `user_version` is beyond our migrations).
    case schemaTooNew(database: String, found: Int, supported: Int)
    /// `PRAGMA integrity_check` reported problems.
    case integrityCheckFailed(database: String, problems: [String])
    /// A file-system call failed.
    case filesystem(path: String, operation: String, errno: Int32)
    /// A key, passphrase or database file readable or writable by group or other (like ssh, we refuse).
    case permissionsTooOpen(path: String, mode: UInt32)
    /// A key or passphrase file owned by someone else than us or root; a database file not ours.
    case wrongOwner(path: String, owner: UInt32)
    /// A key file that is not one line of standard base64 encoding exactly 32 bytes.
    case invalidKeyFile(path: String, reason: String)
    /// The database is encrypted but the key file it needs is gone.
    case keyFileMissing(keySource: String, database: String)
    /// The key does not open the database's key-check value.
    case wrongKey(keySource: String, database: String)
    /// The key does not open the database, but a `<key file>.new` from an interrupted
    /// `rotateKeyFile` exists: the database is most likely under that key.
    case interruptedRotation(keySource: String, pendingKeyFile: String, database: String)
    /// A passphrase opened a key-file database or the other way round.
    case keyKindMismatch(keySource: String, database: String, databaseUsesPassphrase: Bool)
    /// Neither XDG_CONFIG_HOME nor HOME is set, so there is no default key file location.
    case noDefaultKeyLocation
    /// A sealed field failed to open: tampered, swapped between accounts/fields, or corrupted.
    case cannotDecrypt(account: String, field: String)
    case duplicateAccount(name: String)
    case unknownAccount(name: String)
    case unknownAccountID(Int64)
    /// A cryptographic primitive failed (never a decryption failure, which is `cannotDecrypt`).
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let operation):
            "SQLite error \(code) while \(operation): \(message)"
        case .schemaTooNew(let database, let found, let supported):
            "The database '\(database)' has schema version \(found), but this authbroker understands only up to "
                + "\(supported): it was written by a newer authbroker. Upgrade authbroker, or point it at "
                + "another state directory."
        case .integrityCheckFailed(let database, let problems):
            "The database '\(database)' failed its integrity check (\(problems.prefix(3).joined(separator: "; "))). "
                + "Restore it from a backup, or move it away and log in again."
        case .filesystem(let path, let operation, let code):
            "\(operation) '\(path)' failed: \(Errno(code).descriptionWithCode)"
        case .permissionsTooOpen(let path, let mode):
            "permissions \(String(mode & 0o7777, radix: 8).leftPadded(to: 4)) for '\(path)' are too open; "
                + "run: chmod 600 '\(path)'"
        case .wrongOwner(let path, let owner):
            "'\(path)' is owned by uid \(owner), not by this user (or root, for a key file); refusing to use it. "
                + "Fix the owner (chown) or use another file."
        case .invalidKeyFile(let path, let reason):
            "The key file '\(path)' is invalid: \(reason). A key file holds 32 random bytes as one line of "
                + "standard base64 (make one with: openssl rand -base64 32 > FILE; chmod 600 FILE)."
        case .keyFileMissing(let source, let database):
            "The database '\(database)' is encrypted, but its key (\(source)) does not exist. Restore the key "
                + "file, or move the database away to start over (all stored logins are then lost)."
        case .wrongKey(let source, let database):
            "The key from \(source) does not open the database '\(database)': it was encrypted with a different "
                + "key. Use the key it was created with (--key-file, or the systemd credential), or move the "
                + "database away to start over. authbroker never re-keys silently."
        case .interruptedRotation(let source, let pending, let database):
            "The key from \(source) does not open the database '\(database)', and a key rotation was "
                + "interrupted: the database is probably encrypted with the key in '\(pending)'. "
                + "Move that file over the old key file (mv '\(pending)' …), then start again."
        case .keyKindMismatch(let source, let database, let usesPassphrase):
            "The database '\(database)' was encrypted with \(usesPassphrase ? "a passphrase" : "a key file"), "
                + "but \(source) was given. Use the \(usesPassphrase ? "passphrase file" : "key file") it was "
                + "created with."
        case .noDefaultKeyLocation:
            "Neither XDG_CONFIG_HOME nor HOME is set, so there is no default key file. Pass --key-file."
        case .cannotDecrypt(let account, let field):
            "The stored \(field) of account '\(account)' cannot be decrypted (tampered, swapped or corrupted). "
                + "Log that account out and in again (authctl logout \(account); authctl login \(account))."
        case .duplicateAccount(let name):
            "An account named '\(name)' already exists. Choose another name, or remove it first."
        case .unknownAccount(let name):
            "No account named '\(name)'. Add one with: authctl account add \(name) --issuer … --client-id …"
        case .unknownAccountID(let id):
            "No account with id \(id) (it was removed)."
        case .crypto(let error):
            "Cryptography failed: \(error)"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
