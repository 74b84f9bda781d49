import Foundation
import TestSupport
import Testing

/// docs/security.md "What is logged, and never": "Request bodies and full URLs with query
/// strings are not logged." The real daemon at debug level, driven over its socket with a
/// marker in query strings and request bodies of served, refused and malformed requests.
@Suite struct DaemonRequestLogTests {
    @Test func neitherQueryStringsNorRequestBodiesReachTheDebugLog() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let marker = "marker\(UInt64.random(in: 0...UInt64.max))"
        let closed = try LoopbackListener.closedPort()
        let notify = try NotifyListener()
        let daemon = try harness.launch(harness.daemonArguments + ["--log-level", "debug"], notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")

        let requests: [(target: String, method: String, body: String?, status: String)] = [
            ("/v1/status?access_token=\(marker)", "GET", nil, "400"),
            ("/v1/accounts/work/token?min_ttl=60&secret=\(marker)", "GET", nil, "400"),
            ("/v1/accounts/work/token?min_ttl=\(marker)", "GET", nil, "400"),
            ("/v1/no-such-route?code=\(marker)", "GET", nil, "404"),
            ("/v1/accounts?state=\(marker)", "POST", "{\"name\": \"\(marker)", "400"),
            (
                "/v1/accounts", "POST",
                "{\"name\":\"work\",\"issuer\":\"https://127.0.0.1:\(closed)\",\"client_id\":\"c\","
                    + "\"client_secret\":\"\(marker)\",\"extra_parameters\":{\"p\":\"\(marker)\"}}", "400"
            ),
            ("/v1/accounts?x=\(marker)", "GET", nil, "400"),
        ]
        for request in requests {
            let answer = try await harness.rawRequest(request.target, method: request.method, body: request.body)
            #expect(answer.hasPrefix("HTTP/1.1 \(request.status) "), "\(request.method) \(request.target): \(answer)")
        }
        #expect(try await daemon.stop() == 0)
        let log = daemon.log
        #expect(log.contains(" ready: ") && log.contains("info: stopped"), "\(log)")
        #expect(!log.contains(marker), "a query string or a request body reached the log:\n\(log)")
    }
}
