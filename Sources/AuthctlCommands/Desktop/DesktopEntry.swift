import BrokerProtocol

/// The desktop entry (freedesktop Desktop Entry spec 1.5) that makes `authctl callback %u` the
/// handler of one private-use URI scheme, and the file ID it is stored under.
struct DesktopEntry: Equatable {
    /// The scheme, lowercased (schemes are case-insensitive, RFC 3986 §3.1; so are MIME types).
    let scheme: String
    /// The absolute path of the authctl binary the desktop runs.
    let executable: String
    /// The daemon's socket, when the login used another than the default the desktop session
    /// derives from XDG_RUNTIME_DIR (`--socket`, AUTHBROKER_SOCKET: e.g. a system-wide daemon).
    /// A handler the browser launches inherits neither the flag nor the shell's variable, so the
    /// Exec line passes it; nil: the default, nothing passed.
    var socket: String? = nil

    var mimeType: String { "x-scheme-handler/\(scheme)" }

    /// `authbroker-SCHEME.desktop`. Desktop file IDs allow letters, digits, `-`, `_` and `.`; a
    /// scheme's `+` becomes `_`, which no scheme contains, so two schemes never share a file.
    var fileID: String { "authbroker-" + scheme.replacingPlus + ".desktop" }

    /// The file's text. `Exec` quotes the path as the spec's "Exec key" section says; `%u` is the
    /// one URL, passed as one argument.
    var contents: String {
        """
        [Desktop Entry]
        Type=Application
        Name=authbroker login callback (\(scheme))
        Comment=Hands \(scheme): sign-in redirects to authbrokerd
        Exec=\(Self.execArgument(executable))\(socket.map { " --socket " + Self.execArgument($0) } ?? "") callback %u
        MimeType=\(mimeType);
        NoDisplay=true
        Terminal=false

        """
    }

    /// An Exec argument: quoted when it holds a reserved character, with `"`, `` ` ``, `$` and `\`
    /// escaped inside the quotes; then the string-value escape (`\` → `\\`) and the field-code
    /// escape (`%` → `%%`). A literal backslash hence becomes four, as the spec spells out.
    static func execArgument(_ argument: String) -> String {
        let reserved: Set<Character> = [
            " ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`",
        ]
        var quoted = argument
        if argument.contains(where: reserved.contains) {
            quoted = "\"" + argument.map { "\"`$\\".contains($0) ? "\\\($0)" : String($0) }.joined() + "\""
        }
        return quoted.replacingOccurrences("\\", with: "\\\\").replacingOccurrences("%", with: "%%")
    }

    /// Why `path` cannot be written into an Exec line, or nil: it must be absolute and free of
    /// control characters (a newline would end the key; the spec has no escape for the others),
    /// and — as the program, the Exec line's first word — free of `%`. The spec's `%%` is right
    /// there, but GLib (gio, hence GNOME, Firefox and xdg-open on GNOME) looks the program up
    /// before it expands field codes, finds no `…%%…` file and drops the whole entry: the scheme
    /// then has no handler ("Operation not supported"; `DesktopHandlerTests`). In a later
    /// argument (`--socket`) `%%` works and is written.
    static func problem(withExecutable path: String) -> String? {
        if let problem = problem(with: path, named: "the path of authctl") { return problem }
        guard !path.contains("%") else {
            return "the path of authctl (\(path)) contains '%', which desktops cannot run as a handler"
        }
        return nil
    }

    /// Why this entry cannot be written (authctl's path or the socket's), or nil.
    var problem: String? {
        Self.problem(withExecutable: executable) ?? socket.flatMap { Self.problem(with: $0, named: "the daemon's socket path") }
    }

    private static func problem(with path: String, named name: String) -> String? {
        guard path.hasPrefix("/") else { return "'\(path)' is not an absolute path" }
        guard path.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value != 127 }) else {
            return "\(name) contains a control character"
        }
        return nil
    }

    /// The lowercased scheme of a private-use redirect URI, or nil when `uri` is not one the daemon
    /// accepts (`PrivateUseRedirectURI`: RFC 3986 §3.1 syntax, no scheme a browser or the desktop
    /// owns) — the one list of such schemes, so authctl never claims one the daemon would refuse.
    static func scheme(of uri: String) -> String? {
        (try? PrivateUseRedirectURI(parsing: uri))?.scheme
    }
}

extension String {
    fileprivate var replacingPlus: String { String(map { $0 == "+" ? "_" : $0 }) }

    /// `replacingOccurrences(of:with:)` without Foundation (authctl is static and links none).
    fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        reduce(into: "") { result, character in
            if character == target { result += replacement } else { result.append(character) }
        }
    }
}
