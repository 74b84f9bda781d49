// libFuzzer target for WireJSON (compiled by run.sh together with the WireJSON and wire type sources,
// so it needs no SwiftPM module). Invariants checked on every input:
// - the parser never crashes, hangs or reads out of bounds (ASan);
// - whatever parses serializes (compact and pretty) to text that parses back to the same value,
//   and serializing is idempotent;
// - whatever decodes as a wire type re-encodes and decodes to an equal value;
// - the nesting gate (WireFormats' JSONNesting) agrees with the parser: it accepts whatever parses and
//   refuses whatever the parser finds too deep.
@testable import WireFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let gateRefuses = (try? JSONNesting.check(bytes)) == nil
    let value: JSONValue
    do {
        value = try WireJSON.parse(bytes, maximumBytes: 1 << 16)
    } catch .tooDeep {
        guard gateRefuses else { fatalError("the parser found nesting the gate let through") }
        return 0
    } catch {
        return 0
    }
    guard !gateRefuses else { fatalError("the gate refused a document the parser accepts") }
    for pretty in [false, true] {
        let text = WireJSON.serialize(value, pretty: pretty)
        guard let again = try? WireJSON.parse(text) else { fatalError("serialized JSON does not parse") }
        guard again == value else { fatalError("serialized JSON parses to a different value") }
        guard WireJSON.serialize(again, pretty: pretty) == text else { fatalError("serialization is not stable") }
    }
    roundTrip(AccountList.self, value)
    roundTrip(TokenGrant.self, value)
    roundTrip(LoginStatus.self, value)
    roundTrip(AccountConfiguration.self, value)
    roundTrip(ErrorEnvelope.self, value)
    roundTrip(PingResult.self, value)
    roundTrip([String: [Int64]].self, value)
    return 0
}

private func roundTrip<Value: Codable & Equatable>(_ type: Value.Type, _ value: JSONValue) {
    guard let decoded = try? WireJSON.decode(type, from: value) else { return }
    guard let bytes = try? WireJSON.encode(decoded) else { fatalError("a decoded \(type) does not encode") }
    guard let again = try? WireJSON.decode(type, from: bytes), again == decoded else {
        fatalError("\(type) does not survive a round trip")
    }
}
