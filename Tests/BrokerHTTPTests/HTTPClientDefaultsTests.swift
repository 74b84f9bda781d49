import BrokerHTTP
import Testing

/// docs/security.md "Outbound HTTPS": "response bodies are capped (1 MiB); a connect timeout
/// (10 s) and a total timeout (30 s, reads included) bound every request." The daemon builds its
/// client with these defaults (StartedDaemon sets only the CA file, proxy and user agent); the
/// behaviour of each limit is tested with small values in HTTPClientTests.
@Test func theClientsDefaultLimitsAreTheDocumentedOnes() {
    let defaults = HTTPClientConfiguration()
    #expect(defaults.maxResponseBytes == 1024 * 1024)
    #expect(defaults.connectTimeout == .seconds(10))
    #expect(defaults.totalTimeout == .seconds(30))
    #expect(defaults.caFile == nil, "no extra trust unless --ca-file")
}
