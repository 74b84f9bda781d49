import BrokerHTTP
import Foundation
import TestSupport

/// The answers the mock provider builds.
enum MockResponse {
    static func json(_ object: Any, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        let body = (try? TestSigningKey.json(object)) ?? Array("{}".utf8)
        return HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")] + headers),
            body: body)
    }

    /// An RFC 6749 §5.2 error answer.
    static func oauthError(_ error: String, status: Int = 400, description: String? = nil) -> HTTPResponse {
        var object = ["error": error]
        if let description { object["error_description"] = description }
        let headers = status == 401 ? [("WWW-Authenticate", "Basic realm=\"mock\"")] : []
        return json(object, status: status, headers: headers)
    }

    static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: HTTPHeaders([("Location", location), ("Cache-Control", "no-store")]))
    }

    static func fault(_ fault: MockFault) -> HTTPResponse {
        switch fault.kind {
        case .status, .slow:
            let headers = fault.retryAfter.map { [("Retry-After", $0)] } ?? []
            return HTTPResponse(
                status: fault.status ?? 503, headers: HTTPHeaders([("Content-Type", "text/plain")] + headers),
                body: Array("injected failure\n".utf8))
        case .garbageJSON:
            return HTTPResponse(
                status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: Array("<html>not json {".utf8))
        case .invalidGrant:
            return oauthError("invalid_grant", description: "injected")
        case .aadsts:
            return entraError(code: fault.aadstsCode ?? 50173)
        case .html:
            return HTTPResponse(
                status: fault.status ?? 502, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]),
                body: Array(
                    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n"
                        .utf8))
        case .raw:
            return HTTPResponse(
                status: fault.status ?? 400, headers: HTTPHeaders([("Content-Type", fault.contentType ?? "application/json")]),
                body: Array((fault.body ?? "").utf8))
        case .deepArrays, .deepObjects:
            return HTTPResponse(
                status: fault.status ?? 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
                body: fault.kind == .deepArrays
                    ? DeepJSON.arrays(fault.depth ?? DeepJSON.defaultDepth)
                    : DeepJSON.objects(fault.depth ?? DeepJSON.defaultDepth))
        }
    }

    /// `uri` with `fields` appended to its query.
    static func appending(_ fields: [FormField], to uri: String) -> String {
        uri + (uri.contains("?") ? "&" : "?") + FormURLEncoding.encode(fields)
    }
}
