/// Where the vault's master key comes from.
///
/// Resolution order (first match wins), see `resolve`:
/// 1. `$CREDENTIALS_DIRECTORY/authbroker.key` — a systemd credential (`LoadCredential=` or
///    `LoadCredentialEncrypted=` via `systemd-creds encrypt`), when that file exists;
/// 2. an explicit key file (`--key-file`);
/// 3. an explicit passphrase file (`--passphrase-file`), stretched with scrypt (salt and cost
///    parameters live in the database's meta table);
/// 4. the default key file `$XDG_CONFIG_HOME/authbroker/master.key` (XDG_CONFIG_HOME defaults to
///    `~/.config`), generated 0600 on first use in a 0700 directory.
public enum KeySource: Sendable, Equatable, CustomStringConvertible {
    case systemdCredential(path: String)
    case keyFile(path: String)
    case passphraseFile(path: String)
    case defaultKeyFile(path: String)

    public static let credentialName = "authbroker.key"

    /// Picks the key source. `environment` is passed in (not read from the process) so tests and
    /// the daemon's wiring decide what it contains.
    public static func resolve(
        environment: [String: String], keyFile: String? = nil, passphraseFile: String? = nil
    ) throws(StoreError) -> KeySource {
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory.hasSuffix("/") ? directory + credentialName : directory + "/" + credentialName
            if SecureFiles.exists(path) { return .systemdCredential(path: path) }
        }
        if let keyFile, !keyFile.isEmpty { return .keyFile(path: keyFile) }
        if let passphraseFile, !passphraseFile.isEmpty { return .passphraseFile(path: passphraseFile) }
        return .defaultKeyFile(path: try defaultKeyFilePath(environment: environment))
    }

    /// `$XDG_CONFIG_HOME/authbroker/master.key`; a relative XDG_CONFIG_HOME is ignored, as the
    /// XDG base directory specification requires.
    public static func defaultKeyFilePath(environment: [String: String]) throws(StoreError) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/authbroker/master.key"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { throw .noDefaultKeyLocation }
        return home + "/.config/authbroker/master.key"
    }

    /// The file this source reads.
    public var path: String {
        switch self {
        case .systemdCredential(let path), .keyFile(let path), .passphraseFile(let path), .defaultKeyFile(let path):
            path
        }
    }

    public var isPassphrase: Bool {
        if case .passphraseFile = self { return true }
        return false
    }

    /// Names the source for error messages ("key file '/home/u/.config/authbroker/master.key'").
    public var description: String {
        switch self {
        case .systemdCredential(let path): "systemd credential '\(path)'"
        case .keyFile(let path): "key file '\(path)'"
        case .passphraseFile(let path): "passphrase file '\(path)'"
        case .defaultKeyFile(let path): "default key file '\(path)'"
        }
    }
}
