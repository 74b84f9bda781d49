import Testing
import WireFormats

@testable import AuthctlCommands

/// git-credential's prefix matching (`GitRemote`): which account answers for which remote.
@Suite struct GitRemoteTests {
    private func remote(_ url: String) throws -> GitRemote { try #require(GitRemote(url: url)) }

    private func covers(_ prefix: String, _ url: String) throws -> Bool {
        try remote(prefix).covers(try remote(url))
    }

    @Test func schemeAndHostMatchWithoutRegardToCase() throws {
        #expect(try covers("https://git.example.com/team/", "HTTPS://Git.Example.COM/team/repo.git"))
        #expect(try covers("HTTPS://GIT.EXAMPLE.COM/", "https://git.example.com/x"))
    }

    @Test func pathSegmentsMatchWithCase() throws {
        #expect(try !covers("https://git.example.com/Team/", "https://git.example.com/team/repo"))
    }

    @Test func aTrailingSlashMakesNoDifference() throws {
        #expect(try covers("https://git.example.com/team", "https://git.example.com/team/repo"))
        #expect(try covers("https://git.example.com/team/", "https://git.example.com/team/repo"))
        #expect(try covers("https://git.example.com/team/", "https://git.example.com/team"))
    }

    @Test func aPrefixCoversWholeSegmentsOnly() throws {
        #expect(try !covers("https://git.example.com/team", "https://git.example.com/team-evil/repo"))
        #expect(try !covers("https://git.example.com/team/repo", "https://git.example.com/team/repository"))
        #expect(try !covers("https://git.example.com/team/repo", "https://git.example.com/team"))
    }

    @Test func dotGitNamesTheSameRepository() throws {
        #expect(try covers("https://git.example.com/team/repo.git", "https://git.example.com/team/repo"))
        #expect(try covers("https://git.example.com/team/repo", "https://git.example.com/team/repo.git/info/refs"))
    }

    @Test func aLongerHostIsAnotherHost() throws {
        #expect(try !covers("https://host", "https://host.evil/repo"))
        #expect(try !covers("https://git.example.com/", "https://git.example.com.evil/team/repo"))
        #expect(try !covers("https://example.com/", "https://git.example.com/repo"))
    }

    @Test func thePortIsPartOfTheHost() throws {
        #expect(try covers("https://git.example.com:8443/", "https://git.example.com:8443/repo"))
        #expect(try !covers("https://git.example.com:8443/", "https://git.example.com/repo"))
        #expect(try !covers("https://git.example.com/", "https://git.example.com:8443/repo"))
        // Not normalized: an explicit default port is another authority (fail closed).
        #expect(try !covers("https://git.example.com/", "https://git.example.com:443/repo"))
    }

    @Test func httpAndHttpsAreDifferentRemotes() throws {
        #expect(try !covers("https://git.example.com/", "http://git.example.com/repo"))
        #expect(try covers("http://git.example.com/", "http://git.example.com/repo"))
    }

    @Test func refusesUserinfoQueriesFragmentsAndOtherSchemes() {
        #expect(GitRemote(url: "https://user@git.example.com/repo") == nil)
        #expect(GitRemote(url: "https://user:pass@git.example.com/repo") == nil)
        #expect(GitRemote(scheme: "https", host: "user@git.example.com", path: nil) == nil)
        #expect(GitRemote(url: "https://git.example.com/repo?x=1") == nil)
        #expect(GitRemote(url: "https://git.example.com/repo#x") == nil)
        #expect(GitRemote(url: "ssh://git.example.com/repo") == nil)
        #expect(GitRemote(url: "git.example.com/repo") == nil)
        #expect(GitRemote(url: "https:///repo") == nil)
        #expect(GitRemote(scheme: "https", host: "git example.com", path: nil) == nil)
    }

    @Test func theMostSpecificPrefixWins() throws {
        let candidates = [
            ("host", try remote("https://git.example.com/")), ("team", try remote("https://git.example.com/team/")),
            ("repo", try remote("https://git.example.com/team/repo")), ("other", try remote("https://other.example/")),
        ]
        #expect(GitRemote.bestMatch(for: try remote("https://git.example.com/team/repo.git"), among: candidates) == "repo")
        #expect(GitRemote.bestMatch(for: try remote("https://git.example.com/team/tools"), among: candidates) == "team")
        #expect(GitRemote.bestMatch(for: try remote("https://git.example.com/solo/x"), among: candidates) == "host")
        #expect(GitRemote.bestMatch(for: try remote("https://unknown.example/x"), among: candidates) == nil)
    }

    @Test func twoEquallySpecificPrefixesAnswerNothing() throws {
        let candidates = [("a", try remote("https://git.example.com/team/")), ("b", try remote("https://GIT.example.com/team"))]
        #expect(GitRemote.bestMatch(for: try remote("https://git.example.com/team/repo"), among: candidates) == nil)
    }

    @Test func withoutAPathTheHostWideAccountAnswers() throws {
        // credential.useHttpPath off: git sends protocol and host only.
        let pathless = try #require(GitRemote(scheme: "https", host: "git.example.com", path: nil))
        let hostWide = [("host", try remote("https://git.example.com/")), ("team", try remote("https://git.example.com/team/"))]
        #expect(GitRemote.bestMatch(for: pathless, among: hostWide) == "host")
        let twoTeams = [("a", try remote("https://git.example.com/a/")), ("b", try remote("https://git.example.com/b/"))]
        #expect(GitRemote.bestMatch(for: pathless, among: twoTeams) == nil)
        let oneTeam = [("a", try remote("https://git.example.com/a/"))]
        #expect(GitRemote.bestMatch(for: pathless, among: oneTeam) == "a")
    }
}

/// What git writes on the helper's stdin.
@Suite struct GitCredentialInputTests {
    @Test func readsKeyValueLinesUpToABlankLine() {
        let input = GitCredentialInput(text: "protocol=https\nhost=git.example.com\npath=team/repo.git\n\nhost=later\n")
        #expect(input.values == ["protocol": "https", "host": "git.example.com", "path": "team/repo.git"])
        #expect(input.remote == GitRemote(url: "https://git.example.com/team/repo.git"))
    }

    @Test func acceptsCRLFLineEnds() {
        // containsBlankLine already ends the read at "\r\n\r\n"; the lines must split there too.
        let input = GitCredentialInput(text: "protocol=https\r\nhost=git.example.com\r\npath=team/repo.git\r\n\r\nhost=later\r\n")
        #expect(input.values == ["protocol": "https", "host": "git.example.com", "path": "team/repo.git"])
        #expect(input.remote == GitRemote(url: "https://git.example.com/team/repo.git"))
    }

    @Test func prefersTheURLAttribute() {
        let input = GitCredentialInput(text: "url=https://a.example/x\nprotocol=https\nhost=b.example\n")
        #expect(input.remote == GitRemote(url: "https://a.example/x"))
    }

    @Test func valuesMayContainEqualsSignsAndLinesWithoutOneAreSkipped() {
        let input = GitCredentialInput(text: "password=a=b==\ngarbage\nusername=oauth2\n")
        #expect(input.values == ["password": "a=b==", "username": "oauth2"])
        #expect(input.remote == nil)
    }
}
