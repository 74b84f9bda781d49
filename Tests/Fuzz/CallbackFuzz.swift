// libFuzzer entry for the loopback redirect's callback decoding (LoginCallback: request target,
// pasted URL, FormURLEncoding of the query) in the real BrokerCore module. The first byte picks
// target or paste; "STATE" in the input is replaced by the pending login's real state, so the
// fuzzer can reach every check. Invariants: only the exact path with the right state and iss
// completes; the first request on the path ends the login and every later one is a replay.
import FoundationEssentials
@testable import BrokerCore
@testable import BrokerHTTP

private let issuer = "https://idp.example"
private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let pending: PendingAuthorization = {
    let metadata = ProviderMetadata(
        issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
        jwksURI: issuer + "/jwks")
    let random = RandomBytes { Array(repeating: 7, count: $0) }
    return try! AuthorizationRequest.make(
        metadata: metadata, client: ClientConfiguration(clientID: "c", scopes: ["openid"]),
        redirectURI: try! RedirectURI(port: 49152), now: now, randomBytes: random
    ).pendingLogin
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallback(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        .replacing("STATE", with: pending.state).replacing("ISS", with: issuer)
    var callback = LoginCallback(pendingLogin: pending)
    let first = selector % 2 == 0 ? callback.handle(target: text, now: now) : callback.handlePasted(url: text, now: now)
    switch first {
    case .notForUs:
        precondition(!callback.isFinished, "a request that was not for us ended the login")
    case .completed(let code, _):
        precondition(!code.revealString().isEmpty)
        if selector % 2 == 0 { completedQueryIsValid(text) }
        replayIsRefused(&callback, text)
    case .failed(let error, let response):
        precondition(error != .loginAlreadyFinished && (400...499).contains(response.status))
        replayIsRefused(&callback, text)
    }
    return 0
}

/// A completed target is the exact redirect path with one `state` equal to the login's and the
/// promised `iss` (the metadata here promises none, but a present one must match).
private func completedQueryIsValid(_ target: String) {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    precondition(parts[0] == pending.redirectURI.path, "completed on another path")
    let fields = (try? FormURLEncoding.decode(parts.count > 1 ? parts[1] : "")) ?? []
    precondition(fields.filter { $0.name == "state" }.map(\.value) == [pending.state], "completed without the state")
    precondition(fields.filter { $0.name == "iss" }.allSatisfy { $0.value == issuer }, "completed with another iss")
    precondition(!fields.contains { $0.name == "error" }, "completed with an error")
}

private func replayIsRefused(_ callback: inout LoginCallback, _ text: String) {
    precondition(callback.isFinished)
    let again = callback.handlePasted(url: "http://127.0.0.1:49152" + pending.redirectURI.path + "?code=x&state=" + pending.state, now: now)
    guard case .failed(.loginAlreadyFinished, _) = again else { preconditionFailure("a replay was not refused") }
}
