import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// Where an accounts file may name a `client_secret_file`: below the accounts file's own directory
/// or the user's authbroker configuration directory (`$XDG_CONFIG_HOME/authbroker`, else
/// `~/.config/authbroker`), after symbolic links are resolved, and only a regular file.
///
/// Why: an accounts file is shared and committed. Without the rule, a file from a repository could
/// name `~/.git-credentials` or `/proc/self/environ` as the secret of an account whose provider it
/// chose, and `authctl login` would send that file's first line to the provider as the client
/// secret. A path typed on the command line (`--client-secret-file`) is the user's own choice and
/// is not restricted.
enum SecretFileLocation {
    struct Refusal: Error {
        let reason: String
        func message(_ file: String) -> String { "client_secret_file '\(ShownText.argument(file))' \(reason)" }
    }

    /// The resolved path of `path` (relative paths are the accounts file's directory's).
    static func resolve(_ path: String, accountsDirectory: String) throws(Refusal) -> String {
        let joined = path.hasPrefix("/") ? path : accountsDirectory + "/" + path
        guard let real = realPath(joined) else { throw Refusal(reason: "cannot be read: \(Errno.current)") }
        var status = stat()
        guard stat(real, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Refusal(reason: "is not a regular file")
        }
        let roots = [realPath(accountsDirectory), realPath(configurationDirectory())].compactMap { $0 }
        guard roots.contains(where: { isBelow(real, $0) }) else {
            throw Refusal(
                reason: "is outside the accounts file's directory and \(configurationDirectory()): an accounts "
                    + "file may only name secrets kept there (a shared file could otherwise send any of your files to "
                    + "its provider); move the secret there, or add the account with --client-secret-file")
        }
        return real
    }

    /// `$XDG_CONFIG_HOME/authbroker`, else `$HOME/.config/authbroker`.
    static func configurationDirectory() -> String {
        if let config = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), config.hasPrefix("/") {
            return config + "/authbroker"
        }
        return (getenv("HOME").map { String(cString: $0) } ?? "") + "/.config/authbroker"
    }

    static func isBelow(_ path: String, _ root: String) -> Bool {
        root == "/" || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
