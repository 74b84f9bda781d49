import Testing
import WireFormats

/// Parses `text` fed in one piece; returns the requests or the error.
private func parseAll(_ text: String, limits: HTTPLimits = .server) -> Result<[HTTPRequest], HTTPError> {
    var parser = HTTPRequestParser(limits: limits)
    parser.append(Array(text.utf8))
    var requests: [HTTPRequest] = []
    do {
        while let request = try parser.nextRequest() { requests.append(request) }
        return .success(requests)
    } catch {
        return .failure(error)
    }
}

private func parseError(_ text: String, limits: HTTPLimits = .server) -> HTTPError? {
    if case .failure(let error) = parseAll(text, limits: limits) { return error }
    return nil
}

private let sample =
    "POST /v1/token?min_ttl=30 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello"
    + "GET /v1/accounts HTTP/1.1\r\nHost: localhost\r\n\r\n"
    + "PUT /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer-A: 1\r\n\r\n"

@Test func parsesPipelinedRequests() throws {
    let requests = try parseAll(sample).get()
    try #require(requests.count == 3)
    #expect(requests[0].method == "POST")
    #expect(requests[0].target == "/v1/token?min_ttl=30")
    #expect(requests[0].headers["host"] == "localhost")
    #expect(requests[0].body == Array("hello".utf8))
    #expect(requests[1].method == "GET" && requests[1].body.isEmpty)
    #expect(requests[2].body == Array("abcde".utf8))
    #expect(requests[2].headers["trailer-a"] == nil)
}

@Test func parsesTheSampleSplitAtEveryPoint() throws {
    let bytes = Array(sample.utf8)
    let expected = try parseAll(sample).get()
    for split in 0...bytes.count {
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        parser.append(bytes[..<split])
        while let request = try parser.nextRequest() { requests.append(request) }
        parser.append(bytes[split...])
        while let request = try parser.nextRequest() { requests.append(request) }
        #expect(requests == expected, "split at \(split)")
    }
}

@Test func parsesTheSampleOneByteAtATime() throws {
    var parser = HTTPRequestParser()
    var requests: [HTTPRequest] = []
    for byte in sample.utf8 {
        parser.append([byte])
        while let request = try parser.nextRequest() { requests.append(request) }
    }
    #expect(requests == (try parseAll(sample).get()))
    #expect(!parser.hasPartialRequest)
}

@Test func keepAliveFollowsVersionAndConnection() throws {
    func keepAlive(_ text: String) throws -> Bool {
        var parser = HTTPRequestParser()
        parser.append(Array(text.utf8))
        _ = try #require(try parser.nextRequest())
        return parser.lastRequestKeepAlive
    }
    #expect(try keepAlive("GET / HTTP/1.1\r\n\r\n"))
    #expect(try !keepAlive("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n"))
    #expect(try !keepAlive("GET / HTTP/1.0\r\n\r\n"))
    #expect(try keepAlive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
    #expect(try !keepAlive("GET / HTTP/1.1\r\nConnection: te, close\r\n\r\n"))
}

@Test func versionIsReported() throws {
    #expect(try parseAll("GET / HTTP/1.0\r\n\r\n").get().first?.version == .http10)
    #expect(parseError("GET / HTTP/2.0\r\n\r\n")?.status == 505)
    #expect(parseError("GET / HTTP/1.10\r\n\r\n")?.status == 400)
    #expect(parseError("GET / http/1.1\r\n\r\n")?.status == 400)
}

@Test func truncatedInputIsAnError() throws {
    var parser = HTTPRequestParser()
    parser.append(Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc".utf8))
    #expect(try parser.nextRequest() == nil)
    #expect(parser.hasPartialRequest)
    parser.finishInput()
    #expect(throws: HTTPError.truncated) { try parser.nextRequest() }

    var idle = HTTPRequestParser()
    idle.finishInput()
    #expect(try idle.nextRequest() == nil)
}

@Test func expectContinueIsReported() throws {
    var parser = HTTPRequestParser()
    parser.append(Array("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
    #expect(try parser.nextRequest() == nil)
    #expect(parser.awaitsBodyWithContinue)
    parser.append(Array("abc".utf8))
    #expect(try parser.nextRequest()?.body == Array("abc".utf8))
    #expect(!parser.awaitsBodyWithContinue)
}

@Test func limitsAnswerWithTheirStatus() {
    let longTarget = "/" + String(repeating: "a", count: 8 * 1024)
    #expect(parseError("GET \(longTarget) HTTP/1.1\r\n\r\n") == .startLineTooLong(limit: 8192))
    // Without the CRLF yet: the limit still applies, the parser does not wait forever.
    #expect(parseError("GET \(longTarget)") == .startLineTooLong(limit: 8192))
    #expect(parseError("GET /\(String(repeating: "a", count: 8000)) HTTP/1.1\r\n\r\n") == nil)

    let bigHeader = "X-Big: " + String(repeating: "b", count: 16 * 1024) + "\r\n"
    #expect(parseError("GET / HTTP/1.1\r\n\(bigHeader)\r\n")?.status == 431)
    let manyFields = (0..<101).map { "X-\($0): v\r\n" }.joined()
    #expect(parseError("GET / HTTP/1.1\r\n\(manyFields)\r\n")?.status == 431)
    let hundredFields = (0..<100).map { "X-\($0): v\r\n" }.joined()
    #expect(parseError("GET / HTTP/1.1\r\n\(hundredFields)\r\n") == nil)

    #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n") == .bodyTooLarge(limit: 65536))
    let chunk = String(65537, radix: 16)
    #expect(parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(chunk)\r\n") == .bodyTooLarge(limit: 65536))
    let twoChunks =
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8000\r\n\(String(repeating: "x", count: 0x8000))\r\n8001\r\n"
    #expect(parseError(twoChunks) == .bodyTooLarge(limit: 65536))
    let small = HTTPLimits(maxBodyBytes: 4)
    #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", limits: small)?.status == 413)
    #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nhell", limits: small) == nil)
    let manyTrailers = (0..<101).map { "T-\($0): v\r\n" }.joined()
    #expect(parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(manyTrailers)\r\n")?.status == 431)
}

/// The limit errors are built only when a limit is passed (never per line): each still names its limit.
@Test func limitErrorsNameTheirLimit() {
    let small = HTTPLimits(maxStartLineBytes: 16, maxHeaderBytes: 32, maxBodyBytes: 64)
    #expect(
        parseError("GET /\(String(repeating: "a", count: 20)) HTTP/1.1\r\n\r\n", limits: small) == .startLineTooLong(limit: 16))
    let header = "X-Big: " + String(repeating: "b", count: 40) + "\r\n"
    #expect(parseError("GET / HTTP/1.1\r\n\(header)\r\n", limits: small) == .headersTooLarge("header section over 32 bytes"))
    // Still unterminated: the budget applies before the line's CRLF arrives.
    #expect(
        parseError("GET / HTTP/1.1\r\n\(header.dropLast(2))", limits: small) == .headersTooLarge("header section over 32 bytes"))
    let trailer = "T-Big: " + String(repeating: "t", count: 40) + "\r\n"
    #expect(
        parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailer)\r\n", limits: small)
            == .headersTooLarge("trailer section over 32 bytes"))
    let longSize = String(repeating: "0", count: 2_000) + "1"
    #expect(
        parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(longSize)\r\nx\r\n0\r\n\r\n")
            == .malformed("chunk-size line too long"))
}

@Test(arguments: [
    // CL + TE together
    "POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n",
    // differing Content-Length values
    "POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nhello",
    "POST / HTTP/1.1\r\nContent-Length: 4, 5\r\n\r\nhello",
    // non-numeric, signed, empty, spaced, overflowing Content-Length
    "POST / HTTP/1.1\r\nContent-Length: +4\r\n\r\nabcd",
    "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
    "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
    "POST / HTTP/1.1\r\nContent-Length: \r\n\r\n",
    "POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n",
    "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    // Transfer-Encoding other than exactly chunked
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: \"chunked\"\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
    // bad chunk sizes
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n +5\r\nhello\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
])
func smugglingAttemptsAreRefused(_ text: String) {
    let error = parseError(text)
    #expect(error != nil)
    #expect([400, 413, 501].contains(error?.status ?? 0), "\(String(describing: error))")
}

@Test func identicalContentLengthsAreOneLength() throws {
    let requests = try parseAll("POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length: 3, 3\r\n\r\nabc").get()
    #expect(requests.first?.body == Array("abc".utf8))
}

@Test(arguments: [
    "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",  // obs-fold
    "GET / HTTP/1.1\r\nHost : a\r\n\r\n",  // space before colon
    "GET / HTTP/1.1\r\nHo st: a\r\n\r\n",
    "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
    "GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",  // NUL
    "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",  // bare CR
    "GET / HTTP/1.1\nHost: a\n\n",  // bare LF
    "GET  / HTTP/1.1\r\n\r\n",
    "GET / HTTP/1.1 \r\n\r\n",
    "GET /a b HTTP/1.1\r\n\r\n",
    "GET http://example.com/ HTTP/1.1\r\n\r\n",
    "GET /#frag HTTP/1.1\r\n\r\n",
    "G(T / HTTP/1.1\r\n\r\n",
    "GET\r\n\r\n",
    ": empty\r\n\r\n",
    "\r\n\r\n\r\n\r\n\r\n\r\n",
    "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n",  // a TLS hello
])
func malformedRequestsAre400(_ text: String) {
    #expect(parseError(text)?.status == 400)
}

@Test func garbageNeverCrashesAndAlwaysEndsInAnErrorOrNeedMore() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
        let count = Int.random(in: 0..<200, using: &generator)
        var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if Bool.random(using: &generator) { bytes = Array("GET / HTTP/1.1\r\n".utf8) + bytes }
        var parser = HTTPRequestParser()
        parser.append(bytes)
        parser.finishInput()
        do {
            while try parser.nextRequest() != nil {}
        } catch {
            #expect((400...505).contains(error.status))
        }
    }
}

@Test func errorsAreFinal() {
    var parser = HTTPRequestParser()
    parser.append(Array("BAD\r\n".utf8))
    #expect(throws: HTTPError.self) { try parser.nextRequest() }
    parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
    #expect(throws: HTTPError.self) { try parser.nextRequest() }
}

@Test func leadingEmptyLinesAreSkipped() throws {
    let requests = try parseAll("\r\nGET / HTTP/1.1\r\n\r\n").get()
    #expect(requests.count == 1)
}

@Test func chunkSizeLineIsLimited() {
    let extensions = String(repeating: "x", count: 1100)
    let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;\(extensions)\r\na\r\n0\r\n\r\n"
    #expect(parseError(text) == .malformed("chunk-size line too long"))
    #expect(parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\"b\"\r\na\r\n0\r\n\r\n") == nil)
}

/// The request line is cut at its two spaces by index (no split): exactly three parts, each
/// checked as before.
@Test(arguments: [
    "GET / HTTP/1.1 extra\r\n\r\n", "GET /\r\n\r\n", " / HTTP/1.1\r\n\r\n", "GET  HTTP/1.1\r\n\r\n",
    "GET / \r\n\r\n", "GET /  HTTP/1.1\r\n\r\n", "GET\t/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\t\r\n\r\n",
])
func requestLinesWithoutExactlyTwoSpacesAre400(_ text: String) {
    #expect(parseError(text)?.status == 400, "\(text.debugDescription)")
}

@Test func requestLinePartsAreKeptWhole() throws {
    let request = try #require(try parseAll("PATCH /v1/accounts/work?x=a/b HTTP/1.0\r\n\r\n").get().first)
    #expect(request.method == "PATCH")
    #expect(request.target == "/v1/accounts/work?x=a/b")
    #expect(request.version == .http10)
}

/// `path` and `query` are cut at the first `?` of the target's bytes.
@Test(
    arguments: [
        ("/v1/accounts/work/token", "/v1/accounts/work/token", nil), ("/a?", "/a", ""), ("/a?b", "/a", "b"),
        ("/a?b?c=d", "/a", "b?c=d"), ("/?", "/", ""), ("*", "*", nil),
    ] as [(String, String, String?)])
func pathAndQueryAreSplitAtTheFirstQuestionMark(_ target: String, _ path: String, _ query: String?) {
    let request = HTTPRequest(method: "GET", target: target)
    #expect(request.path == path)
    #expect(request.query.map(String.init) == query)
}
