import BrokerProtocol
// libFuzzer entry for the daemon's parsers of provider answers and socket request bodies, over
// the real BrokerCore module (built by run-fuzzers.sh with -enable-testing). The first byte picks
// the parser; the rest is the body. Invariants beyond memory safety and no stack overflow:
// - the nesting gate decides first: a body it refuses never parses, and the error says why;
// - whatever parses satisfies the parser's contract (Bearer, non-empty token, bounded numbers,
//   a displayable user id), for form and json token answers alike.
import FoundationEssentials
import WireFormats

@testable import BrokerCore
@testable import BrokerHTTP

private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let issuer = "https://idp.example"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProviderAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    let tooDeep = (try? JSONNesting.check(body)) == nil
    let answer = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    switch selector % 8 {
    case 0: checkToken(answer, tooDeep: tooDeep, format: selector & 0x80 == 0 ? .form : .json)
    case 1: checkError(body, selector: selector)
    case 2: checkUserInfo(answer, tooDeep: tooDeep)
    case 3 where selector & 0x80 == 0: checkDevice(answer, tooDeep: tooDeep)
    case 3: checkPushedAuthorization(body, tooDeep: tooDeep)
    case 4: checkDiscovery(answer, tooDeep: tooDeep)
    case 5: checkIDTokenClaims(body, tooDeep: tooDeep)
    case 6: checkSocketBody(body, tooDeep: tooDeep)
    default: checkObject(body, tooDeep: tooDeep)
    }
    return 0
}

/// A refused-as-too-deep parse must say so; a too-deep body must never parse.
private func expectDepthError(_ text: String, tooDeep: Bool) {
    if tooDeep { precondition(text.contains("deeper than 64 levels"), "too-deep body gave: \(text)") }
}

private func checkToken(_ answer: HTTPResponse, tooDeep: Bool, format: TokenRequestFormat) {
    do throws(OIDCError) {
        let token = try TokenResponse.parse(answer, now: now, format: format)
        precondition(!tooDeep, "a too-deep token answer parsed")
        precondition(token.tokenType == "Bearer" && !token.accessToken.revealString().isEmpty)
        precondition(token.expiresIn.map { (0..<1_000_000_000).contains($0) } ?? true)
        // The user id is displayed: printable ASCII without spaces, 1–255 bytes.
        precondition(
            token.userID.map { (1...255).contains($0.utf8.count) && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) } } ?? true)
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

/// Error answers as they come (issue 12): any body under the statuses and content types that
/// matter. Whatever it is, the message is bounded and free of control characters, and only a §5.2
/// object with a grant-rejection code at 200/400/401 may ever delete a refresh token.
private func checkError(_ body: [UInt8], selector: UInt8) {
    let statuses = [400, 401, 200, 403, 502, 503, 404, 302]
    let status = statuses[Int(selector >> 3) % statuses.count]
    let type = selector & 0x40 == 0 ? "application/json" : "text/html"
    let answer = HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", type)]), body: body)
    let error: OIDCError
    if status == 200 {
        do throws(OIDCError) {
            _ = try TokenResponse.parse(answer, now: now)
            return
        } catch let failure {
            error = failure
        }
    } else {
        error = OIDCHTTP.failure(answer, endpoint: "token_endpoint", now: now)
    }
    switch error {
    case .oauthError(_, let found, _), .httpStatus(let found, _, _): precondition(found == status)
    case .malformedResponse, .unsupportedTokenType: precondition(status == 200)
    default: preconditionFailure("an error answer must be an OAuth error, a bare status or a malformed answer: \(error)")
    }
    let text = error.description
    precondition(text.unicodeScalars.count < 2_000, "unbounded provider text in a message")
    precondition(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character in a message")
    if error.rejectsGrant {
        guard case .oauthError(let response, _, _) = error else { preconditionFailure("only an OAuth error rejects a grant") }
        precondition([200, 400, 401].contains(status) && OIDCError.grantRejections.contains(response.error))
    }
    if case .terminal = error.refreshDisposition { precondition(error.rejectsGrant, "a refresh token deleted on \(error)") }
}

private func checkUserInfo(_ answer: HTTPResponse, tooDeep: Bool) {
    do throws(OIDCError) {
        _ = try UserInfo.parse(answer, expectedSubject: nil, now: now)
        precondition(!tooDeep, "a too-deep userinfo answer parsed")
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

private func checkDevice(_ answer: HTTPResponse, tooDeep: Bool) {
    do throws(OIDCError) {
        let device = try DeviceAuthorization.parse(answer, now: now)
        precondition(!tooDeep, "a too-deep device answer parsed")
        precondition(device.interval >= .seconds(1) && device.interval <= .seconds(300))
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

/// RFC 9126 §2.2 answers: what parses is a bounded absolute URI and a lifetime of 1 s to a day.
private func checkPushedAuthorization(_ body: [UInt8], tooDeep: Bool) {
    let answer = HTTPResponse(status: 201, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    do throws(OIDCError) {
        let pushed = try PushedAuthorization.parse(answer, now: now)
        precondition(!tooDeep, "a too-deep PAR answer parsed")
        precondition(PushedAuthorization.isAbsoluteURI(pushed.requestURI))
        precondition(pushed.requestURI.utf8.count <= PushedAuthorization.maximumRequestURIBytes)
        precondition((1...PushedAuthorization.maximumExpiresIn).contains(pushed.expiresIn))
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

private func checkDiscovery(_ answer: HTTPResponse, tooDeep: Bool) {
    do throws(OIDCError) {
        let url = issuer + "/.well-known/openid-configuration"
        let metadata = try Discovery.readDocument(answer, url: url, expectedIssuer: issuer, now: now)
        precondition(!tooDeep || metadata == nil, "a too-deep discovery document was read")
        precondition(metadata.map { $0.issuer == issuer } ?? true, "a document of another issuer was read")
        if tooDeep { preconditionFailure("a too-deep discovery document must throw") }
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

private func checkIDTokenClaims(_ payload: [UInt8], tooDeep: Bool) {
    do throws(IDTokenError) {
        _ = try IDTokenClaims(payload: payload)
        precondition(!tooDeep, "a too-deep ID token payload parsed")
    } catch {
        expectDepthError(error.description, tooDeep: tooDeep)
    }
}

private func checkSocketBody(_ body: [UInt8], tooDeep: Bool) {
    let request = HTTPRequest(
        method: "POST", target: "/v1/accounts", headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    do throws(WireError) {
        _ = try RouterBody.decode(AccountConfiguration.self, from: request, emptyAllowed: true)
        precondition(!tooDeep, "a too-deep socket body decoded")
    } catch {
        precondition(error.code == .invalidRequest)
        expectDepthError(error.message, tooDeep: tooDeep)
    }
}

private func checkObject(_ body: [UInt8], tooDeep: Bool) {
    do throws(JSONObjectError) {
        _ = try ProviderJSON.object(from: body)
        precondition(!tooDeep)
    } catch .tooDeep {
        precondition(tooDeep)
    } catch {
        // Not JSON, or not an object: fine.
    }
}
