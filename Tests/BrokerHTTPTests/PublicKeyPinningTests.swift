import BrokerHTTP
import Foundation
import TestSupport
import Testing

/// `HTTPClientRequest.pins` against a real TLS server whose chain is root CA → intermediate →
/// leaf, with pins computed by the openssl command line (curl's `--pinnedpubkey` recipe).
@Suite struct PublicKeyPinningTests {
    let certificates: TestCertificates

    init() throws { certificates = try TestCertificates.shared() }

    private func client(trustingCA: Bool = true) throws -> HTTPClient {
        try HTTPClient.forTLSTests(trusting: trustingCA ? certificates : nil)
    }

    private func pins(_ files: [String]) throws -> PublicKeyPins {
        PublicKeyPins(
            digests: Set(
                try files.map { file in
                    Array(try #require(Data(base64Encoded: try TestCertificates.pin(ofCertificateIn: file))))
                }))
    }

    private func outcome(_ pins: PublicKeyPins, client: HTTPClient, port: Int) async -> Result<Int, HTTPClientError> {
        do {
            return .success(try await client.send(HTTPClientRequest(url: "https://127.0.0.1:\(port)/", pins: pins)).status)
        } catch {
            return .failure(error)
        }
    }

    @Test func aPinOfTheLeafTheIntermediateOrTheRootIsAccepted() async throws {
        let server = try TestHTTPServer.answering("pinned", tls: .init(certificate: certificates.chained))
        defer { server.stop() }
        let client = try client()
        for file in [certificates.chained.certificateFile, certificates.intermediate.certificateFile, certificates.caFile] {
            #expect(await outcome(try pins([file]), client: client, port: server.port) == .success(200), "\(file)")
        }
    }

    @Test func aChainWithoutThePinnedKeyIsAPinMismatchThatNeedsAPerson() async throws {
        let server = try TestHTTPServer.answering("pinned", tls: .init(certificate: certificates.chained))
        defer { server.stop() }
        let result = await outcome(try pins([certificates.otherHost.certificateFile]), client: try client(), port: server.port)
        #expect(result == .failure(.tls(.pinMismatch(host: "127.0.0.1"))))
        if case .failure(let error) = result {
            #expect(!error.isTransient)
            #expect(error.description.contains("--pin-sha256"))
        }
    }

    @Test func twoPinsRotateTheOldAndTheNextKey() async throws {
        let server = try TestHTTPServer.answering("pinned", tls: .init(certificate: certificates.chained))
        defer { server.stop() }
        let both = try pins([certificates.otherHost.certificateFile, certificates.chained.certificateFile])
        #expect(await outcome(both, client: try client(), port: server.port) == .success(200))
    }

    /// A pin adds to verification: the right key from an untrusted issuer is still refused.
    @Test func aPinnedKeyDoesNotMakeAnUntrustedChainTrusted() async throws {
        let server = try TestHTTPServer.answering("pinned", tls: .init(certificate: certificates.chained))
        defer { server.stop() }
        let result = await outcome(
            try pins([certificates.chained.certificateFile]), client: try client(trustingCA: false), port: server.port)
        guard case .failure(.tls(.untrustedIssuer)) = result else {
            Issue.record("expected untrustedIssuer, got \(result)")
            return
        }
    }

    /// A keep-alive connection verified without pins (or with others) is never reused for a
    /// pinned request: the pin is checked at the handshake, so the pool keys on the pins.
    @Test func aPooledConnectionIsNotReusedForOtherPins() async throws {
        let server = try TestHTTPServer.answering("pinned", tls: .init(certificate: certificates.chained))
        defer { server.stop() }
        let client = try client()
        #expect(await outcome(.none, client: client, port: server.port) == .success(200))
        #expect(client.idleConnectionCount == 1)
        let wrong = try pins([certificates.otherHost.certificateFile])
        #expect(await outcome(wrong, client: client, port: server.port) == .failure(.tls(.pinMismatch(host: "127.0.0.1"))))
        #expect(await outcome(.none, client: client, port: server.port) == .success(200))
    }
}
