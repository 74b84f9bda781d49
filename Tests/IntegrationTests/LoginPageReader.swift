import Foundation

/// What `authctl login` hands a browser since the URL left its argv: `file:///…/login.html`, a
/// page that forwards to the authorization URL (`LoginPage`). Tests read it as a browser would.
enum LoginPageReader {
    /// The page's path for a `file://` URL (percent-decoded), nil for anything else.
    static func path(of fileURL: String) -> String? {
        guard fileURL.hasPrefix("file:///") else { return nil }
        return String(fileURL.dropFirst("file://".count)).removingPercentEncoding
    }

    /// The URL the page at `fileURL` forwards to (its refresh target, unescaped), nil when the
    /// page cannot be read or forwards nowhere.
    static func target(of fileURL: String) -> String? {
        guard let path = path(of: fileURL), let html = try? String(contentsOfFile: path, encoding: .utf8),
            let start = html.range(of: "content=\"0;url="),
            let end = html[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return unescape(String(html[start.upperBound..<end]))
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Shell text for fake browsers: `page_target ARG` prints the URL the page ARG (a
    /// `file://` URL or a path, as GLib may pass) forwards to, unescaped; the page's URL is never
    /// anything else (paths here need no percent-decoding).
    static let shellFunction = #"""
        page_target() {
          sed -n 's/.*content="0;url=\([^"]*\)".*/\1/p' "${1#file://}" \
            | sed 's/&quot;/"/g; s/&#39;/'"'"'/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
        }
        """#

    /// Installs `follow-page` in `directory`: a browser for `--browser`/AUTHBROKER_BROWSER that
    /// reads the page its one argument names and GETs its target with curl, following redirects
    /// (the mock approves at once). Returns its path.
    static func installFollower(in directory: String) throws -> String {
        let path = directory + "/follow-page"
        let script = """
            #!/bin/sh
            # file:///…/login.html → the page's refresh target → curl as the browser.
            \(shellFunction)
            url=$(page_target "$1")
            [ -n "$url" ] || exit 2
            exec curl -sfL -o /dev/null "$url"

            """
        guard FileManager.default.createFile(atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        else { throw HarnessError.unexpected("cannot write \(path)") }
        return path
    }
}
