@preconcurrency import Glibc
import SystemCalls
import WireFormats

/// The page `authctl login` hands the browser instead of the authorization URL: a file that
/// redirects to the URL (`<meta http-equiv="refresh">`, plus a link), opened as `file:///…`.
///
/// Why: a process's argv is world-readable (`/proc/PID/cmdline`), and whoever reads the URL — with
/// its `state` and PKCE challenge — can sign in at the provider as themselves and have their
/// browser deliver the code to our loopback listener (127.0.0.1 is shared by every user): the
/// account would hold the other user's tokens. The file's path in the browser's argv tells
/// nobody anything: it lives in a fresh directory made 0700 by `mkdtemp` (checked on its
/// descriptor), is created 0600 with O_EXCL, and is removed when the login ends — or when authctl
/// is stopped by SIGINT, SIGTERM or SIGHUP.
final class LoginPage {
    /// What the browser is given: `file://` and the percent-encoded path.
    let fileURL: String
    /// The private directory (created here) and the page in it.
    let directory: String
    static let fileName = "login.html"
    private var removed = false

    /// Writes the page for `url` (http or https only) in a new private directory under
    /// `$XDG_RUNTIME_DIR` when it is a directory of ours that no one else may enter, else under
    /// `$TMPDIR` or /tmp.
    init(redirectingTo url: String, environment: [String: String]) throws(LoginPageError) {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else { throw .notHTTP }
        let base = Self.baseDirectory(environment)
        var template = Array((base + "/authctl-login-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .io(path: base, action: "create a directory in", Errno.current) }
        directory = String(cString: made)
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let error = Errno.current
            rmdir(directory)
            throw .io(path: directory, action: "open", error)
        }
        defer { close(fd) }
        // mkdtemp makes it 0700 and ours; checked on the descriptor, so nothing swapped in counts.
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            rmdir(directory)
            throw .notPrivate(path: directory)
        }
        let page = openat(fd, Self.fileName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard page >= 0 else {
            let error = Errno.current
            rmdir(directory)
            throw .io(path: directory + "/" + Self.fileName, action: "create", error)
        }
        fchmod(page, 0o600)  // the umask may have taken the owner's read bit; the browser needs it
        let bytes = Array(Self.html(redirectingTo: url).utf8)
        let failure = bytes.withUnsafeBytes { raw in SystemCall.writeAll(raw) { Glibc.write(page, $0.baseAddress, $0.count) } }
        close(page)
        fileURL = "file://" + Self.percentEncodedPath(directory + "/" + Self.fileName)
        if let failure {
            unlinkat(fd, Self.fileName, 0)
            rmdir(directory)
            throw .io(path: directory + "/" + Self.fileName, action: "write", failure)
        }
        LoginPageCleanup.arm(file: directory + "/" + Self.fileName, directory: directory)
    }

    deinit { remove() }

    /// Removes the page and its directory (once; later calls do nothing).
    func remove() {
        guard !removed else { return }
        removed = true
        LoginPageCleanup.disarm()
        unlink(directory + "/" + Self.fileName)
        rmdir(directory)
    }

    /// `$XDG_RUNTIME_DIR` (XDG: the user's own, 0700) when it is a real directory owned by us that
    /// others cannot enter; else `$TMPDIR` when it is an absolute directory where others cannot
    /// rename our entries (not writable by others, or sticky); else /tmp. mkdtemp makes the page's
    /// own private directory inside either way.
    static func baseDirectory(_ environment: [String: String]) -> String {
        var info = stat()
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), lstat(runtime, &info) == 0,
            info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0
        {
            return runtime
        }
        // Without the sticky bit, anyone who may write there could swap our directory for theirs.
        if let temporary = environment["TMPDIR"], temporary.hasPrefix("/"), stat(temporary, &info) == 0,
            info.st_mode & S_IFMT == S_IFDIR, info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0
        {
            return temporary
        }
        return "/tmp"
    }

    /// A page that sends the browser on to `url` at once, with a link for one that does not follow
    /// the refresh. No script, and no referrer for the provider.
    static func html(redirectingTo url: String) -> String {
        let escaped = HTML.escape(url)  // `&`, `"`, `'`, `<`, `>`: the URL stays one attribute value
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
            <meta http-equiv="refresh" content="0;url=\(escaped)">
            <title>authctl login</title></head>
            <body><p>Opening the sign-in page… <a href="\(escaped)">continue to sign in</a>.</p></body></html>

            """
    }

    /// RFC 3986 path: unreserved characters and `/` as they are, every other byte as %XX.
    static func percentEncodedPath(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why the login page could not be written. The login goes on; the user opens the printed URL.
enum LoginPageError: Error, CustomStringConvertible {
    case notHTTP
    case notPrivate(path: String)
    case io(path: String, action: String, Errno)

    var description: String {
        switch self {
        case .notHTTP: "the authorization URL is not http or https"
        case .notPrivate(let path): "'\(path)' is not a directory only you can enter"
        case .io(let path, let action, let error): "cannot \(action) '\(path)': \(error)"
        }
    }
}

/// Removes the page when a signal stops authctl (Ctrl-C, SIGTERM, a closed terminal), then lets
/// the signal do what it would have done. The handler uses only unlink, rmdir, signal and raise
/// (async-signal-safe) on C strings made before it is installed.
enum LoginPageCleanup {
    nonisolated(unsafe) private static var file: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var directory: UnsafeMutablePointer<CChar>?
    /// The signals whose handler this installed (only those at their default: an ignored SIGINT,
    /// as in a background job, stays ignored).
    nonisolated(unsafe) private static var armed: [Int32] = []
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    static func arm(file path: String, directory folder: String) {
        disarm()
        file = strdup(path)
        directory = strdup(folder)
        for signal in signals {
            var old = sigaction()
            // SIG_DFL is a null handler; SIG_IGN (1) and handlers of others are left alone.
            guard sigaction(signal, nil, &old) == 0, old.__sigaction_handler.sa_handler == nil else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if let file = LoginPageCleanup.file { unlink(file) }
                if let directory = LoginPageCleanup.directory { rmdir(directory) }
                Glibc.signal(number, nil)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            if sigaction(signal, &action, nil) == 0 { armed.append(signal) }
        }
    }

    static func disarm() {
        for signal in armed { Glibc.signal(signal, nil) }
        armed = []
        free(file)
        free(directory)
        (file, directory) = (nil, nil)
    }
}
