import WireFormats

/// A transport that sends every request with `pins` (an account's `--pin-sha256`), so no
/// request made for that account — discovery, JWKS, token, revocation, userinfo, device —
/// can skip the check.
public struct PinnedTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let pins: PublicKeyPins

    public init(base: any HTTPTransport, pins: PublicKeyPins) {
        self.base = base
        self.pins = pins
    }

    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        var pinned = request
        pinned.pins = pins
        return try await base.send(pinned)
    }
}
