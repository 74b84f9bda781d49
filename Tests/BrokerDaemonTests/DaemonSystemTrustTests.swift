import BrokerHTTP
import Foundation
import TestSupport
import Testing

/// docs/security.md "Outbound HTTPS": the certificate chain is "verified against the system
/// trust store" — OpenSSL's default locations, which `SSL_CERT_FILE` replaces — "plus
/// `--ca-file`". Real TLS between the real daemon and a loopback provider whose certificate
/// comes from a CA the test made: trusted only when the daemon's trust store holds that CA.
@Suite struct DaemonSystemTrustTests {
    /// A TLS provider on 127.0.0.1 serving a discovery document for its own address.
    static func provider(_ certificates: TestCertificates, certificate: CertificatePair? = nil) throws -> TestHTTPServer {
        try TestHTTPServer(tls: .init(certificate: certificate ?? certificates.localhost)) { request in
            let issuer = "https://" + (request.headers["Host"] ?? "127.0.0.1")
            guard request.path == "/.well-known/openid-configuration" else { return .respond(HTTPResponse(status: 404)) }
            let document = """
                {"issuer":"\(issuer)","authorization_endpoint":"\(issuer)/authorize","token_endpoint":"\(issuer)/token",
                "jwks_uri":"\(issuer)/jwks","response_types_supported":["code"],"subject_types_supported":["public"],
                "id_token_signing_alg_values_supported":["RS256"],"code_challenge_methods_supported":["S256"]}
                """
            return .respond(
                HTTPResponse(
                    status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(document.utf8)))
        }
    }

    /// `authctl account add` (which reads the discovery document over TLS) against a daemon
    /// started with `environment`.
    static func addAccount(trusting environment: [String: String], server: TestHTTPServer, extra: [String] = []) async throws
        -> (status: Int32, stderr: String)
    {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(environment: environment, notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let add = try await harness.authctl(
            [
                "account", "add", "work", "--issuer", "https://127.0.0.1:\(server.port)", "--client-id", "c",
            ] + extra)
        #expect(try await daemon.stop() == 0)
        return (add.status, add.stderr)
    }

    @Test func aProviderSignedByACAOutsideTheTrustStoreIsRefusedSayingWhatToDo() async throws {
        let certificates = try TestCertificates.shared()
        let server = try Self.provider(certificates)
        defer { server.stop() }
        let add = try await Self.addAccount(trusting: [:], server: server)
        #expect(add.status != 0)
        #expect(add.stderr.contains("the certificate of 127.0.0.1 is not signed by a trusted CA"), "\(add.stderr)")
        #expect(add.stderr.contains("--ca-file"), "\(add.stderr)")
        #expect(server.requests.isEmpty, "a request was sent over an unverified connection")
    }

    @Test func theSameProviderIsTrustedOnceItsCAIsInTheTrustStoreSSLCertFileNames() async throws {
        let certificates = try TestCertificates.shared()
        let server = try Self.provider(certificates)
        defer { server.stop() }
        let add = try await Self.addAccount(trusting: ["SSL_CERT_FILE": certificates.caFile], server: server)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(server.requests.map(\.target) == ["/.well-known/openid-configuration"])
    }
}
