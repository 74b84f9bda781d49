import Foundation
import TestSupport
import Testing

/// Certificate pinning (docs/security.md, "Outbound HTTPS"): with `--pin-sha256` the real daemon's
/// discovery at `account add` goes over TLS only when the provider's verified chain (root → intermediate →
/// leaf, made by the test) carries a pinned key; pins computed by the openssl command line.
@Suite struct DaemonPinningTests {
    @Test func anAccountPinnedToTheIntermediateReadsItsProvider() async throws {
        let certificates = try TestCertificates.shared()
        let server = try DaemonSystemTrustTests.provider(certificates, certificate: certificates.chained)
        defer { server.stop() }
        let pin = try TestCertificates.pin(ofCertificateIn: certificates.intermediate.certificateFile)
        let add = try await DaemonSystemTrustTests.addAccount(
            trusting: ["SSL_CERT_FILE": certificates.caFile], server: server,
            extra: ["--pin-sha256", "sha256//" + Self.otherPin(certificates), "--pin-sha256", pin])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(server.requests.map(\.target) == ["/.well-known/openid-configuration"])
    }

    @Test func aChainWithoutThePinnedKeyIsRefusedBeforeAnyRequestSayingWhy() async throws {
        let certificates = try TestCertificates.shared()
        let server = try DaemonSystemTrustTests.provider(certificates, certificate: certificates.chained)
        defer { server.stop() }
        let add = try await DaemonSystemTrustTests.addAccount(
            trusting: ["SSL_CERT_FILE": certificates.caFile], server: server,
            extra: ["--pin-sha256", try Self.otherPin(certificates)])
        #expect(add.status != 0)
        #expect(
            add.stderr.contains("the certificate chain of 127.0.0.1 carries none of the account's pinned keys"), "\(add.stderr)")
        #expect(server.requests.isEmpty, "a request was sent over a connection that failed the pin")
    }

    @Test func aMalformedPinIsAUsageError() async throws {
        let certificates = try TestCertificates.shared()
        let server = try DaemonSystemTrustTests.provider(certificates, certificate: certificates.chained)
        defer { server.stop() }
        let add = try await DaemonSystemTrustTests.addAccount(
            trusting: ["SSL_CERT_FILE": certificates.caFile], server: server, extra: ["--pin-sha256", "not-a-pin"])
        #expect(add.status == 64 && add.stderr.contains("--pin-sha256: 'not-a-pin' is not a SHA-256 pin"), "\(add.stderr)")
        #expect(server.requests.isEmpty)
    }

    static func otherPin(_ certificates: TestCertificates) throws -> String {
        try TestCertificates.pin(ofCertificateIn: certificates.otherHost.certificateFile)
    }
}
