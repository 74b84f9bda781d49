import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

/// `POST /v1/accounts/{name}/dpop-proof` (docs/api.md, docs/dpop.md): the body is checked before
/// anything is signed, the answer is a no-store credential, and the audit line names the method
/// and the URL's origin but never the proof, the token, the path or the query.
@Suite struct APIRouterDPoPTests {
    static let path = "/v1/accounts/work/dpop-proof"

    static func body(_ method: String = "GET", url: String = "https://api.example/v1/items?id=7", nonce: String? = nil) -> String
    {
        let nonceField = nonce.map { #","nonce":"\#($0)""# } ?? ""
        return #"{"method":"\#(method)","url":"\#(url)"\#(nonceField)}"#
    }

    @Test func aProofIsServedWithItsTokenAndNoStore() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send("POST", Self.path, body: Self.body(nonce: "n-1"))
        #expect(response.status == 200, "\(response.text)")
        let grant = try response.decoded(DPoPProofGrant.self)
        #expect(grant.proof == FakeBrokerService.proof && grant.accessToken == FakeBrokerService.token)
        #expect(grant.tokenType == "DPoP")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(fixture.service.recorded == ["dpopProof(work,GET,https://api.example/v1/items?id=7,n-1)"])
    }

    @Test func theAuditLineNamesMethodAndOriginButNoSecretPathOrQuery() async throws {
        let fixture = RouterFixture()
        _ = await fixture.send("POST", Self.path, body: Self.body("POST", url: "https://API.example:8443/secret/path?q=1"))
        let audits = fixture.logs.captured.filter { $0.contains("audit:") }
        try #require(audits.count == 1)
        #expect(
            audits[0].contains("audit: dpop_proof account=work method=POST origin=https://api.example:8443 pid=77 "),
            "\(audits[0])")
        #expect(audits[0].contains(" socket=main owner=\(RouterFixture.daemonUID)"))
        for secret in [FakeBrokerService.proof, FakeBrokerService.token, "/secret/path", "q=1"] {
            #expect(!fixture.logs.captured.joined().contains(secret), "\(secret) in the log")
        }
    }

    @Test(arguments: [
        (Self.body("GE T"), "The method must be an HTTP method"),
        (Self.body("G/ET"), "The method must be an HTTP method"),
        (Self.body(String(repeating: "X", count: 33)), "The method must be an HTTP method"),
        (Self.body(nonce: #"a\"b"#), "The nonce must be"),
        (Self.body(nonce: ""), "The nonce must be"),
        (Self.body(url: "http://api.example/x"), "http is allowed only for a loopback host"),
        (Self.body(url: "ftp://api.example/x"), "the scheme must be https"),
        (Self.body(url: "/relative"), "it is not absolute"),
        (Self.body(url: "https://user:pw@api.example/"), "it has user info"),
        (Self.body(url: "https:///nohost"), "it has no host"),
        (Self.body(url: "https://api.example/" + String(repeating: "a", count: 8200)), "it is longer than 8192 bytes"),
        (Self.body(url: "https://api.example/" + String(repeating: "a", count: 11_000)), "larger than 10240 bytes"),
        (#"{"method":"GET"}"#, "'url' is missing"),
        ("", "needs a JSON body"),
    ])
    func aBadRequestIsRefusedBeforeAnythingIsSigned(body: String, message: String) async {
        let fixture = RouterFixture()
        let response = await fixture.send("POST", Self.path, body: body)
        #expect(response.status == 400 && response.wireError?.code == .invalidRequest, "\(response.text)")
        #expect(response.wireError?.message.contains(message) == true, "\(response.wireError?.message ?? response.text)")
        #expect(fixture.service.recorded.isEmpty)
        #expect(!fixture.logs.captured.contains { $0.contains("audit:") })
    }

    @Test(arguments: ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x", "HTTPS://api.example"])
    func loopbackHTTPAndAnyHTTPSAreSigned(url: String) async {
        let fixture = RouterFixture()
        #expect(await fixture.send("POST", Self.path, body: Self.body(url: url)).status == 200)
    }

    @Test func http127ButNotALoopbackAddressIsRefused() {
        #expect(DPoPProofRequest(method: "GET", url: "http://127.0.0.1.evil.example/").problem != nil)
        #expect(DPoPProofRequest(method: "GET", url: "http://127.0.0.256/").problem != nil)
        #expect(DPoPProofRequest(method: "GET", url: "http://localhost.evil/").problem != nil)
    }

    @Test func aServiceErrorIsAnsweredWithItsCodeAndNoAudit() async {
        let fixture = RouterFixture()
        fixture.service.failure.withLock { $0 = WireError(code: .unknownAccount, message: "No account named 'work'.") }
        let response = await fixture.send("POST", Self.path, body: Self.body())
        #expect(response.status == 404 && response.wireError?.code == .unknownAccount)
        #expect(!fixture.logs.captured.contains { $0.contains("audit:") })
    }

    @Test func onlyPOSTIsAllowed() async {
        let response = await RouterFixture().send("GET", Self.path)
        #expect(response.status == 405 && response.headers["Allow"] == "POST")
    }

    @Test func aRestrictedSocketSignsOnlyForItsAccounts() async {
        let grant = RestrictedGrant(name: "remote", owner: RouterFixture.daemonUID, accounts: ["work"])
        let fixture = RouterFixture(scope: .restricted(grant))
        let served = await fixture.send("POST", Self.path, body: Self.body())
        #expect(served.status == 200)
        #expect(fixture.logs.captured.contains { $0.contains("audit: dpop_proof") && $0.contains(" socket=remote ") })
        let other = await fixture.send("POST", "/v1/accounts/other/dpop-proof", body: Self.body())
        #expect(other.status == 403 && other.wireError?.message.contains("is restricted") == true)
        let stranger = await fixture.send(
            "POST", Self.path, body: Self.body(), connection: RouterFixture.connection(uid: RouterFixture.daemonUID + 1))
        #expect(stranger.status == 403)
        #expect(fixture.service.recorded.count == 1)
    }
}

/// docs/api.md's error table for the proof route names real codes with their real statuses.
@Suite struct DPoPProofErrorTableTests {
    static func rows() throws -> [(status: Int, code: String)] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let doc = try String(contentsOfFile: url.path + "/docs/api.md", encoding: .utf8)
        let section = try #require(doc.range(of: "### POST /v1/accounts/{name}/dpop-proof"))
        let rest = doc[section.upperBound...]
        let body = rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex)]
        return body.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[0]) else { return nil }
            return (status, cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")))
        }
    }

    @Test func everyDocumentedCodeExistsWithItsStatus() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 5)
        for row in rows {
            let code = try #require(WireErrorCode(rawValue: row.code), "docs/api.md names an unknown code \(row.code)")
            #expect(code.httpStatus == row.status, "\(row.code)")
        }
        #expect(rows.contains { $0.code == "not_dpop" } && rows.contains { $0.code == "invalid_request" })
    }
}
