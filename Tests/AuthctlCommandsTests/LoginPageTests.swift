import Glibc
import TestSupport
import Testing

@testable import AuthctlCommands

/// The page `authctl login` hands the browser instead of the authorization URL (the URL in a
/// browser's argv is readable by every local user): private, exact, and removed.
@Suite struct LoginPageTests {
    static let url = "https://idp.example/authorize?client_id=c&state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcb"

    func mode(_ path: String) -> (mode: UInt32, owner: UInt32)? {
        var info = stat()
        return lstat(path, &info) == 0 ? (info.st_mode & 0o7777, info.st_uid) : nil
    }

    @Test func thePageIsOnlyTheUsersAndIsRemovedWithItsDirectory() throws {
        let base = try TemporaryDirectory(prefix: "login-page")
        defer { base.remove() }
        chmod(base.path, 0o700)
        let page = try LoginPage(redirectingTo: Self.url, environment: ["XDG_RUNTIME_DIR": base.path])
        let file = page.directory + "/" + LoginPage.fileName
        #expect(page.directory.hasPrefix(base.path + "/authctl-login-"))
        #expect(page.fileURL == "file://" + file)
        #expect(mode(page.directory)?.mode == 0o700 && mode(page.directory)?.owner == geteuid())
        #expect(mode(file)?.mode == 0o600 && mode(file)?.owner == geteuid())
        page.remove()
        #expect(mode(file) == nil && mode(page.directory) == nil)
    }

    @Test func theURLStaysOneAttributeValueAndIsNeverScript() throws {
        let hostile = "https://idp.example/a?x=\"><script>alert(1)</script>&y='z'"
        let html = LoginPage.html(redirectingTo: hostile)
        let escaped = "https://idp.example/a?x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;y=&#39;z&#39;"
        #expect(html.contains("<meta http-equiv=\"refresh\" content=\"0;url=\(escaped)\">"))
        #expect(html.contains("<a href=\"\(escaped)\">"))
        #expect(!html.contains("<script>"))
        #expect(throws: LoginPageError.self) { try LoginPage(redirectingTo: "javascript:alert(1)", environment: [:]) }
        #expect(throws: LoginPageError.self) { try LoginPage(redirectingTo: "file:///etc/passwd", environment: [:]) }
    }

    /// A runtime directory others may enter (or a relative one) is passed over for TMPDIR.
    @Test func aRuntimeDirectoryOthersMayEnterIsNotUsed() throws {
        let base = try TemporaryDirectory(prefix: "login-page-base")
        defer { base.remove() }
        chmod(base.path, 0o755)
        let temporary = try TemporaryDirectory(prefix: "login-page-tmp")
        defer { temporary.remove() }
        #expect(LoginPage.baseDirectory(["XDG_RUNTIME_DIR": base.path, "TMPDIR": temporary.path]) == temporary.path)
        #expect(LoginPage.baseDirectory(["XDG_RUNTIME_DIR": "relative", "TMPDIR": temporary.path]) == temporary.path)
        #expect(LoginPage.baseDirectory([:]) == "/tmp")
        // A TMPDIR others may write to without the sticky bit (they could rename our directory) is not used.
        chmod(temporary.path, 0o777)
        #expect(LoginPage.baseDirectory(["TMPDIR": temporary.path]) == "/tmp")
        chmod(temporary.path, 0o1777)
        #expect(LoginPage.baseDirectory(["TMPDIR": temporary.path]) == temporary.path)
        #expect(LoginPage.baseDirectory(["TMPDIR": temporary.path + "/missing"]) == "/tmp")
        chmod(temporary.path, 0o700)
        chmod(base.path, 0o700)
        #expect(LoginPage.baseDirectory(["XDG_RUNTIME_DIR": base.path, "TMPDIR": temporary.path]) == base.path)
    }

    @Test func aPathIsPercentEncodedForTheFileURL() {
        #expect(LoginPage.percentEncodedPath("/run/user/1000/a b%é/login.html") == "/run/user/1000/a%20b%25%C3%A9/login.html")
    }
}
