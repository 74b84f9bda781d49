import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Synchronization

/// A transport that records every request and answers from canned replies per URL (query
/// ignored). Each URL's replies are used in order; the last one repeats. Unknown URLs get 404.
final class FakeTransport: HTTPTransport {
    enum Reply: Sendable {
        case response(HTTPResponse)
        case failure(HTTPClientError)
    }

    private let state = Mutex<(routes: [String: [Reply]], requests: [HTTPClientRequest])>(([:], []))

    init(_ routes: [String: [Reply]] = [:]) {
        state.withLock { $0.routes = routes }
    }

    func on(_ url: String, _ replies: Reply...) {
        state.withLock { $0.routes[url] = replies }
    }

    var requests: [HTTPClientRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let url = String(request.url.split(separator: "?", maxSplits: 1)[0])
        let reply: Reply? = state.withLock { state in
            state.requests.append(request)
            guard var replies = state.routes[url], !replies.isEmpty else { return nil }
            let first = replies.count > 1 ? replies.removeFirst() : replies[0]
            state.routes[url] = replies
            return first
        }
        switch reply {
        case .response(let response): return response
        case .failure(let error): throw error
        case nil: return HTTPResponse(status: 404)
        }
    }
}

extension FakeTransport.Reply {
    static func json(_ object: Any, status: Int = 200, headers: [(String, String)] = []) -> Self {
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return .response(
            HTTPResponse(
                status: status, headers: HTTPHeaders([("Content-Type", "application/json")] + headers), body: Array(body)))
    }

    static func status(_ status: Int, headers: [(String, String)] = [], body: String = "") -> Self {
        .response(HTTPResponse(status: status, headers: HTTPHeaders(headers), body: Array(body.utf8)))
    }
}

/// Manual time: wall clock and monotonic clock advance only when a test (or `sleep`) says so.
final class TestTime: Sendable {
    private let state: Mutex<(wall: Date, monotonic: Duration, sleeps: [Duration])>

    init(wall: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex((wall, .zero, []))
    }

    var now: Date { state.withLock { $0.wall } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(_ duration: Duration) {
        state.withLock {
            $0.monotonic += duration
            $0.wall = $0.wall.addingTimeInterval(Double(duration.components.seconds))
        }
    }

    var time: OIDCTime {
        OIDCTime(
            now: { self.state.withLock { $0.wall } }, elapsed: { self.state.withLock { $0.monotonic } },
            sleep: { duration in
                self.state.withLock { $0.sleeps.append(duration) }
                self.advance(duration)
            })
    }
}

/// Fixed randomness so authorization URLs can be asserted exactly: each call returns bytes
/// 0, 1, 2… continuing from the previous call.
func countingRandom() -> RandomBytes {
    let counter = Mutex<UInt8>(0)
    return RandomBytes { count in
        counter.withLock { next in
            (0..<count).map { _ in
                defer { next &+= 1 }
                return next
            }
        }
    }
}

/// Decodes a form body or query into a dictionary (tests assert on distinct names).
func formFields(_ bytes: [UInt8]) -> [String: String] {
    let fields = (try? FormURLEncoding.decode(String(decoding: bytes, as: UTF8.self))) ?? []
    return Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
}

func queryFields(_ url: String) -> [FormField] {
    guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
    return (try? FormURLEncoding.decode(query)) ?? []
}

let testIssuer = "https://id.example.com"

func testMetadata(issuer: String = testIssuer) -> ProviderMetadata {
    ProviderMetadata(
        issuer: issuer, authorizationEndpoint: "\(issuer)/authorize", tokenEndpoint: "\(issuer)/token",
        jwksURI: "\(issuer)/jwks", userinfoEndpoint: "\(issuer)/userinfo", revocationEndpoint: "\(issuer)/revoke",
        endSessionEndpoint: "\(issuer)/logout", deviceAuthorizationEndpoint: "\(issuer)/device")
}
