import MockProvider
import TestSupport
import Testing

/// `authctl account add` against the real daemon and a provider whose metadata advertises DPoP
/// (`dpop: accepted` lists `dpop_signing_alg_values_supported`): without `--dpop` one warning line
/// on stderr and exit 0; with `--dpop`, or against a provider without DPoP, none.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DaemonDPoPAdviceTests {
    static func add(_ name: String, _ provider: MockProvider, _ extra: [String] = [], _ harness: DaemonHarness) async throws
        -> (status: Int32, stderr: String)
    {
        let run = try await harness.authctl(
            ["account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid"] + extra)
        return (run.status, run.stderr)
    }

    @Test func anAdvertisedDPoPIsSuggestedOnceAndNotForcedOn() async throws {
        let (advertising, harness) = try DaemonDPoPTests.setup { $0.dpop = .accepted }
        defer { harness.remove() }
        var plain = MockProviderConfiguration()
        plain.dpop = .off
        let silent = try MockProvider(configuration: plain)
        let daemon = try await DaemonDPoPTests.ready(harness)

        let bearer = try await Self.add("bearer", advertising, [], harness)
        #expect(bearer.status == 0, "\(bearer.stderr)\n\(daemon.log)")
        let warnings = bearer.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("--dpop"), "\(bearer.stderr)")
        let shown = try await harness.authctl(["account", "show", "bearer", "--json"])
        #expect(!shown.stdout.contains(#""dpop":true"#) && !shown.stdout.contains(#""dpop" : true"#), "\(shown.stdout)")

        let bound = try await Self.add("bound", advertising, ["--dpop"], harness)
        #expect(bound.status == 0 && !bound.stderr.contains("warning:"), "\(bound.stderr)")
        let other = try await Self.add("other", silent, [], harness)
        #expect(other.status == 0 && !other.stderr.contains("warning:"), "\(other.stderr)")
        #expect(try await daemon.stop() == 0)
        await advertising.stop()
        await silent.stop()
    }
}
