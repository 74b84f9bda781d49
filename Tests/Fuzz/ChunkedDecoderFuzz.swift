// libFuzzer entry for HTTPChunkedDecoder on its own: arbitrary bytes, fed in two pieces with
// the consumed prefix dropped in between (what the parser does when it compacts its buffer).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkedDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let split = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let cut = Int(split) % (input.count + 1)
    var decoder = HTTPChunkedDecoder(limits: HTTPLimits(maxHeaderBytes: 1024, maxHeaderFields: 10, maxBodyBytes: 2048))
    var body: [UInt8] = []
    var position = 0
    do {
        let first = Array(input[..<cut])
        if try decoder.decode(first, position: &position, into: &body) { return 0 }
        precondition(position <= first.count)
        let rest = Array(first[position...]) + input[cut...]
        decoder.rebase(by: position)
        position = 0
        _ = try decoder.decode(rest, position: &position, into: &body)
        precondition(position <= rest.count)
    } catch {
        precondition([400, 413, 431].contains(error.status))
    }
    precondition(body.count <= 2048)
    return 0
}
