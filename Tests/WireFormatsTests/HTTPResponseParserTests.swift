import Testing
import WireFormats

private func parseResponse(
    _ text: String, method: String = "GET", close: Bool = false, limits: HTTPLimits = .client
) throws(HTTPError) -> HTTPResponse? {
    var parser = HTTPResponseParser(limits: limits)
    parser.append(Array(text.utf8))
    if close { parser.finishInput() }
    return try parser.nextResponse(to: method)
}

@Test func parsesContentLengthAndChunkedResponses() throws {
    let plain = try #require(try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
    #expect(plain.status == 200 && plain.reason == "OK" && plain.body == Array("hi".utf8))
    let chunked = try #require(
        try parseResponse(
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nab\r\n1;x=y\r\nc\r\n0\r\nX-T: 1\r\n\r\n"))
    #expect(chunked.status == 201 && chunked.body == Array("abc".utf8))
    let noReason = try #require(try parseResponse("HTTP/1.1 204\r\n\r\n"))
    #expect(noReason.status == 204 && noReason.reason.isEmpty)
}

@Test func bodylessResponses() throws {
    // HEAD: Content-Length describes the body that is not sent.
    var parser = HTTPResponseParser()
    parser.append(
        Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n".utf8))
    #expect(try parser.nextResponse(to: "HEAD")?.body == [])
    #expect(try parser.nextResponse(to: "GET")?.status == 304)
    #expect(!parser.hasPartialResponse)
    #expect(try parseResponse("HTTP/1.1 200 Connection established\r\n\r\n", method: "CONNECT")?.status == 200)
}

@Test func interimResponsesAreSkipped() throws {
    let response = try parseResponse(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz")
    #expect(response?.status == 200)
    #expect(response?.headers["link"] == nil)
    #expect(throws: HTTPError.self) { try parseResponse("HTTP/1.1 101 Switching Protocols\r\n\r\n") }
}

@Test func readUntilCloseBodies() throws {
    var parser = HTTPResponseParser()
    parser.append(Array("HTTP/1.1 200 OK\r\n\r\npart one,".utf8))
    #expect(try parser.nextResponse(to: "GET") == nil)
    parser.append(Array(" part two".utf8))
    #expect(try parser.nextResponse(to: "GET") == nil)
    parser.finishInput()
    #expect(try parser.nextResponse(to: "GET")?.body == Array("part one, part two".utf8))
    #expect(!parser.canReuseConnection)
}

@Test func connectionReuse() throws {
    var parser = HTTPResponseParser()
    parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
    _ = try parser.nextResponse(to: "GET")
    #expect(parser.canReuseConnection)
    parser.append(Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
    _ = try parser.nextResponse(to: "GET")
    #expect(!parser.canReuseConnection)
    parser.append(Array("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
    _ = try parser.nextResponse(to: "GET")
    #expect(!parser.canReuseConnection)
}

@Test func responseBodyLimitIsConfigurable() throws {
    let big = String(repeating: "x", count: 1024 * 1024 + 1)
    #expect(throws: HTTPError.bodyTooLarge(limit: 1024 * 1024)) {
        try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: \(big.utf8.count)\r\n\r\n")
    }
    #expect(throws: HTTPError.bodyTooLarge(limit: 1024 * 1024)) {
        try parseResponse("HTTP/1.1 200 OK\r\n\r\n" + big, close: true)
    }
    let small = HTTPLimits(maxBodyBytes: 3)
    #expect(throws: HTTPError.bodyTooLarge(limit: 3)) {
        try parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n", limits: small)
    }
    #expect(try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", limits: small)?.body.count == 3)
}

@Test(arguments: [
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
    "HTTP/1.1 2000 OK\r\n\r\n",
    "HTTP/1.1 99 OK\r\n\r\n",
    "HTTP/1.1 abc OK\r\n\r\n",
    "HTTP/3 200 OK\r\n\r\n",
    "HTTP/1.1 200 O\u{1}K\r\n\r\n",
    "SSH-2.0-OpenSSH_9.2\r\n\r\n",
    "HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
])
func malformedResponsesThrow(_ text: String) {
    #expect(throws: HTTPError.self) { try parseResponse(text, close: true) }
}

@Test func aLongStatusLineNamesTheLimit() {
    let limits = HTTPLimits(maxStartLineBytes: 16, maxBodyBytes: 64)
    #expect(throws: HTTPError.malformed("status line longer than 16 bytes")) {
        try parseResponse("HTTP/1.1 200 \(String(repeating: "O", count: 20))\r\n\r\n", limits: limits)
    }
}

@Test func truncatedResponsesThrow() {
    #expect(throws: HTTPError.truncated) { try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", close: true) }
    #expect(throws: HTTPError.truncated) { try parseResponse("HTTP/1.1 200 OK\r\nContent-Le", close: true) }
}

@Test func chunkedDecoderAloneHandlesSplitInput() throws {
    let encoded = Array("4\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n".utf8)
    for split in 0...encoded.count {
        var decoder = HTTPChunkedDecoder(limits: .client)
        var body: [UInt8] = []
        var position = 0
        let first = Array(encoded[..<split])
        _ = try decoder.decode(first, position: &position, into: &body)
        let rest = Array(first[position...]) + encoded[split...]
        decoder.rebase(by: position)
        position = 0
        #expect(try decoder.decode(rest, position: &position, into: &body))
        #expect(String(decoding: body, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.", "split \(split)")
        #expect(decoder.isComplete)
    }
}
