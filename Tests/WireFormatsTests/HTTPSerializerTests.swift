import Testing
import WireFormats

@Test func responseIsFramedWithContentLength() throws {
    var response = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array("{}".utf8))
    response.headers.add(name: "Transfer-Encoding", value: "chunked")
    response.headers.add(name: "content-length", value: "99")
    let text = String(decoding: try response.serialized(), as: UTF8.self)
    #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    let closing = String(decoding: try response.serialized(keepAlive: false, includeBody: false), as: UTF8.self)
    #expect(closing == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n")
    let noContent = String(decoding: try HTTPResponse(status: 204).serialized(), as: UTF8.self)
    #expect(noContent == "HTTP/1.1 204 No Content\r\n\r\n")
}

@Test func serializedMessagesParseBack() throws {
    let request = HTTPRequest(
        method: "POST", target: "/token", headers: HTTPHeaders([("Host", "idp.example"), ("Connection", "close")]),
        body: Array("grant_type=refresh_token".utf8))
    var requestParser = HTTPRequestParser()
    requestParser.append(try request.serialized())
    let parsed = try #require(try requestParser.nextRequest())
    #expect(parsed.method == "POST" && parsed.target == "/token" && parsed.body == request.body)
    #expect(parsed.headers["content-length"] == "24")
    #expect(!requestParser.lastRequestKeepAlive)

    let response = HTTPResponse(status: 404, body: Array("nope".utf8))
    var responseParser = HTTPResponseParser()
    responseParser.append(try response.serialized())
    let back = try #require(try responseParser.nextResponse(to: "GET"))
    #expect(back.status == 404 && back.reason == "Not Found" && back.body == response.body)
}

@Test func emptyPostCarriesContentLengthZero() throws {
    let text = String(decoding: try HTTPRequest(method: "POST", target: "/r").serialized(), as: UTF8.self)
    #expect(text == "POST /r HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    let get = String(decoding: try HTTPRequest(method: "GET", target: "/").serialized(), as: UTF8.self)
    #expect(get == "GET / HTTP/1.1\r\n\r\n")
}

@Test func headerInjectionIsRefused() {
    let split = HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "/x\r\nSet-Cookie: a=b")]))
    #expect(throws: HTTPError.self) { try split.serialized() }
    let badName = HTTPResponse(status: 200, headers: HTTPHeaders([("Bad Name", "x")]))
    #expect(throws: HTTPError.self) { try badName.serialized() }
    #expect(throws: HTTPError.self) { try HTTPResponse(status: 200, reason: "OK\r\nX: y").serialized() }
    #expect(throws: HTTPError.self) { try HTTPRequest(method: "GET", target: "/a b").serialized() }
    #expect(throws: HTTPError.self) { try HTTPRequest(method: "G T", target: "/").serialized() }
}

@Test func errorsMapToStatuses() {
    #expect(HTTPError.malformed("x").status == 400)
    #expect(HTTPError.startLineTooLong(limit: 1).status == 414)
    #expect(HTTPError.headersTooLarge("x").status == 431)
    #expect(HTTPError.bodyTooLarge(limit: 1).status == 413)
    #expect(HTTPError.unsupportedTransferCoding("gzip").status == 501)
    #expect(HTTPError.unsupportedVersion("2.0").status == 505)
    #expect(!HTTPError.bodyTooLarge(limit: 65536).description.contains("\n"))
}
