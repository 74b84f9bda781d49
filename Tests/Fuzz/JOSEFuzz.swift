// libFuzzer entry for BrokerCrypto's JOSE parsers: JWS compact serialization, one JWK, a JWKS.
// The first byte picks the parser. Invariants beyond memory safety: a JWS that parses has a
// signing input that is the text before its last dot; a JWKS
// keeps only keys of a supported type; a too-deep document is refused, saying so.
import WireFormats

@testable import BrokerCrypto

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJOSE(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    let tooDeep = (try? JSONNesting.check(body)) == nil
    switch selector % 3 {
    case 0: checkCompact(body)
    case 1: checkKeySet(body, tooDeep: tooDeep)
    default: checkKey(body, tooDeep: tooDeep)
    }
    return 0
}

private func expectDepthError(_ error: JWSError, tooDeep: Bool) {
    if tooDeep { precondition(error.description.contains("deeper than 64 levels"), "\(error)") }
}

private func checkCompact(_ body: [UInt8]) {
    let text = String(decoding: body, as: UTF8.self)
    do throws(JWSError) {
        let jws = try JWSCompact.parse(text)
        let utf8 = Array(text.utf8)
        let lastDot = utf8.lastIndex(of: UInt8(ascii: "."))!
        precondition(jws.signingInput == Array(utf8[..<lastDot]), "the signing input is not the text before the last dot")
    } catch {
        // Refused: any of the documented reasons.
    }
}

private func checkKeySet(_ body: [UInt8], tooDeep: Bool) {
    do throws(JWSError) {
        let set = try JWKSet(json: body)
        precondition(!tooDeep, "a too-deep JWKS parsed")
        precondition(set.keys.allSatisfy { ["RSA", "EC", "OKP"].contains($0.kty) })
    } catch {
        expectDepthError(error, tooDeep: tooDeep)
    }
}

private func checkKey(_ body: [UInt8], tooDeep: Bool) {
    do throws(JWSError) {
        let key = try JWK(json: body)
        precondition(!tooDeep, "a too-deep JWK parsed")
        precondition(key.use == nil || key.use == "sig")
    } catch {
        expectDepthError(error, tooDeep: tooDeep)
    }
}
