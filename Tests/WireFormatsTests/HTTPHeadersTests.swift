import Testing
import WireFormats

@Test func headerNamesAreCaseInsensitive() {
    var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-A", "1"), ("x-a", "2")])
    #expect(headers["content-type"] == "text/plain")
    #expect(headers.values("X-a") == ["1", "2"])
    headers.replaceOrAdd(name: "X-A", value: "3")
    #expect(headers.values("x-a") == ["3"])
}

@Test func requestSplitsPathAndQuery() {
    let request = HTTPRequest(method: "GET", target: "/v1/accounts/a/token?min_ttl=30")
    #expect(request.path == "/v1/accounts/a/token")
    #expect(request.query == "min_ttl=30")
    #expect(HTTPRequest(method: "GET", target: "/x").query == nil)
}
