import BrokerHTTP
import Synchronization

/// The outbound HTTPS client, replaceable on SIGHUP so a changed CA file takes effect without a
/// restart. Requests in flight finish on the client they started with.
final class ReloadableTransport: HTTPTransport {
    private let configuration: HTTPClientConfiguration
    private let client: Mutex<HTTPClient>

    init(configuration: HTTPClientConfiguration) throws(DaemonError) {
        self.configuration = configuration
        client = Mutex(try Self.makeClient(configuration))
    }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let current = client.withLock { $0 }
        return try await current.send(request)
    }

    /// Builds a new client (re-reading the CA file) and swaps it in; on failure the old one stays.
    func reload() throws(DaemonError) {
        let fresh = try Self.makeClient(configuration)
        client.withLock { $0 = fresh }
    }

    private static func makeClient(_ configuration: HTTPClientConfiguration) throws(DaemonError) -> HTTPClient {
        do { return try HTTPClient(configuration: configuration) } catch { throw .transport("\(error)") }
    }
}
