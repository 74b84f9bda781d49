import BrokerProtocol
@preconcurrency import Glibc

/// The registration step of `authctl login` and `authctl account register-handler|remove` for
/// accounts whose `redirect_uri` is a private-use scheme: makes `authctl callback %u` the desktop's
/// handler (DesktopHandler), says what it registered once, and says what to do when the desktop
/// will still not find it (the known desktop facts, docs/guide.md "Desktop integration").
enum HandlerRegistration {
    /// Registers the handler for `configuration`'s redirect URI; does nothing for a loopback account.
    /// `explicit`: asked for by `register-handler`, which also reports an unchanged registration.
    static func ensure(_ configuration: AccountConfiguration, context: CommandContext, explicit: Bool = false) throws {
        guard let uri = configuration.redirectURI else {
            if explicit { Output.note("Account '\(configuration.name)' redirects to a loopback address; it needs no handler.") }
            return
        }
        guard let scheme = DesktopEntry.scheme(of: uri) else { throw DesktopError.unsupportedScheme(uri) }
        guard let executable = executablePath() else { throw DesktopError.badExecutable("/proc/self/exe is unreadable") }
        let handler = try DesktopHandler(environment: context.environment)
        let entry = DesktopEntry(scheme: scheme, executable: executable, socket: handlerSocket(context))
        let registration = try handler.register(entry)
        if registration.changed {
            Output.note(registeredText(entry, handler, registration))
            for fact in facts(entry, environment: context.environment) { Output.note(fact) }
        } else if explicit {
            Output.note("authctl already handles \(scheme): URLs (\(handler.applicationsDirectory)/\(entry.fileID)).")
        }
        if let problem = checkDesktop(entry, handler) { Output.note(problem) }
    }

    /// After `account remove`: drops the handler of `removed`'s scheme unless an account in
    /// `remaining` still redirects to that scheme.
    static func removeUnused(_ removed: AccountConfiguration, remaining: [AccountConfiguration], context: CommandContext) throws {
        guard let uri = removed.redirectURI, let scheme = DesktopEntry.scheme(of: uri) else { return }
        guard !remaining.contains(where: { $0.redirectURI.flatMap(DesktopEntry.scheme(of:)) == scheme }) else { return }
        if try DesktopHandler(environment: context.environment).unregister(scheme: scheme) {
            Output.note("Removed the desktop's handler for \(scheme): URLs.")
        }
    }

    static func registeredText(_ entry: DesktopEntry, _ handler: DesktopHandler, _ registration: DesktopHandler.Registration)
        -> String
    {
        var text =
            "Registered authctl as the handler for \(entry.scheme): URLs: \(handler.applicationsDirectory)/\(entry.fileID)"
            + ", the default in \(handler.mimeAppsPath)."
        if let replaced = registration.replaced { text += " It replaces '\(replaced)', the previous default." }
        if let socket = entry.socket { text += " The handler is told the daemon's socket, \(socket)." }
        return text + " (Use --no-register to manage desktop files yourself.)"
    }

    /// The desktop facts worth one line each when the handler is first registered.
    static func facts(_ entry: DesktopEntry, environment: [String: String]) -> [String] {
        var facts = ["Chromium asks \"Open xdg-open?\" the first time it hands over such a URL: allow it."]
        if (environment["XDG_CURRENT_DESKTOP"] ?? "").isEmpty, entry.scheme.contains(where: \.isNumber) {
            facts.append(
                "No desktop environment is set (XDG_CURRENT_DESKTOP): xdg-open 1.1.3 (Debian 12) then takes "
                    + "'\(entry.scheme)://…' for a file name, so Chromium cannot hand it over; Firefox and GNOME/KDE "
                    + "(GLib/KIO) can. Otherwise paste the URL the browser shows into authctl login.")
        }
        if sandboxedBrowsersPossible(home: environment["HOME"]) {
            facts.append(
                "A Flatpak or Snap browser does not see this handler: paste the redirect URL into authctl login instead.")
        }
        return facts
    }

    /// What to do when `xdg-mime query default` does not name our entry; nil when it does or when
    /// xdg-utils is not installed (then the browser's GLib/KIO reads mimeapps.list directly).
    static func checkDesktop(_ entry: DesktopEntry, _ handler: DesktopHandler) -> String? {
        guard let found = DesktopHandler.queryDefault(entry.mimeType), found != entry.fileID else { return nil }
        return "The desktop does not pick authctl for \(entry.scheme): URLs: `xdg-mime query default \(entry.mimeType)` "
            + (found.isEmpty ? "names no application" : "names '\(found)'")
            + ". A desktop-specific list (e.g. ~/.config/gnome-mimeapps.list or kde-mimeapps.list) may override "
            + "\(handler.mimeAppsPath): set it there with `xdg-mime default \(entry.fileID) \(entry.mimeType)`, "
            + "or paste the redirect URL into authctl login."
    }

    /// Whether Flatpak or Snap applications are installed here (their browsers see no host handlers).
    static func sandboxedBrowsersPossible(home: String?) -> Bool {
        let places =
            ["/var/lib/flatpak/exports/share/applications", "/snap/bin"]
            + (home.map { [$0 + "/.local/share/flatpak/exports/share/applications"] } ?? [])
        return places.contains { access($0, F_OK) == 0 }
    }

    /// The socket the desktop-launched handler must be told: nil when this login's socket is the
    /// default that the session's own environment (XDG_RUNTIME_DIR) leads to; otherwise — `--socket`,
    /// or AUTHBROKER_SOCKET, which a browser started before this shell does not have — its
    /// absolute path (a relative one would be read from the browser's working directory).
    static func handlerSocket(_ context: CommandContext) -> String? {
        var session = context.environment
        session["AUTHBROKER_SOCKET"] = nil
        guard context.socketPath != SocketPath.resolve(flag: nil, environment: session) else { return nil }
        if context.socketPath.hasPrefix("/") { return context.socketPath }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return context.socketPath }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + context.socketPath
    }

    /// The absolute path of the running authctl, for the entry's Exec line.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !path.hasSuffix(" (deleted)") else { return nil }
        // This is authctl-full, run by the authctl front beside it: the entry names the front,
        // the command users know (it runs authctl-full for `callback`).
        let front = CallerExecutable.policyName(of: path)
        return front != path && access(front, X_OK) == 0 ? front : path
    }
}
