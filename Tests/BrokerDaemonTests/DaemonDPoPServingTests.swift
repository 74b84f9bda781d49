import Foundation
import MockProvider
import TestSupport
import Testing

/// Serving a DPoP-bound token to local programs, end to end: the real authbrokerd, authctl and curl
/// against the mock's protected resource with proofs required and resource-server nonces on.
/// `authctl header` + curl, `authctl curl` with its one nonce retry, a proof for another URL
/// refused, the bare-token adapters refusing, and nothing secret in the daemon log.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DaemonDPoPServingTests {
    /// A logged-in DPoP account `work` (tokens long-lived: no refresh muddles the counters).
    static func loggedIn() async throws -> (MockProvider, DaemonHarness, DaemonProcess) {
        let (provider, harness) = try DaemonDPoPTests.setup { $0.accessTokenLifetime = 600 }
        let daemon = try await DaemonDPoPTests.ready(harness, harness.daemonArguments + ["--log-level", "debug"])
        let add = try await harness.authctl(DaemonDPoPTests.add(provider, ["--git-url-prefix", "https://git.example.com/"]))
        try #require(add.status == 0, "\(add)\n\(daemon.log)")
        try await harness.login("work")
        return (provider, harness, daemon)
    }

    /// The resource server's current nonce, from the `DPoP-Nonce` of an unauthenticated request's 401.
    static func resourceNonce(_ harness: DaemonHarness, _ url: String) async throws -> String {
        let run = try await harness.run(["/usr/bin/curl", "-s", "-o", "/dev/null", "-D", "-", url])
        let line = run.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("dpop-nonce:") }
        let nonce = try #require(line.map { $0.dropFirst("dpop-nonce:".count).trimmingCharacters(in: .whitespaces) }, "\(run)")
        return nonce
    }

    /// `authctl header work --method GET --url URL --nonce N`: its two lines, checked.
    static func headerLines(_ harness: DaemonHarness, url: String, nonce: String) async throws -> [String] {
        let run = try await harness.authctl(["header", "work", "--method", "GET", "--url", url, "--nonce", nonce])
        try #require(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(
            lines.count == 2 && lines[0].hasPrefix("Authorization: DPoP ") && lines[1].hasPrefix("DPoP: "), "\(run.stdout)")
        return lines
    }

    /// Plain curl of `url` with `lines` as headers: (HTTP status, body).
    static func curl(_ harness: DaemonHarness, _ url: String, headers lines: [String]) async throws -> (String, String) {
        let run = try await harness.run(["/usr/bin/curl", "-s", "-w", "\n%{http_code}"] + lines.flatMap { ["-H", $0] } + [url])
        let status = String(run.stdout.split(separator: "\n").last ?? "")
        return (status, String(run.stdout.dropLast(status.count + 1)))
    }

    @Test func headerAndCurlAreAcceptedByTheResourceAndTheAdaptersRefuse() async throws {
        let (provider, harness, daemon) = try await Self.loggedIn()
        defer { harness.remove() }
        let resource = provider.url("resource")
        let token = try await harness.authctl(["token", "work"]).stdout.trimmingCharacters(in: .newlines)
        try #require(!token.isEmpty)

        // authctl header, then the caller's own curl with both lines: accepted.
        let lines = try await Self.headerLines(harness, url: resource, nonce: try await Self.resourceNonce(harness, resource))
        #expect(lines[0] == "Authorization: DPoP \(token)")
        let (status, body) = try await Self.curl(harness, resource, headers: lines)
        #expect(status == "200" && body.contains("\"jkt\""), "\(status) \(body)")

        // A proof made for another URL is refused by the resource, even with its current nonce.
        let other = try await Self.headerLines(
            harness, url: provider.url("other"), nonce: try await Self.resourceNonce(harness, resource))
        let refusedBefore = provider.stats.dpopProofsRefused["wrongURI", default: 0]
        let (otherStatus, otherBody) = try await Self.curl(harness, resource, headers: other)
        #expect(otherStatus == "401" && otherBody.contains("invalid_dpop_proof"), "\(otherStatus) \(otherBody)")
        #expect(provider.stats.dpopProofsRefused["wrongURI", default: 0] == refusedBefore + 1, "\(provider.stats)")

        // authctl curl: no nonce known, so one use_dpop_nonce challenge, one retry, and the body.
        let before = provider.stats
        let curl = try await harness.authctl(["curl", "work", resource])
        let after = provider.stats
        #expect(curl.status == 0, "\(curl)")
        #expect(
            curl.stdout.hasPrefix("{") && curl.stdout.contains("\"jkt\"") && curl.stdout.contains("\"method\":\"GET\""),
            "\(curl.stdout)")
        #expect(after.dpopProofsRefused["nonceRequired", default: 0] == before.dpopProofsRefused["nonceRequired", default: 0] + 1)
        #expect(after.dpopProofsVerified == before.dpopProofsVerified + 1, "\(before)\n\(after)")

        // The adapters that can hand over only a bare token refuse, naming authctl curl.
        let gitInput = "protocol=https\nhost=git.example.com\npath=team/repo.git\n\n"
        let helper = "printf '\(gitInput)' | \(try DaemonHarness.binary("authctl")) --socket \(harness.socket) git-credential get"
        let refusals = [
            try await harness.authctl(["exec", "work", "--", "/bin/true"]),
            try await harness.authctl(["kube-credential", "work"]),
            try await harness.authctl(["header", "work"]),
            try await harness.run(["/bin/sh", "-c", helper]),
        ]
        for refusal in refusals {
            #expect(refusal.status != 0 && refusal.stderr.contains("authctl curl work"), "\(refusal)")
            #expect(!refusal.stdout.contains(token), "a refusing adapter printed the token")
        }
        #expect(try await daemon.stop() == 0)

        // Nothing secret in the daemon log; each proof audited by method and origin only.
        let log = daemon.log
        let key = try #require(try DaemonDPoPTests.storedTokens(harness)?.dpopKey)
        let proofs = [lines[1], other[1]].map { String($0.dropFirst("DPoP: ".count)) }
        for secret in [token] + proofs + (try DaemonDPoPTests.privateForms(key)) {
            #expect(!log.contains(secret), "a token, proof or key reached the daemon log")
        }
        let origin = try #require(URL(string: resource).map { "\($0.scheme!)://\($0.host!):\($0.port!)" })
        let audits = log.split(separator: "\n").filter { $0.contains("audit: dpop_proof") }
        #expect(audits.count == 4 && audits.allSatisfy { $0.contains("method=GET origin=\(origin)") }, "\(log)")
        await provider.stop()
    }

    /// `authctl curl` refuses redirects (`-L`): curl would carry the token's headers to the next
    /// URL. A `location` line in the user's ~/.curlrc must not bring them back: curl runs with `-q`
    /// first. The harness's HOME is its root.
    @Test func aCurlrcCannotMakeAuthctlCurlFollowARedirect() async throws {
        let (provider, harness, daemon) = try await Self.loggedIn()
        defer { harness.remove() }
        try "location\n".write(toFile: harness.root + "/.curlrc", atomically: true, encoding: .utf8)
        // The user's own curl follows it: the .curlrc is read, and the redirect reaches the resource.
        let followed = try await harness.run([
            "/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}", provider.url("resource/moved"),
        ])
        #expect(followed.stdout == "401 1", "\(followed)")

        let before = provider.stats
        let curl = try await harness.authctl(["curl", "work", "-s", "-w", "%{http_code}", provider.url("resource/moved")])
        let after = provider.stats
        #expect(curl.stdout == "302", "\(curl)")
        #expect(after.dpopProofsVerified == before.dpopProofsVerified, "the token reached the redirect's target")
        #expect(after.dpopProofsRefused == before.dpopProofsRefused, "the token reached the redirect's target")
        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }

    /// docs/dpop.md's `sh` examples, run as written with the doc's `https://api.example/items`
    /// replaced by the mock's resource: the socket route answers a proof, `authctl header` its two
    /// lines, and each `authctl curl` the resource's body (the POST one as POST).
    @Test func theDocExamplesRunAsWritten() async throws {
        let (provider, harness, daemon) = try await Self.loggedIn()
        defer { harness.remove() }
        let doc = try String(contentsOfFile: SystemdUnitsDocTests.root + "/docs/dpop.md", encoding: .utf8)
        let blocks = doc.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let lines = blocks.flatMap { $0.split(separator: "\n").map(String.init) }
        let commands = lines.filter { $0.hasPrefix("authctl ") }.map { $0.components(separatedBy: "   #")[0] }
        try #require(blocks.count == 2 && commands.count == 3, "\(blocks)")
        let bin = URL(fileURLWithPath: try DaemonHarness.binary("authctl")).deletingLastPathComponent().path
        // The doc's commands find the socket at its default path, $XDG_RUNTIME_DIR/authbroker/authbroker.sock.
        let runtime = harness.root + "/doc-run"
        try FileManager.default.createDirectory(
            atPath: runtime + "/authbroker", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(
            atPath: runtime + "/authbroker/authbroker.sock", withDestinationPath: harness.socket)
        let path = ["PATH": bin + ":/usr/local/bin:/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime]
        func run(_ script: String) async throws -> (status: Int32, stdout: String, stderr: String) {
            let script = script.replacingOccurrences(of: "https://api.example/items", with: provider.url("resource"))
            return try await harness.run(["/bin/sh", "-c", script], environment: path)
        }
        let route = try await run(blocks[0])
        #expect(route.status == 0 && route.stdout.contains("\"proof\"") && route.stdout.contains("\"DPoP\""), "\(route)")
        let header = try await run(commands[0])
        #expect(
            header.status == 0 && header.stdout.hasPrefix("Authorization: DPoP ") && header.stdout.contains("\nDPoP: "),
            "\(header)")
        let get = try await run(commands[1])
        #expect(get.status == 0 && get.stdout.contains("\"method\":\"GET\""), "\(get)")
        let post = try await run(commands[2])
        #expect(post.status == 0 && post.stdout.contains("\"method\":\"POST\""), "\(post)")
        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }
}
