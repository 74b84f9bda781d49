import BrokerProtocol
import Foundation
import Testing

/// The socket API is defined once (`APIOperation`, `APIRoute`, `APIEndpoint`); these tests hold
/// docs/api.md and both directions of the path (building, matching) to that definition.
@Suite struct APIOperationTests {
    /// docs/api.md, found from this source file's path (as the integration tests find the docs).
    static func apiDoc() throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try String(contentsOfFile: url.path + "/docs/api.md", encoding: .utf8)
    }

    /// "METHOD PATH[?name=S]" of each row of the table under "## Routes".
    static func documentedRoutes(in markdown: String) -> [String] {
        var inRoutes = false
        var rows: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inRoutes = line == "## Routes" }
            guard inRoutes, line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            rows.append(String(cell))
        }
        return rows
    }

    /// How the docs write an operation: method, template, and its query parameters as optional.
    static func documented(_ operation: APIOperation) -> String {
        let query = (operation.query ?? []).map { "[?\($0.rawValue)=S]" }.joined()
        return "\(operation.method) \(operation.routeTemplate)\(query)"
    }

    @Test func docsListEveryOperationAndNoOther() throws {
        let documented = Self.documentedRoutes(in: try Self.apiDoc())
        try #require(!documented.isEmpty, "no route table under '## Routes' in docs/api.md")
        let defined = APIOperation.allCases.map(Self.documented)
        for operation in defined {
            #expect(documented.contains(operation), "docs/api.md's route table lacks `\(operation)`")
        }
        for row in documented {
            #expect(defined.contains(row), "docs/api.md lists `\(row)`, which APIOperation does not define")
        }
        #expect(Set(documented).count == documented.count, "docs/api.md lists a route twice")
    }

    @Test func extractionReadsOnlyTheRouteTable() {
        let markdown = """
            ## Errors
            | `GET /not-a-route` | x |
            ## Routes
            | method and path | answer |
            |---|---|
            | `GET /v1/ping` | `PingResult` |
            ## After
            | `POST /v1/other` | y |
            """
        #expect(Self.documentedRoutes(in: markdown) == ["GET /v1/ping"])
    }

    @Test func everyBuiltPathMatchesBackToItsRoute() throws {
        for operation in APIOperation.allCases {
            let route = operation.route("work-1")
            let parameter = route.parameter
            #expect(parameter == nil || parameter == "work-1")
            let path = try route.path()
            #expect(try APIRoute.match(path[...]) == route, "\(operation): \(path)")
            #expect(APIOperation(route: route, method: operation.method) == operation)
            #expect(route.allowedMethods.contains(operation.method))
        }
    }

    @Test func buildingRefusesWhatMatchingRefuses() {
        for bad in ["", "a/b", "..", "with space", String(repeating: "x", count: 300)] {
            let refusal: APIRoute.Mismatch?
            do {
                _ = try APIRoute.match(("/v1/accounts/" + bad + "/token")[...])
                refusal = nil
            } catch { refusal = error }
            #expect(throws: APIRoute.Mismatch.self, "built a path for '\(bad)'") { try APIRoute.token(bad).path() }
            if case .invalidParameter(let why)? = refusal {
                #expect(throws: APIRoute.Mismatch.invalidParameter(why)) { try APIRoute.token(bad).path() }
            }
        }
        #expect(throws: APIRoute.Mismatch.invalidParameter("invalid login id in the path")) {
            try APIRoute.loginStatus("id/../x").path()
        }
        #expect(throws: APIRoute.Mismatch.invalidParameter("invalid login id in the path")) {
            _ = try APIRoute.match("/v1/logins/a%2Fb")
        }
    }

    /// Matching splits at most seven parts: longer paths (however long) and empty segments are no route.
    @Test func pathsLongerThanAnyRouteAreUnknown() throws {
        #expect(try APIRoute.match("/v1/accounts/work/token/rejected") == .tokenRejected("work"))
        for path in [
            "/v1/accounts/work/token/rejected/x", "/v1/accounts/work/token/rejected/", "/v1/accounts/work/token/",
            "//v1/ping", "/v1//ping", "v1/ping", "/", "", String(repeating: "/v1", count: 1_000),
            "/v1/accounts/work/token/rejected" + String(repeating: "/x", count: 500),
        ] {
            #expect(throws: APIRoute.Mismatch.unknown, "\(path.prefix(60))") { try APIRoute.match(path[...]) }
        }
    }

    @Test func methodsOfAPathComeInAllowHeaderOrder() {
        #expect(APIRoute.accounts.allowedMethods == ["GET", "POST"])
        #expect(APIRoute.account("a").allowedMethods == ["GET", "PUT", "DELETE"])
        #expect(APIRoute.token("a").allowedMethods == ["GET"])
        #expect(APIOperation(route: .token("a"), method: "POST") == nil)
    }

    @Test func endpointsCarryTheirOperationAndParameter() throws {
        #expect(try APIEndpoint.token(account: "work").route.path() == "/v1/accounts/work/token")
        #expect(APIEndpoint.token(account: "work").operation == .token)
        #expect(try APIEndpoint.tokenRejected(account: "w").route.path() == "/v1/accounts/w/token/rejected")
        #expect(try APIEndpoint.loginStatus(id: "abc_D-9").route.path() == "/v1/logins/abc_D-9")
        #expect(APIEndpoint.removeAccount("w").operation.method == "DELETE")
        #expect(APIEndpoint.updateAccount("w").operation.method == "PUT")
        #expect(APIEndpoint.addAccount.operation.body == .required)
        #expect(APIEndpoint.logout(account: "w").operation.body == .optional)
        #expect(try APIEndpoint.metrics.route.path() == "/metrics")
    }
}

/// Restricted socket names become file names beside the main socket: a strict charset, no way out
/// of the directory, and the main socket's names reserved.
@Suite struct RestrictedSocketNameTests {
    @Test func namesAreStrict() throws {
        for good in ["remote", "ssh-host1", "ci_box", "a", String(repeating: "x", count: 32)] {
            #expect(RestrictedSocketName.problem(with: good) == nil, "\(good)")
        }
        for bad in [
            "", "../up", "a/b", ".hidden", "-x", "_x", "Upper", "main", "authbroker", "a.sock", "a b",
            String(repeating: "x", count: 33),
        ] {
            #expect(RestrictedSocketName.problem(with: bad) != nil, "\(bad)")
        }
        #expect(throws: APIRoute.Mismatch.self) { try APIRoute.match("/v1/sockets/..") }
        #expect(throws: APIRoute.Mismatch.self) { try APIRoute.socket("a/b").path() }
        #expect(try APIRoute.match("/v1/sockets/remote") == .socket("remote"))
    }

    @Test func aRequestNeedsAccountsAndABoundedTTL() {
        #expect(RestrictedSocketRequest(name: "r", accounts: ["work"], ttlSeconds: 60).problem == nil)
        #expect(RestrictedSocketRequest(name: "r", accounts: []).problem != nil)
        #expect(RestrictedSocketRequest(name: "r", accounts: ["bad/name"]).problem != nil)
        #expect(RestrictedSocketRequest(name: "r", accounts: ["work"], ttlSeconds: 0).problem != nil)
        #expect(RestrictedSocketRequest(name: "r", accounts: ["work"], ttlSeconds: 2_592_001).problem != nil)
        #expect(RestrictedSocketRequest(name: "r", accounts: Array(repeating: "w", count: 65)).problem != nil)
    }
}
