/// Registers authctl as the desktop's handler of a private-use URI scheme, the way the freedesktop
/// specs expect it: a desktop entry in `$XDG_DATA_HOME/applications` and the default in
/// `$XDG_CONFIG_HOME/mimeapps.list` (what `xdg-mime default` writes, without needing xdg-utils).
/// Idempotent: a second registration changes nothing and reports nothing changed.
struct DesktopHandler {
    let dataHome: String
    let configHome: String
    static let mimeAppsFile = "mimeapps.list"

    /// What one registration did.
    struct Registration: Equatable {
        var entryWritten = false
        var defaultSet = false
        /// The desktop file that was the default for the scheme before (we replaced it).
        var replaced: String?
        var changed: Bool { entryWritten || defaultSet }
    }

    init(dataHome: String, configHome: String) {
        self.dataHome = dataHome
        self.configHome = configHome
    }

    /// The XDG Base Directory spec's locations: `$XDG_DATA_HOME` (default `~/.local/share`) and
    /// `$XDG_CONFIG_HOME` (default `~/.config`); a relative value is invalid and ignored.
    init(environment: [String: String]) throws(DesktopError) {
        func directory(_ name: String, _ fallback: String) throws(DesktopError) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            guard let home = environment["HOME"], home.hasPrefix("/") else { throw .noHome }
            return home + fallback
        }
        self.init(
            dataHome: try directory("XDG_DATA_HOME", "/.local/share"), configHome: try directory("XDG_CONFIG_HOME", "/.config"))
    }

    var applicationsDirectory: String { dataHome + "/applications" }
    var mimeAppsPath: String { configHome + "/" + Self.mimeAppsFile }

    func register(_ entry: DesktopEntry) throws(DesktopError) -> Registration {
        if let problem = entry.problem { throw .badExecutable(problem) }
        var result = Registration()
        let applications = try UserDirectory(applicationsDirectory)
        let contents = Array(entry.contents.utf8)
        let current = applications.isSymlink(entry.fileID) ? nil : try applications.read(entry.fileID)
        if current != contents {
            try applications.replace(entry.fileID, with: contents)
            result.entryWritten = true
        }
        let config = try UserDirectory(configHome)
        let linked = config.isSymlink(Self.mimeAppsFile)
        var list = MimeAppsList(try config.read(Self.mimeAppsFile, followingLinks: linked) ?? [])
        let previous = list.defaults(for: entry.mimeType)?.first
        if list.setDefault(entry.mimeType, to: entry.fileID) {
            // A symlinked list (a dotfiles repository) is the user's to edit: say what to add.
            if linked { throw .symlink(path: mimeAppsPath, line: "\(entry.mimeType)=\(entry.fileID)") }
            try config.replace(Self.mimeAppsFile, with: list.bytes)
            result.defaultSet = true
            result.replaced = previous.flatMap { $0 == entry.fileID ? nil : $0 }
        }
        if result.entryWritten { refreshCache() }
        return result
    }

    /// Removes the scheme's desktop entry and its default (when it still names our entry).
    /// Returns whether anything was there to remove.
    func unregister(scheme: String) throws(DesktopError) -> Bool {
        let entry = DesktopEntry(scheme: scheme, executable: "/")
        var removed = false
        let config = try UserDirectory(configHome)
        if !config.isSymlink(Self.mimeAppsFile), let bytes = try config.read(Self.mimeAppsFile) {
            var list = MimeAppsList(bytes)
            if list.removeDefault(entry.mimeType, ifItIs: entry.fileID) {
                try config.replace(Self.mimeAppsFile, with: list.bytes)
                removed = true
            }
        }
        let applications = try UserDirectory(applicationsDirectory)
        if try applications.remove(entry.fileID) {
            removed = true
            refreshCache()
        }
        return removed
    }

    /// `update-desktop-database DIR` rebuilds `mimeinfo.cache`, which some desktops read instead
    /// of the entries; skipped when desktop-file-utils is not installed (the default in
    /// mimeapps.list is enough for xdg-mime and GLib).
    func refreshCache() {
        _ = DesktopTool.run(["update-desktop-database", applicationsDirectory])
    }

    /// The desktop file `xdg-mime query default` names for `mimeType` ("" for none): nil when
    /// xdg-utils is not installed.
    static func queryDefault(_ mimeType: String) -> String? {
        guard let result = DesktopTool.run(["xdg-mime", "query", "default", mimeType]) else { return nil }
        guard result.status == 0 else { return "" }
        return String(result.output.split(whereSeparator: \.isNewline).first ?? "")
    }
}
