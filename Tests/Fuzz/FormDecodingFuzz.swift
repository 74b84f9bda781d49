// libFuzzer entry for FormURLEncoding (WireFormats): the decoder of the loopback callback's query
// and of form bodies. Built with the codec sources like the HTTP targets. Invariants: decoding
// never crashes; decoded fields re-encode to text that decodes to the same fields; a component
// decodes to valid text or throws; encoding a component leaves only unreserved bytes and '%XX'.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let fields = try? FormURLEncoding.decode(text) {
        let encoded = FormURLEncoding.encode(fields)
        guard let again = try? FormURLEncoding.decode(encoded) else { preconditionFailure("encoded fields do not decode") }
        precondition(again == fields, "fields do not survive a round trip")
    }
    if let component = try? FormURLEncoding.decodeComponent(bytes) {
        let encoded = FormURLEncoding.encodeComponent(component)
        precondition(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "=") })
        precondition(
            (try? FormURLEncoding.decodeComponent(Array(encoded.utf8))) == component, "a component does not survive a round trip")
    }
    return 0
}
