import BrokerHTTP
import BrokerProtocol
import FoundationEssentials

/// Pushed authorization requests (RFC 9126): whether a login pushes, the push request, and the
/// answer. Pure values, tested without I/O; `OIDCClient.pushAuthorization` sends the request.
enum PushedAuthorization {
    static let endpointKey = ProviderEndpoint.pushedAuthorizationRequest.metadataKey

    /// The longest `request_uri` taken: it goes into the browser URL, where ~2 KB is what every
    /// browser and proxy carries (real ones are ~60 bytes: `urn:ietf:params:oauth:request_uri:` + a nonce).
    static let maximumRequestURIBytes = 1024
    /// RFC 9126 §2.2 shows 60–90 s; an answer claiming more than a day is not a single-use reference.
    static let maximumExpiresIn = 86_400

    /// The endpoint to push to, or nil when the parameters travel in the browser URL. Throws when
    /// the account's `--par` and the provider disagree: `always` without an endpoint, `never` (or
    /// `auto` without an endpoint) when the metadata says PAR is required.
    static func endpoint(mode: PushedAuthorizationMode, metadata: ProviderMetadata) throws(OIDCError) -> EndpointURL? {
        let listed = metadata.url(of: .pushedAuthorizationRequest) != nil
        switch mode {
        case .never where metadata.requiresPushedAuthorizationRequests:
            throw .invalidConfiguration(
                "the provider requires pushed authorization requests (require_pushed_authorization_requests), "
                    + "but the account says --par never; add the account again with --par auto")
        case .never:
            return nil
        case .always where !listed:
            throw .invalidConfiguration(
                "the account says --par always, but the provider lists no \(endpointKey); "
                    + "give it with --par-endpoint URL or use --par auto")
        case .auto where !listed && metadata.requiresPushedAuthorizationRequests:
            throw .missingEndpoint(.pushedAuthorizationRequest)
        case .auto where !listed:
            return nil
        case .auto, .always:
            return try metadata.endpoint(.pushedAuthorizationRequest)
        }
    }

    /// RFC 9126 §2.1: every authorization parameter, form-encoded, with the client authentication
    /// of the token endpoint — through the same `OIDCHTTP.formPost` as every token-endpoint call,
    /// so a header those calls gain (a DPoP proof) reaches the push with the same change.
    static func request(_ parameters: [FormField], to endpoint: EndpointURL, client: ClientConfiguration) -> HTTPClientRequest {
        OIDCHTTP.formPost(endpoint, fields: parameters.map { ($0.name, $0.value) }, client: client)
    }

    /// RFC 9126 §2.2's answer: `request_uri` and `expires_in`.
    struct Answer: Sendable, Equatable {
        var requestURI: String
        var expiresIn: Int
    }

    /// Reads the answer: 201 (200 also taken: it carries the same body) with a bounded absolute
    /// `request_uri` and a positive, bounded integer `expires_in` (a quoted number read as the
    /// token answer reads one); an RFC 6749 §5.2 error as the
    /// provider refusing the login (§2.3: invalid_request, invalid_client …), other statuses as
    /// they are (HTTP status, Retry-After).
    static func parse(_ response: HTTPResponse, now: Date) throws(OIDCError) -> Answer {
        guard response.status == 201 || response.status == 200 else {
            let failure = OIDCHTTP.failure(response, endpoint: endpointKey, now: now)
            guard case .oauthError(let error, let status, _) = failure else { throw failure }
            throw .authorizationFailed(
                error: error.error,
                description: "pushed authorization request, HTTP \(status)" + (error.errorDescription.map { ": \($0)" } ?? ""))
        }
        let object = try OIDCHTTP.jsonObject(response, endpoint: endpointKey)
        guard let requestURI = object["request_uri"]?.stringValue else {
            throw .malformedResponse(endpoint: endpointKey, reason: "no request_uri string")
        }
        guard isAbsoluteURI(requestURI) else {
            throw .malformedResponse(
                endpoint: endpointKey,
                reason: "request_uri is not an absolute URI of at most \(maximumRequestURIBytes) printable ASCII bytes")
        }
        guard let seconds = object["expires_in"]?.numberValue, seconds.rounded() == seconds, seconds >= 1,
            seconds <= Double(maximumExpiresIn)
        else {
            throw .malformedResponse(
                endpoint: endpointKey, reason: "expires_in is not a whole number of seconds from 1 to \(maximumExpiresIn)")
        }
        return Answer(requestURI: requestURI, expiresIn: Int(seconds))
    }

    /// RFC 3986 §3 `scheme ":" hier-part`: a letter, then letters, digits, "+", "-" or "."; a colon;
    /// something after it; visible ASCII only (no space, no control character), within the bound.
    static func isAbsoluteURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumRequestURIBytes, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1
        else { return false }
        let scheme = bytes[..<colon]
        return isLetter(scheme[scheme.startIndex])
            && scheme.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || [0x2B, 0x2D, 0x2E].contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
