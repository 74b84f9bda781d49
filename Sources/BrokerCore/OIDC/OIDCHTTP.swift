import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import WireFormats

/// The few HTTP shapes every OAuth endpoint shares: a form POST with client authentication,
/// a JSON object answer, an RFC 6749 §5.2 error answer.
enum OIDCHTTP {
    static let acceptJSON = HTTPHeaders([("Accept", "application/json")])

    /// Sends through the transport, turning its errors into `OIDCError.transport`.
    static func send(_ request: HTTPClientRequest, _ transport: any HTTPTransport) async throws(OIDCError)
        -> HTTPResponse
    {
        do {
            return try await transport.send(request)
        } catch {
            throw .transport(error)
        }
    }

    /// A form POST to `url` carrying `fields` and the client's authentication (RFC 6749 §2.3):
    /// `client_id` alone for public clients, `client_id` + `client_secret` in the body for
    /// client_secret_post, or an HTTP Basic header built from the form-urlencoded id and secret
    /// (§2.3.1) for client_secret_basic. Secrets are revealed only into the request bytes. Fields
    /// that carry `client_id` themselves (a pushed authorization request's) keep the one they have.
    static func formPost(_ url: EndpointURL, fields: [(String, String)], client: ClientConfiguration) -> HTTPClientRequest {
        var headers = HTTPHeaders([
            ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
        ])
        var body = fields
        let clientID = fields.contains { $0.0 == "client_id" } ? [] : [("client_id", client.clientID)]
        switch client.authentication {
        case .none:
            body += clientID
        case .clientSecretPost(let secret):
            body += clientID
            body.append(("client_secret", secret.revealString()))
        case .clientSecretBasic(let secret):
            headers.add(name: "Authorization", value: basicAuthorization(clientID: client.clientID, secret: secret))
        }
        return HTTPClientRequest(
            method: "POST", url: url.string, headers: headers,
            body: Array(FormURLEncoding.encode(body.map { FormField($0.0, $0.1) }).utf8))
    }

    /// A JSON POST to `url` carrying `fields`, `client_id` and, for a confidential client, its
    /// `client_secret` in the body (WorkOS User Management authenticates clients only that way).
    static func jsonPost(_ url: EndpointURL, fields: [(String, String)], client: ClientConfiguration) -> HTTPClientRequest {
        var object = [String: JSONValue](fields.map { ($0.0, .string($0.1)) }, uniquingKeysWith: { first, _ in first })
        object["client_id"] = .string(client.clientID)
        switch client.authentication {
        case .none: break
        case .clientSecretBasic(let secret), .clientSecretPost(let secret):
            object["client_secret"] = .string(secret.revealString())
        }
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "application/json")])
        return HTTPClientRequest(method: "POST", url: url.string, headers: headers, body: WireJSON.serialize(.object(object)))
    }

    /// `Basic base64(urlencode(id) ":" urlencode(secret))`, RFC 6749 §2.3.1.
    static func basicAuthorization(clientID: String, secret: Secret) -> String {
        let credentials =
            FormURLEncoding.encodeComponent(clientID) + ":"
            + FormURLEncoding.encodeComponent(secret.revealString())
        return "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// The JSON object of a 2xx answer; a non-object or too deeply nested body is a (transient)
    /// malformed response.
    static func jsonObject(_ response: HTTPResponse, endpoint: String) throws(OIDCError) -> [String: JSONValue] {
        do throws(JSONObjectError) {
            return try ProviderJSON.object(from: response.body)
        } catch .tooDeep(let error) {
            throw .malformedResponse(endpoint: endpoint, reason: error.describing("the answer"))
        } catch {
            throw .malformedResponse(endpoint: endpoint, reason: bodyKind(response) + " (HTTP \(response.status))")
        }
    }

    /// What a body that is not a JSON object is, for messages: never its text, which may be a
    /// megabyte of a proxy's HTML.
    static func bodyKind(_ response: HTTPResponse) -> String {
        let type = (response.headers["Content-Type"] ?? "").lowercased()
        let first = response.body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if response.body.isEmpty { return "the body is empty" }
        if type.hasPrefix("text/html") || first == UInt8(ascii: "<") {
            return "an HTML page, not JSON (a proxy, load balancer or captive portal?)"
        }
        if type.hasPrefix("application/x-www-form-urlencoded") {
            return "a form-encoded body, not the JSON asked for with Accept: application/json"
        }
        return "the body is not a JSON object"
    }

    /// The error for a non-success answer: the §5.2 error when the body carries one — or WorkOS's
    /// own `{"code", "message"}` shape (its authentication errors, e.g. `mfa_enrollment`), read the
    /// same way — else the bare status (also when the body nests too deep to be read). Retry-After
    /// is read either way.
    static func failure(_ response: HTTPResponse, endpoint: String, now: Date) -> OIDCError {
        let retryAfter = RetryAfter.from(response.headers, now: now)
        if let object = try? ProviderJSON.object(from: response.body),
            let error = oauthError(in: object, status: response.status, retryAfter: retryAfter, workOSShape: true)
        {
            return error
        }
        return .httpStatus(response.status, endpoint: endpoint, retryAfter: retryAfter)
    }

    /// The §5.2 error `object` carries: a non-empty string `error` (or, with `workOSShape`, WorkOS's
    /// `code`), its description and URI when they are strings (sanitized and bounded by
    /// `OAuthErrorResponse`). nil for an object without one — `error` missing, empty, or a number,
    /// array or object (Google's API errors nest one): then it is not an OAuth answer at all.
    static func oauthError(in object: [String: JSONValue], status: Int, retryAfter: Duration?, workOSShape: Bool = false)
        -> OIDCError?
    {
        let code = object["error"]?.stringValue ?? (workOSShape ? object["code"]?.stringValue : nil)
        guard let code, !code.isEmpty else { return nil }
        let error = OAuthErrorResponse(
            error: code, errorDescription: (object["error_description"] ?? object["message"])?.stringValue,
            errorURI: object["error_uri"]?.stringValue, interval: DeviceAuthorization.pollingInterval(object["interval"]))
        return .oauthError(error, status: status, retryAfter: retryAfter)
    }
}
