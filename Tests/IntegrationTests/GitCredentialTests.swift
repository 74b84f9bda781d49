import Foundation
import TestSupport
import Testing

/// `authctl git-credential` with the real git: a smart-HTTP server (git-http-backend behind
/// Fixtures/fake_servers.py on 127.0.0.1) accepts only the token it is told is current; git asks
/// authctl through `credential.helper`.
@Suite struct GitCredentialTests {
    @Test func gitRoundTripAndEraseRefreshes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is needed (apt-get install git)")
        let fixture = try await AdapterTests.Fixture.start()
        defer { fixture.stop() }
        let root = fixture.directory.path
        // A bare repository with one commit, served over HTTP.
        let workspace = try await GitWorkspace.create(in: root)
        let git = { (arguments: [String]) in try await workspace.run(arguments) }
        let tokenFile = root + "/valid-token"
        try "tok-2".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try await BackgroundServer(["git", root + "/repos", tokenFile], directory: root)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.address)/"

        try await fixture.addAccount("forge", ["--git-url-prefix", base, "--git-username", "alice"])
        let helper = "!\(try ChildProcess.binary("authctl")) --socket \(fixture.socket) git-credential"
        let config = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"]

        // The daemon serves tok-1, the server wants tok-2: git fails and erases the credential.
        let first = try await git(config + ["ls-remote", base + "project.git"])
        #expect(first.status != 0)
        #expect(try await fixture.stats()["rejections"] == ["tok-1"])
        // The erase made the daemon move on to tok-2: the same command now works.
        let second = try await git(config + ["ls-remote", base + "project.git"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("refs/heads/main"))
        let clone = try await git(config + ["clone", "-q", base + "project.git", root + "/clone"])
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/clone/.git"))
    }

    @Test func getAnswersOnlyProtocolLines() async throws {
        let fixture = try await AdapterTests.Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("a", ["--git-url-prefix", "https://git.example/"])
        try await fixture.addAccount("b", ["--git-url-prefix", "https://git.example/team/", "--git-username", "bob"])
        let team = try await fixture.authctl(
            ["git-credential", "get"], stdin: "protocol=https\nhost=git.example\npath=team/repo.git\n\n")
        #expect(team.stdout == "username=bob\npassword=tok-1\npassword_expiry_utc=1893456000\n")
        let other = try await fixture.authctl(["git-credential", "get"], stdin: "protocol=https\nhost=git.example\npath=x/y\n")
        #expect(other.stdout.hasPrefix("username=oauth2\npassword=tok-1\n"))
        // Without a path (useHttpPath off) the host-wide account answers.
        let hostOnly = try await fixture.authctl(["git-credential", "get"], stdin: "protocol=https\nhost=git.example\n\n")
        #expect(hostOnly.stdout.hasPrefix("username=oauth2\n"))
        let unknown = try await fixture.authctl(["git-credential", "get"], stdin: "protocol=https\nhost=elsewhere\n\n")
        #expect(unknown.status == 0)
        #expect(unknown.stdout.isEmpty)
        let store = try await fixture.authctl(
            ["git-credential", "store"], stdin: "protocol=https\nhost=git.example\npassword=x\n\n")
        #expect(store.status == 0 && store.stdout.isEmpty)
    }

    /// git 2.46 and later offer `capability[]=authtype` (git-credential(1)): the token goes back as
    /// `credential` with `authtype=Bearer`, the capability line first; `erase` then names the token
    /// in `credential`. The Debian git here (2.39) sends no capability, so the lines are written
    /// as a newer git writes them; `gitRoundTripAndEraseRefreshes` runs the real git on the old path.
    @Test func aGitWithTheAuthtypeCapabilityGetsABearerCredential() async throws {
        let fixture = try await AdapterTests.Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("forge", ["--git-url-prefix", "https://git.example/", "--git-username", "alice"])
        let request =
            "capability[]=authtype\ncapability[]=state\nprotocol=https\nhost=git.example\n"
            + "wwwauth[]=Bearer realm=\"git\"\n\n"
        let bearer = try await fixture.authctl(["git-credential", "get"], stdin: request)
        #expect(bearer.status == 0, "\(bearer)")
        #expect(
            bearer.stdout
                == "capability[]=authtype\nauthtype=Bearer\ncredential=tok-1\nephemeral=1\npassword_expiry_utc=1893456000\n")
        // Without the capability (git before 2.46): username and password, as before.
        let basic = try await fixture.authctl(["git-credential", "get"], stdin: "protocol=https\nhost=git.example\n\n")
        #expect(basic.stdout == "username=alice\npassword=tok-1\npassword_expiry_utc=1893456000\n")
        // A capability authctl does not know changes nothing.
        let unknown = try await fixture.authctl(
            ["git-credential", "get"], stdin: "capability[]=future\nprotocol=https\nhost=git.example\n\n")
        #expect(unknown.stdout.hasPrefix("username=alice\npassword=tok-1\n"), "\(unknown)")

        let erase = try await fixture.authctl(
            ["git-credential", "erase"],
            stdin: "capability[]=authtype\nprotocol=https\nhost=git.example\nauthtype=Bearer\ncredential=tok-1\n\n")
        #expect(erase.status == 0, "\(erase)")
        #expect(try await fixture.stats()["rejections"] == ["tok-1"])
    }
}
