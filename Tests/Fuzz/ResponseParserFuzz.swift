// libFuzzer entry for HTTPResponseParser. The first byte picks the request method (framing
// depends on it) and the split point.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let control = bytes.first else { return 0 }
    let method = ["GET", "HEAD", "CONNECT", "POST"][Int(control & 3)]
    let body = bytes.dropFirst()
    let cut = body.startIndex + Int(control >> 2) % (body.count + 1)
    var parser = HTTPResponseParser(limits: HTTPLimits(maxHeaderBytes: 2048, maxHeaderFields: 20, maxBodyBytes: 4096))
    do {
        parser.append(body[..<cut])
        while let response = try parser.nextResponse(to: method) { check(response) }
        parser.append(body[cut...])
        parser.finishInput()
        while let response = try parser.nextResponse(to: method) { check(response) }
    } catch {
        precondition(!error.description.isEmpty)
    }
    return 0
}

private func check(_ response: HTTPResponse) {
    precondition((100...999).contains(response.status) && response.body.count <= 4096)
}
