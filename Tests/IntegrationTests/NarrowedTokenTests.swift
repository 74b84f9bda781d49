import Foundation
import TestSupport
import Testing

/// Narrowed tokens with the real binaries against the mock (docs/guide.md, "Narrowed tokens"): a
/// narrower scope or another resource from one login, minted by refreshes that share the
/// account's one refresh token — refused where narrowing is not known to be safe.
@Suite struct NarrowedTokenTests {
    static let resourceA = "https://api-a.example.test/"
    static let resourceB = "https://api-b.example.test/"

    /// `account add` for the mock with three scopes; `extra` adds e.g. `--allow-narrowing`.
    static func add(_ harness: BrokerHarness, _ provider: MockProviderProcess, _ extra: [String]) async throws {
        let add = try await harness.authctl(
            [
                "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client",
                "--scope", "openid", "--scope", "profile", "--scope", "offline_access",
            ] + extra)
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
        let login = try await harness.login("work", provider: provider)
        guard login.status == 0 else { throw HarnessError.unexpected("login: \(login)\n\(harness.daemonLog)") }
    }

    /// The JSON answer of `authctl token work ARGS --json`.
    static func grant(_ harness: BrokerHarness, _ arguments: [String]) async throws -> [String: Any] {
        let run = try await harness.authctl(["token", "work"] + arguments + ["--json"])
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        else { throw HarnessError.unexpected("token \(arguments): \(run)\n\(harness.daemonLog)") }
        return object
    }

    /// The `aud` claim of a JWT access token.
    static func audience(of token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        guard let data = Data(base64Encoded: payload),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return claims["aud"] as? String
    }

    @Test(.timeLimit(.minutes(2)))
    func narrowedScopeIsGrantedReportedAndCachedWhenOptedIn() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"rotates": true, "detectRefreshTokenReuse": true}"#)
        try await Self.add(harness, provider, ["--allow-narrowing"])

        let narrowed = try await Self.grant(harness, ["--scope", "profile"])
        #expect(narrowed["scope"] as? String == "profile", "\(narrowed)")
        let token = try #require(narrowed["access_token"] as? String)
        #expect(try await provider.accepts(token))
        let refreshes = try await provider.stats.refreshes
        #expect(try await provider.stats.refreshScopes.last == "profile")
        // The same key again: from the cache, no refresh.
        #expect(try await harness.token("work", ["--scope", "profile"]) == token)
        #expect(try await provider.stats.refreshes == refreshes)
        // The account's own token is still the full grant, and its rotated refresh token works.
        let plain = try await Self.grant(harness, [])
        #expect(plain["scope"] as? String == "openid profile offline_access", "\(plain)")
        #expect(try await harness.authctl(["token", "work", "--min-ttl", "86400"]).status == 0)
        #expect(try await provider.stats.familyRevocations == 0)

        let widened = try await harness.authctl(["token", "work", "--scope", "admin"])
        #expect(widened.status == 1, "\(widened)")
        #expect(widened.stderr.contains("was not granted admin"), "\(widened.stderr)")
        let bad = try await harness.authctl(["token", "work", "--resource", "not a uri"])
        #expect(bad.status == 64, "\(bad)")
        #expect(await harness.stopDaemon() == 0)
        #expect(!harness.daemonLog.contains(token), "a narrowed token reached the daemon log")
    }

    @Test(.timeLimit(.minutes(2)))
    func narrowingIsRefusedWithoutOptInAndBeforeAnyRefresh() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await Self.add(harness, provider, [])
        let before = try await provider.stats.refreshes
        let refused = try await harness.authctl(["token", "work", "--scope", "openid"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("allow_narrowing"), "\(refused.stderr)")
        let body = try await harness.curl("/v1/accounts/work/token?scope=openid", through: harness.socket)
        #expect(body?.contains("\"scope_narrowing_unsafe\"") == true, "\(body ?? "no curl")")
        #expect(try await provider.stats.refreshes == before, "a refused narrowing spent the refresh token")
    }

    @Test(.timeLimit(.minutes(2)))
    func scopeLostIsReportedWhenTheProviderNarrowsTheGrant() async throws {
        // django-oauth-toolkit's behaviour: after one refresh with scope=openid, refreshes get only openid.
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"narrowsGrantOnRefresh": true, "accessTokenLifetime": 4}"#)
        try await Self.add(harness, provider, ["--allow-narrowing"])
        let narrowed = try await Self.grant(harness, ["--scope", "openid"])
        #expect(narrowed["scope"] as? String == "openid")
        // The next plain refresh (4-second tokens refresh within seconds) comes back with less.
        var status = ""
        let reported = await SpawnedProcess.eventually(timeout: 30) {
            status = (try? await harness.authctl(["status", "--json"]).stdout) ?? ""
            return status.contains("scope_lost")
        }
        #expect(reported, "\(status)\n\(harness.daemonLog)")
        #expect(status.contains("authctl login work"), "\(status)")
        let widened = try await harness.authctl(["token", "work", "--scope", "profile"])
        #expect(widened.stderr.contains("was not granted profile"), "\(widened)")
    }

    @Test(.timeLimit(.minutes(2)))
    func twoResourcesFromOneLoginShareOneRotationChain() async throws {
        let config = """
            {"rotates": true, "detectRefreshTokenReuse": true, "resources": ["\(Self.resourceA)", "\(Self.resourceB)"],
             "resourceTokenLifetimes": {"\(Self.resourceA)": 600, "\(Self.resourceB)": 300}}
            """
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: config)
        // The third resource is allowed here so that the provider, not the allow-list, refuses it.
        try await Self.add(
            harness, provider,
            [
                "--allow-narrowing", "--allow-resource", Self.resourceA, "--allow-resource", Self.resourceB,
                "--allow-resource", "https://other.example.test/",
            ])

        let a = try await Self.grant(harness, ["--resource", Self.resourceA])
        let b = try await Self.grant(harness, ["--resource", Self.resourceB])
        let tokenA = try #require(a["access_token"] as? String)
        #expect(Self.audience(of: tokenA) == Self.resourceA)
        #expect(Self.audience(of: try #require(b["access_token"] as? String)) == Self.resourceB)
        let expiryA = try #require((a["expires_at"] as? String).flatMap(ISO8601DateFormatter().date(from:)))
        let expiryB = try #require((b["expires_at"] as? String).flatMap(ISO8601DateFormatter().date(from:)))
        #expect(expiryA.timeIntervalSince(expiryB) > 200, "each key has its own expiry: \(a) \(b)")
        #expect(try await harness.token("work", ["--resource", Self.resourceA]) == tokenA)

        // Concurrent narrowed refreshes (min_ttl above the lifetime: every one refreshes) and a
        // plain one: each presents the refresh token the previous one rotated in.
        let runs = try (0..<6).map { index in
            try harness.spawnAuthctl(
                index == 5
                    ? ["token", "work", "--min-ttl", "86400"]
                    : ["token", "work", "--resource", index % 2 == 0 ? Self.resourceA : Self.resourceB, "--min-ttl", "700"])
        }
        for run in runs { #expect(await run.waitForExit(timeout: 60) == 0, "\(run.stderr)") }
        let stats = try await provider.stats
        #expect(stats.familyRevocations == 0, "a spent refresh token was presented: \(stats)")
        #expect(stats.refreshResources.filter { $0 != "-" }.count >= 7, "\(stats.refreshResources)")
        #expect(try await provider.accepts(try await harness.token("work", ["--min-ttl", "86400"])))

        let unknown = try await harness.authctl(["token", "work", "--resource", "https://other.example.test/"])
        #expect(unknown.status == 64, "invalid_request: \(unknown)")
        #expect(unknown.stderr.contains("invalid_target"), "\(unknown.stderr)")
        // The refusal did not cost the account its refresh token: the next refresh works.
        let next = try await harness.authctl(["token", "work", "--resource", Self.resourceA, "--min-ttl", "700"])
        #expect(next.status == 0, "\(next)")
        #expect(try await provider.stats.familyRevocations == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func keysNobodyAsksForExpireWithoutRefreshes() async throws {
        let config = """
            {"resources": ["\(Self.resourceA)", "\(Self.resourceB)"],
             "resourceTokenLifetimes": {"\(Self.resourceA)": 600, "\(Self.resourceB)": 2}}
            """
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: config)
        try await Self.add(
            harness, provider, ["--allow-narrowing", "--allow-resource", Self.resourceA, "--allow-resource", Self.resourceB])
        _ = try await harness.token("work", ["--resource", Self.resourceA])
        _ = try await harness.token("work", ["--resource", Self.resourceB])
        let metrics = try await harness.curl("/metrics", through: harness.socket) ?? ""
        #expect(metrics.contains("authbroker_narrowed_tokens 2\n"), "\(metrics)")
        let refreshes = try await provider.stats.refreshes
        // B's token expires unused: nothing refreshes it, and the next request drops its key.
        try await Task.sleep(for: .seconds(3))
        #expect(try await provider.stats.refreshes == refreshes, "a key nobody asked for was refreshed")
        _ = try await harness.token("work", ["--resource", Self.resourceA])
        let after = try await harness.curl("/metrics", through: harness.socket) ?? ""
        #expect(after.contains("authbroker_narrowed_tokens 1\n"), "\(after)")
        #expect(try await provider.stats.refreshes == refreshes)
    }

    /// SIGTERM while a narrowed refresh is at the provider (its token endpoint slowed to 2 s,
    /// rotating refresh tokens with reuse detection): the daemon waits for the answer, commits the
    /// rotated refresh token, hands the narrowed token to the waiting caller and exits 0. Restarted,
    /// the account refreshes with the rotated refresh token: the provider sees no reuse.
    @Test(.timeLimit(.minutes(2)))
    func aNarrowedRefreshInterruptedBySIGTERMKeepsTheRotatedRefreshToken() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"rotateRefreshTokens": true, "detectRefreshTokenReuse": true, "accessTokenLifetime": 60}"#)
        try await Self.add(harness, provider, ["--allow-narrowing"])
        try await provider.configure(#"{"faults": {"token": {"kind": "slow", "delayMilliseconds": 2000, "remaining": 1}}}"#)
        let caller = try harness.spawnAuthctl(["token", "work", "--scope", "profile"])
        // The refresh has reached the provider (the fault is taken on arrival): stop now.
        let arrived = try await SpawnedProcess.eventually(timeout: 20) {
            try await provider.configurationJSON.contains(#""remaining":0"#)
        }
        try #require(arrived, "the narrowed refresh never reached the provider:\n\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0, "\(harness.daemonLog)")
        #expect(await caller.waitForExit(timeout: 10) == 0, "the waiting caller got no token: \(caller.stderr)")
        let narrowed = caller.stdout.trimmingCharacters(in: .newlines)
        #expect(try await provider.accepts(narrowed))
        #expect(try await provider.stats.refreshScopes == ["profile"])

        // Narrowed keys live in memory only: the restarted daemon mints this one again, with the
        // refresh token the interrupted refresh rotated in.
        try await harness.startDaemon()
        let again = try await harness.token("work", ["--scope", "profile"])
        #expect(again != narrowed)
        #expect(try await provider.accepts(again))
        let stats = try await provider.stats
        #expect(
            stats.refreshScopes == ["profile", "profile"] && stats.familyRevocations == 0,
            "the rotated refresh token was not kept: \(stats)")
        #expect(try await harness.authctl(["status", "work", "--json"]).stdout.contains("\"active\""))
        #expect(await harness.stopDaemon() == 0)
    }

    /// Resources and audiences are allowed per account (none by default): one off the list is
    /// refused before anything is spent, with the flag that allows it; allowing it keeps the login.
    @Test(.timeLimit(.minutes(2)))
    func aResourceNotOnTheAllowListIsRefusedUntilTheAccountAllowsIt() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"resources": ["\#(Self.resourceA)"]}"#)
        try await Self.add(harness, provider, ["--allow-narrowing"])
        let refreshes = try await provider.stats.refreshes
        let refused = try await harness.authctl(["token", "work", "--resource", Self.resourceA])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("--allow-resource \(Self.resourceA)"), "\(refused.stderr)")
        let audience = try await harness.authctl(["token", "work", "--audience", "api://reports"])
        #expect(audience.status == 1 && audience.stderr.contains("--allow-audience api://reports"), "\(audience)")
        #expect(try await provider.stats.refreshes == refreshes, "a refused narrowing spent a refresh")

        let update = try await harness.authctl(["account", "update", "work", "--allow-resource", Self.resourceA])
        #expect(update.status == 0 && update.stderr.contains("tokens are kept"), "\(update)")
        let token = try await harness.token("work", ["--resource", Self.resourceA])
        #expect(Self.audience(of: token) == Self.resourceA)
        #expect(harness.daemonLog.contains("audit: token account=work resource=\(Self.resourceA) pid="), "\(harness.daemonLog)")

        // Taken off the list, the resource is refused at once, its cached token included; the login stays.
        let removed = try await harness.authctl(["account", "update", "work", "--no-allow-resource"])
        #expect(removed.status == 0 && removed.stderr.contains("tokens are kept"), "\(removed)")
        let again = try await harness.authctl(["token", "work", "--resource", Self.resourceA])
        #expect(again.status == 1 && again.stderr.contains("--allow-resource"), "\(again)")
        #expect(try await harness.authctl(["token", "work"]).status == 0)
    }

    /// The provider refuses the narrowing (Entra's AADSTS65001 consent and the like): that caller
    /// gets `narrowing_refused`, and the account stays signed in with its own token.
    @Test(.timeLimit(.minutes(2)), arguments: ["consent_required", "interaction_required", "invalid_grant"])
    func aNarrowedRefusalLeavesTheAccountSignedIn(_ code: String) async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"rotates": true, "detectRefreshTokenReuse": true, "narrowedRefusal": "\#(code)"}"#)
        try await Self.add(harness, provider, ["--allow-narrowing", "--allow-audience", "api://reports"])
        let refused = try await harness.authctl(["token", "work", "--audience", "api://reports"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("unchanged"), "\(refused.stderr)")
        let plain = try await harness.authctl(["token", "work", "--min-ttl", "86400"])
        #expect(plain.status == 0, "the account lost its tokens: \(plain)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(plain.stdout.trimmingCharacters(in: .newlines)))
        // A refresh that --min-ttl started may still be finishing on a loaded machine: the account
        // must come back to active (not stay refreshing, not be signed out).
        var status = try await harness.authctl(["status", "work", "--json"])
        let settled = try await eventually(20) {
            status = try await harness.authctl(["status", "work", "--json"])
            return status.stdout.contains("\"active\"")
        }
        #expect(settled, "\(status)")
        #expect(try await provider.stats.familyRevocations == 0)
    }
}
