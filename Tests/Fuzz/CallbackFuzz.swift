import BrokerProtocol
// libFuzzer entry for the redirect's callback decoding (LoginCallback: loopback request target,
// pasted URL, FormURLEncoding of the query; and the private-use scheme URL `authctl callback`
// hands over, with `claims(url:)`, the callback route's choice of pending login) in the real
// BrokerCore module. The first byte picks loopback target, loopback paste, or one of two
// private-use redirects (`scheme://host/path` and `scheme:/path`); "STATE", "ISS" and "REDIRECT"
// in the input become the pending login's state, issuer and redirect URI, so the fuzzer can reach
// every check. Invariants: only the exact redirect with the right state and iss completes; the
// first request on it ends the login and every later one is a replay; a private-use URL that
// claims the login is never "not for us", and one that does not claim it never completes.
import FoundationEssentials

@testable import BrokerCore
@testable import BrokerHTTP

private let issuer = "https://idp.example"
private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let pending = pendingLogin(redirectingTo: try! RedirectURI(port: 49152))
private let privateUse = ["shop.4242.app://callback", "com.example.app:/oauth/callback"].map {
    pendingLogin(redirectingTo: RedirectURI(privateUse: try! PrivateUseRedirectURI(parsing: $0)))
}

private func pendingLogin(redirectingTo redirectURI: RedirectURI) -> PendingAuthorization {
    let metadata = ProviderMetadata(
        issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
        jwksURI: issuer + "/jwks")
    let random = RandomBytes { Array(repeating: 7, count: $0) }
    return try! AuthorizationRequest.make(
        metadata: metadata, client: ClientConfiguration(clientID: "c", scopes: ["openid"]),
        redirectURI: redirectURI, now: now, randomBytes: random
    ).pendingLogin
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallback(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    if selector % 4 >= 2 { return fuzzPrivateUse(privateUse[Int(selector % 4) - 2], Array(bytes.dropFirst())) }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        .replacing("STATE", with: pending.state).replacing("ISS", with: issuer)
    var callback = LoginCallback(pendingLogin: pending)
    let first = selector % 2 == 0 ? callback.handle(target: text, now: now) : callback.handlePasted(url: text, now: now)
    switch first {
    case .notForUs:
        precondition(!callback.isFinished, "a request that was not for us ended the login")
    case .completed(let code, _):
        precondition(!code.revealString().isEmpty)
        if selector % 2 == 0 {
            let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            precondition(parts[0] == pending.redirectURI.path, "completed on another path")
            completedQueryIsValid(parts.count > 1 ? parts[1] : "")
        }
        replayIsRefused(&callback)
    case .failed(let error, let response):
        precondition(error != .loginAlreadyFinished && (400...499).contains(response.status))
        replayIsRefused(&callback)
    }
    return 0
}

/// `authctl callback URL` for a login redirecting to a private-use scheme: the loopback path never
/// ends it; `claims` (the route's constant-time pick) agrees with what `handlePasted` does.
private func fuzzPrivateUse(_ login: PendingAuthorization, _ bytes: [UInt8]) -> CInt {
    let uri = login.redirectURI.privateUse!
    let url = String(decoding: bytes, as: UTF8.self)
        .replacing("REDIRECT", with: uri.description).replacing("STATE", with: login.state).replacing("ISS", with: issuer)
    var callback = LoginCallback(pendingLogin: login)
    guard case .notForUs = callback.handle(target: url, now: now), !callback.isFinished else {
        preconditionFailure("a loopback request ended a private-use login")
    }
    let claimed = callback.claims(url: url)
    switch callback.handlePasted(url: url, now: now) {
    case .notForUs:
        precondition(!claimed && !callback.isFinished, "a claimed URL was not for us, or one not for us ended the login")
    case .completed(let code, _):
        precondition(claimed && !code.revealString().isEmpty, "completed without claiming the login")
        let trimmed = url.filter { !$0.isWhitespace }
        let query = uri.callbackQuery(trimmed)
        precondition(query != nil, "completed on another scheme, host or path")
        completedQueryIsValid(query!, state: login.state)
        replayIsRefused(&callback, replay: uri.description + "?code=x&state=" + login.state)
    case .failed(let error, let response):
        precondition(error != .loginAlreadyFinished && (400...499).contains(response.status))
        replayIsRefused(&callback, replay: uri.description + "?code=x&state=" + login.state)
    }
    return 0
}

/// A completed query has one `state` equal to the login's and the promised `iss` (the metadata
/// here promises none, but a present one must match), and no `error`.
private func completedQueryIsValid(_ query: Substring, state: String = pending.state) {
    let fields = (try? FormURLEncoding.decode(query)) ?? []
    precondition(fields.filter { $0.name == "state" }.map(\.value) == [state], "completed without the state")
    precondition(fields.filter { $0.name == "iss" }.allSatisfy { $0.value == issuer }, "completed with another iss")
    precondition(!fields.contains { $0.name == "error" }, "completed with an error")
}

private func replayIsRefused(
    _ callback: inout LoginCallback,
    replay: String = "http://127.0.0.1:49152" + pending.redirectURI.path + "?code=x&state=" + pending.state
) {
    precondition(callback.isFinished)
    let again = callback.handlePasted(url: replay, now: now)
    guard case .failed(.loginAlreadyFinished, _) = again else { preconditionFailure("a replay was not refused") }
}
