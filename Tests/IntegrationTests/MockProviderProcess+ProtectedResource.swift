import BrokerHTTP
import Foundation
import TestSupport

/// The mock's protected-resource mode (`Tests/MockProvider/MockProtectedResource.swift`) as the
/// integration tests read it: its counters and its resource.
extension MockProviderProcess {
    /// `MockProtectedResourceStats`, the subset the tests read.
    struct ProtectedResourceStats: Decodable, Equatable {
        var resourceParameters: [String]
        var invalidTargets: Int
        var challenges: Int
        var metadataRequests: Int
        var serverMetadataRequests: [String]
        var registrations: Int
        var registrationReads: Int
        var registrationDeletes: Int
        var resourceCalls: Int
    }

    private struct Envelope: Decodable { var protectedResource: ProtectedResourceStats }

    var protectedResourceStats: ProtectedResourceStats {
        get async throws {
            let answer = try await client.send(HTTPClientRequest(url: issuer + "/_mock/stats"))
            return try JSONDecoder().decode(Envelope.self, from: Data(answer.body)).protectedResource
        }
    }

    /// The mock's origin (the issuer without its path): where the resource and its metadata live.
    var origin: String {
        let afterScheme = issuer.dropFirst("http://".count)
        return "http://" + afterScheme.prefix { $0 != "/" }
    }

    /// The status of a GET of the resource at `path` with `token` as a Bearer token.
    func callResource(_ path: String = "/mcp", token: String) async throws -> Int {
        let headers = HTTPHeaders([("Authorization", "Bearer \(token)")])
        return try await client.send(HTTPClientRequest(url: origin + path, headers: headers)).status
    }
}
