// libFuzzer entry for HTTPRequestParser. Built by run-fuzzers.sh together with the codec sources.
// The first byte picks where the input is split (parsers must not care); every parsed request
// must survive a serialize → parse round trip unchanged.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let split = bytes.first else { return 0 }
    let body = bytes.dropFirst()
    let cut = body.startIndex + Int(split) % (body.count + 1)
    var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 2048, maxHeaderFields: 20, maxBodyBytes: 4096))
    var requests: [HTTPRequest] = []
    do {
        parser.append(body[..<cut])
        while let request = try parser.nextRequest() { requests.append(request) }
        parser.append(body[cut...])
        parser.finishInput()
        while let request = try parser.nextRequest() { requests.append(request) }
    } catch {
        precondition((400...505).contains(error.status))
    }
    for request in requests { checkRoundTrip(request) }
    return 0
}

private func checkRoundTrip(_ request: HTTPRequest) {
    guard let wire = try? request.serialized() else { preconditionFailure("a parsed request must serialize") }
    var again = HTTPRequestParser(limits: .server)
    again.append(wire)
    guard let reparsed = try? again.nextRequest() else { preconditionFailure("a serialized request must parse") }
    precondition(reparsed.method == request.method && reparsed.target == request.target && reparsed.body == request.body)
}
