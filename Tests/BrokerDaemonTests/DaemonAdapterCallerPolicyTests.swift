import Foundation
import MockProvider
import TestSupport
import Testing

/// `--allow-exe` for adapters with the real git, authbrokerd and authctl against the mock: the
/// daemon sees authctl (it connects), so it matches the program that ran it — git through its
/// `sh -c` — and refuses a plain `authctl token` naming authctl and its parent
/// (docs/security.md, "Caller policy").
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DaemonAdapterCallerPolicyTests {
    @Test func gitIsServedThroughItsHelperAndAPlainAuthctlTokenIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: GitWorkspace.git), "git is needed (apt-get install git)")
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        // The notify hook writes the one-time code a loosening of the policy needs (as a notification shows it).
        let codeFile = harness.root + "/code"
        let daemon = try harness.launch(
            harness.daemonArguments + ["--notify-command", #"printf %s "$AUTHBROKER_APPROVAL_CODE" > '"# + codeFile + "'"])
        try #require(await waitForSocket(harness), "daemon did not start:\n\(daemon.log)")
        let workspace = try await GitWorkspace.create(in: harness.root)
        let tokenFile = harness.root + "/valid-token"
        try "none-yet".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try await GitHTTPServer(root: harness.root + "/repos", tokenFile: tokenFile, directory: harness.root)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)/"
        let add = try await harness.authctl([
            "account", "add", "forge", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
            "--scope", "offline_access", "--git-url-prefix", base, "--allow-exe", GitWorkspace.git,
        ])
        try #require(add.status == 0, "\(add.stderr)")
        try await harness.login("forge")
        let authctl = URL(fileURLWithPath: try DaemonHarness.binary("authctl")).resolvingSymlinksInPath().path
        let helper = "!\(authctl) --socket \(harness.socket) git-credential"
        let config = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"]

        // `git credential fill`: authctl ← sh -c ← /usr/bin/git. Served, audited with both.
        let fill = try await Subprocess.run(
            [GitWorkspace.git] + config + ["credential", "fill"], stdin: "url=\(base)project.git\n\n",
            environment: ["PATH": "/usr/bin:/bin", "HOME": harness.root, "GIT_TERMINAL_PROMPT": "0"])
        #expect(fill.status == 0, "\(fill.stderr)\n\(daemon.log)")
        let token = try #require(fill.stdout.split(separator: "\n").first { $0.hasPrefix("password=") }?.dropFirst(9))
        let audit = daemon.log.split(separator: "\n").first { $0.contains("audit: token") }
        // The adapter runs as authctl-full (the front execs it), which the policy names as authctl.
        #expect(
            audit?.contains("via=\(GitWorkspace.git) ") == true && audit?.contains("exe=\(authctl)-full ") == true,
            "\(daemon.log)")

        // A plain `authctl token` from this test: refused, naming authctl and this test process.
        let parent = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let plain = try await harness.authctl(["token", "forge"])
        #expect(plain.status == 1 && plain.stdout.isEmpty, "\(plain)")
        #expect(plain.stderr.contains("not \(authctl) run by \(parent)"), "\(plain.stderr)")

        // Fetching runs the helper from git-remote-http, which is not listed: refused, with the fix.
        try String(token).write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let remote = "/usr/lib/git-core/git-remote-http"
        let refused = try await workspace.run(config + ["ls-remote", base + "project.git"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("run by \(remote) "), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-exe \(GitWorkspace.git) --allow-exe \(remote)"), "\(refused.stderr)")
        let widen = ["account", "update", "forge", "--allow-exe", GitWorkspace.git, "--allow-exe", remote]
        let asked = try await harness.authctl(widen)
        #expect(asked.status == 77 && asked.stderr.contains("one-time code"), "\(asked.stderr)")
        var code = ""
        _ = await eventually(30) {
            code = (try? String(contentsOfFile: codeFile, encoding: .utf8)) ?? ""
            return !code.isEmpty
        }
        let update = try await harness.authctl(widen + ["--code", code])
        #expect(update.status == 0, "\(update.stderr)")
        let listed = try await workspace.run(config + ["ls-remote", base + "project.git"])
        #expect(listed.status == 0 && listed.stdout.contains("refs/heads/main"), "\(listed.stderr)\n\(daemon.log)")

        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }

    static let canUnshare: Bool = (try? Subprocess.runBlocking(["/usr/bin/unshare", "-Urm", "/bin/true"]))?.status == 0

    /// The adapter rule compares files too: in a namespace of its own (allowed for the account), a
    /// shell bind-mounted over /usr/bin/git that runs authctl is not git, though `/proc/PID/exe`
    /// says so; the real git in such a namespace is served.
    @Test(.enabled(if: canUnshare, "needs unshare (util-linux) and unprivileged user namespaces"))
    func aShellBindMountedOverGitDoesNotSpeakForAuthctl() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: GitWorkspace.git), "git is needed (apt-get install git)")
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try harness.launch()
        try #require(await waitForSocket(harness), "daemon did not start:\n\(daemon.log)")
        let prefix = "https://git.example.com/"
        let add = try await harness.authctl([
            "account", "add", "forge", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
            "--scope", "offline_access", "--git-url-prefix", prefix, "--allow-exe", GitWorkspace.git, "--allow-other-namespaces",
        ])
        try #require(add.status == 0, "\(add.stderr)")
        try await harness.login("forge")
        let authctl = URL(fileURLWithPath: try DaemonHarness.binary("authctl")).resolvingSymlinksInPath().path
        let impostor = harness.root + "/impostor"
        try ProductBinary.copyExecutable("/usr/bin/dash", to: impostor)

        // "git" -c 'authctl … token forge; exit $?': authctl ← the impostor (a dash), which forks it.
        let inner = "\(authctl) --socket \(harness.socket) token forge; exit $?"
        let script = "mount --bind '\(impostor)' \(GitWorkspace.git) && exec \(GitWorkspace.git) -c \"$0\""
        let spoofed = try await harness.run(["/usr/bin/unshare", "-Urm", "/bin/sh", "-c", script, inner])
        #expect(spoofed.status == 1 && spoofed.stdout.isEmpty, "\(spoofed)")
        #expect(spoofed.stderr.contains("run by \(GitWorkspace.git) (not the file at this path)"), "\(spoofed.stderr)")

        // The real git in a namespace of its own: its file is /usr/bin/git's, so it speaks for authctl.
        let helper = "!\(authctl) --socket \(harness.socket) git-credential"
        let fill = try await Subprocess.run(
            [
                "/usr/bin/unshare", "-Urm", GitWorkspace.git, "-c", "credential.helper=", "-c", "credential.helper=\(helper)",
                "credential", "fill",
            ],
            stdin: "url=\(prefix)project.git\n\n",
            environment: ["PATH": "/usr/bin:/bin", "HOME": harness.root, "GIT_TERMINAL_PROMPT": "0"])
        #expect(fill.status == 0 && fill.stdout.contains("password="), "\(fill.stderr)\n\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }
}
