/// Why a scheme handler could not be registered or removed. Each description says what to do.
enum DesktopError: Error, Equatable, CustomStringConvertible {
    case noHome
    case unsupportedScheme(String)
    case badExecutable(String)
    case notOwned(path: String)
    case symlink(path: String, line: String)
    case tooLarge(path: String)
    case io(path: String, action: String, error: String)

    var description: String {
        switch self {
        case .noHome:
            return "cannot find the desktop's directories: neither HOME nor XDG_DATA_HOME/XDG_CONFIG_HOME is set"
        case .unsupportedScheme(let uri):
            return "'\(uri)' has no private-use scheme a desktop handler may claim; check the account's redirect_uri"
        case .badExecutable(let problem):
            return "cannot write the desktop entry: \(problem); install authctl under a plain absolute path"
        case .notOwned(let path):
            return
                "'\(path)' is not a directory owned by you (or is writable by others); fix it or register the handler yourself (--no-register)"
        case .symlink(let path, let line):
            return
                "'\(path)' is a symbolic link, which authctl does not write through; add '\(line)' under [Default Applications] yourself, then use --no-register"
        case .tooLarge(let path):
            return "'\(path)' is larger than 1 MiB; edit it yourself or use --no-register"
        case .io(let path, let action, let error):
            return "cannot \(action) '\(path)': \(error)"
        }
    }
}
