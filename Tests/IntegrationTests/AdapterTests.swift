import Foundation
import TestSupport
import Testing

/// authctl's adapters (exec, header, kube-credential, git-credential, account apply) as a user runs
/// them: the real binary against a stand-in daemon on a Unix socket (Fixtures/fake_servers.py), so
/// their wire use and output formats are pinned down independently of the broker.
@Suite struct AdapterTests {
    struct Fixture {
        let directory: TemporaryDirectory
        let daemon: BackgroundServer
        var socket: String { daemon.address }

        static func start() async throws -> Fixture {
            let directory = try TemporaryDirectory(prefix: "adapters")
            let daemon = try await BackgroundServer(["daemon", directory.appending("fake.sock")], directory: directory.path)
            return Fixture(directory: directory, daemon: daemon)
        }

        func authctl(_ arguments: [String], stdin: String = "") async throws -> Subprocess.Result {
            try await Subprocess.run(
                [try ChildProcess.binary("authctl"), "--socket", socket] + arguments, stdin: stdin,
                environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path], directory: directory.path)
        }

        func addAccount(_ name: String, _ extra: [String] = []) async throws {
            let result = try await authctl(
                ["account", "add", name, "--issuer", "https://idp.example", "--client-id", "c"] + extra)
            try #require(result.status == 0, "account add failed: \(result.stderr)")
        }

        func stats() async throws -> [String: [String]] {
            let output = try await Subprocess.run(
                ["/usr/bin/curl", "-s", "--unix-socket", socket, "http://localhost/_fake/stats"],
                environment: ["PATH": "/usr/bin:/bin"], directory: directory.path)
            return try JSONDecoder().decode([String: [String]].self, from: Data(output.stdout.utf8))
        }

        func stop() {
            daemon.stop()
            directory.remove()
        }
    }

    @Test func execPassesTheTokenAndTheChildsExitCode() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("work")
        let result = try await fixture.authctl(["exec", "work", "--", "sh", "-c", "printf %s \"$ACCESS_TOKEN\"; exit 42"])
        #expect(result.status == 42)
        #expect(result.stdout == "tok-1")
        let custom = try await fixture.authctl(["exec", "work", "--env", "GH_TOKEN", "--", "sh", "-c", "printf %s \"$GH_TOKEN\""])
        #expect(custom.status == 0)
        #expect(custom.stdout == "tok-1")
        let missing = try await fixture.authctl(["exec", "work", "--", "/nonexistent/program"])
        #expect(missing.status == 127)
        #expect(missing.stdout.isEmpty)
    }

    @Test func headerFormats() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("shop")
        #expect(try await fixture.authctl(["header", "shop"]).stdout == "Authorization: Bearer tok-1\n")
        #expect(
            try await fixture.authctl(["header", "shop", "--header-name", "X-Shopify-Storefront-Access-Token"]).stdout
                == "X-Shopify-Storefront-Access-Token: tok-1\n")
        #expect(
            try await fixture.authctl(["header", "shop", "--header-name", "X-Api", "--scheme", "Token"]).stdout
                == "X-Api: Token tok-1\n")
        #expect(try await fixture.authctl(["header", "shop", "--scheme", ""]).stdout == "Authorization: tok-1\n")
        #expect(try await fixture.authctl(["header", "shop", "--header-name", "Bad:Name"]).status == 64)
    }

    @Test func kubeCredentialIsAnExecCredential() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("kube")
        for (flags, token, expiry) in [
            ([String](), "tok-1", "2030-01-01T00:00:00Z"), (["--id-token"], "idt-1", "2030-01-01T00:05:00Z"),
        ] {
            let result = try await fixture.authctl(["kube-credential", "kube"] + flags)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(object.keys.sorted() == ["apiVersion", "kind", "status"])
            #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1")
            #expect(object["kind"] as? String == "ExecCredential")
            let status = try #require(object["status"] as? [String: Any])
            #expect(status.keys.sorted() == ["expirationTimestamp", "token"])
            #expect(status["token"] as? String == token)
            #expect(status["expirationTimestamp"] as? String == expiry)
        }
        #expect(try await fixture.stats()["requests"]?.contains("GET /v1/accounts/kube/id_token?min_ttl=60") == true)
    }

    @Test func applyAddsUpdatesAndRemoves() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        try await fixture.addAccount("old")
        try await fixture.addAccount("keep")
        let secret = fixture.directory.appending("secret")
        try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let file = fixture.directory.appending("accounts.json")
        try """
        {"accounts": [
          {"name": "keep", "issuer": "https://idp.example", "client_id": "c", "scopes": ["openid"],
           "extra_parameters": {}},
          {"name": "new", "issuer": "https://idp.example", "client_id": "n", "client_secret_file": "~/secret",
           "git_url_prefix": "https://git.example/"}
        ]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let kept = try await fixture.authctl(["account", "apply", file])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout == "unchanged keep\nadded new\nunlisted old\n")
        #expect(kept.stderr.contains("kept: 'old'") && kept.stderr.contains("--prune"), "\(kept.stderr)")
        let result = try await fixture.authctl(["account", "apply", "--prune", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "unchanged keep\nunchanged new\nremoved old\n")
        let list = try await fixture.authctl(["account", "list", "--json"])
        #expect(list.stdout.contains("\"git_url_prefix\""))
        #expect(!list.stdout.contains("s3cret"))
        try "{\"accounts\": [{\"name\": \"x\"}]}".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await fixture.authctl(["account", "apply", file]).status == 64)
    }
}
