import BrokerCore
import BrokerHTTP
import Foundation
import MockProvider
import Synchronization
import TestSupport
import Testing

/// A provider that answers with 10,000 nested arrays or objects (~20–60 KB) at every endpoint:
/// each answer must end in a clear error naming the 64-level limit, never in a crash. Before the
/// nesting gate, the token answer at login killed the process (SIGSEGV on the 512 KiB listener
/// thread); elsewhere the error said only "not a JSON object".
@Suite struct MockProviderDeepJSONTests {
    static let deepKinds: [MockFault.Kind] = [.deepArrays, .deepObjects]
    static let limitText = "nests JSON deeper than 64 levels"

    @Test(arguments: deepKinds)
    func aDeepTokenAnswerAtLoginIsAClearErrorAndTheNextLoginWorks(_ kind: MockFault.Kind) async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        harness.provider.configure { $0.faults["token"] = MockFault(kind, remaining: 1) }
        let (result, page) = try await harness.login()
        #expect(result == .failure(.malformedResponse(endpoint: "token_endpoint", reason: "the answer \(Self.limitText)")))
        #expect(page.status == 400 && page.text.contains(Self.limitText))
        #expect(try await harness.loggedIn().subject == "mock-user")
    }

    /// Under FoundationEssentials' own 512-level limit, the recursive decoder is what overflowed
    /// the listener thread's 512 KiB (175 objects or 300 arrays); such answers now fail cleanly.
    @Test(arguments: [(MockFault.Kind.deepObjects, 500), (.deepArrays, 500), (.deepObjects, 180), (.deepArrays, 300)])
    func answersThatOverflowedTheListenerThreadAreClearErrors(_ kind: MockFault.Kind, _ depth: Int) async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        harness.provider.configure { $0.faults["token"] = MockFault(kind, remaining: 1, depth: depth) }
        let (result, page) = try await harness.login()
        #expect(result == .failure(.malformedResponse(endpoint: "token_endpoint", reason: "the answer \(Self.limitText)")))
        #expect(page.status == 400)
    }

    @Test(arguments: deepKinds)
    func aDeepTokenAnswerAtRefreshIsATransientError(_ kind: MockFault.Kind) async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        harness.provider.configure { $0.faults["token"] = MockFault(kind, remaining: 1) }
        await #expect(throws: OIDCError.malformedResponse(endpoint: "token_endpoint", reason: "the answer \(Self.limitText)")) {
            try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
        }
        // Transient: the refresh token was never rotated out, the next refresh works.
        #expect(
            try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
                .refreshToken != nil)
    }

    /// At refresh, too: a refreshed ID token with a deep payload, and a deep error body.
    @Test func aDeepRefreshedIDTokenAndADeepErrorBodyAtRefreshAreClearErrors() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        harness.provider.configure { $0.idTokenDefect = .deepPayload }
        await #expect(throws: OIDCError.idToken(.malformed("the payload \(Self.limitText)"))) {
            try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
        }
        harness.provider.configure {
            $0.idTokenDefect = nil
            $0.faults["token"] = MockFault(.deepArrays, status: 400, remaining: 1)
        }
        do {
            _ = try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
            Issue.record("a deep 400 must fail the refresh")
        } catch {
            #expect(error == .httpStatus(400, endpoint: "token_endpoint", retryAfter: nil) && error.disposition == .terminal)
        }
    }

    /// An error answer nested too deep is no §5.2 error: the bare status decides (here terminal).
    @Test func aDeepErrorBodyFallsBackToItsStatus() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        harness.provider.configure { $0.faults["token"] = MockFault(.deepObjects, status: 400, remaining: 1) }
        let (result, page) = try await harness.login()
        #expect(result == .failure(.httpStatus(400, endpoint: "token_endpoint", retryAfter: nil)))
        #expect(page.status == 400)
    }

    @Test(arguments: deepKinds)
    func deepDiscoveryDocumentsAreRefusedWithoutFallingBack(_ kind: MockFault.Kind) async throws {
        let provider = try MockProvider()
        defer { Task { await provider.stop() } }
        provider.configure { $0.faults["discovery"] = MockFault(kind) }
        let client = OIDCClient(transport: try MockProviderHarness.httpClient())
        let url = provider.issuer + "/.well-known/openid-configuration"
        await #expect(throws: OIDCError.malformedResponse(endpoint: url, reason: "the metadata document \(Self.limitText)")) {
            try await client.discover(issuer: provider.issuer)
        }
        #expect(provider.stats.discoveryRequests == 0, "faults answer before the endpoint counts")
    }

    @Test(arguments: deepKinds)
    func aDeepJWKSFailsTheLoginClearly(_ kind: MockFault.Kind) async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        harness.provider.configure { $0.faults["jwks"] = MockFault(kind) }
        let (result, page) = try await harness.login()
        guard case .failure(let error) = result else {
            Issue.record("a deep JWKS must fail the login")
            return
        }
        #expect("\(error)".contains("the JWKS \(Self.limitText)"), "\(error)")
        #expect(page.status == 400)
    }

    @Test func aDeepIDTokenPayloadIsRefused() async throws {
        var knobs = MockProviderConfiguration()
        knobs.idTokenDefect = .deepPayload
        let harness = try await MockProviderHarness(knobs)
        defer { Task { await harness.stop() } }
        let (result, page) = try await harness.login()
        #expect(result == .failure(.idToken(.malformed("the payload \(Self.limitText)"))))
        #expect(page.status == 400)
    }

    @Test(arguments: deepKinds)
    func deepUserinfoAndDeviceAnswersAreClearErrors(_ kind: MockFault.Kind) async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        harness.provider.configure {
            $0.faults["userinfo"] = MockFault(kind)
            $0.faults["device"] = MockFault(kind)
        }
        await #expect(throws: OIDCError.malformedResponse(endpoint: "userinfo_endpoint", reason: "the answer \(Self.limitText)"))
        {
            try await harness.client.userInfo(metadata: harness.metadata, tokens: login.tokens)
        }
        await #expect(
            throws: OIDCError.malformedResponse(endpoint: "device_authorization_endpoint", reason: "the answer \(Self.limitText)")
        ) {
            try await DeviceLoginSession.start(
                client: harness.client, metadata: harness.metadata, configuration: harness.configuration)
        }
    }

    /// The callback's handler runs on the listener's connection thread (a 512 KiB stack, its
    /// task executor preferred); the code exchange must not: it runs with no executor preference,
    /// so on the global pool.
    @Test func theCodeExchangeDoesNotRunOnTheListenerThread() async throws {
        let provider = try MockProvider()
        defer { Task { await provider.stop() } }
        let transport = ExecutorRecordingTransport(try MockProviderHarness.httpClient())
        let client = OIDCClient(transport: transport)
        let metadata = try await client.discover(issuer: provider.issuer).cached.metadata
        let session = try await LoginSession.start(
            client: client, metadata: metadata,
            configuration: ClientConfiguration(clientID: "mock-client", scopes: ["openid"]))
        #expect(try await MockProviderHarness.browse(session).status == 200)
        _ = try await session.result().get()
        let tokenRequests = transport.preferredExecutorPerRequest.filter { $0.url.hasSuffix("/token") }
        #expect(tokenRequests.count == 1)
        #expect(tokenRequests.allSatisfy { !$0.hadPreference })
    }
}

/// Records, per request, whether the sending task preferred a task executor (the listener's).
final class ExecutorRecordingTransport: HTTPTransport {
    private let inner: HTTPClient
    private let records = Mutex<[(url: String, hadPreference: Bool)]>([])

    init(_ inner: HTTPClient) { self.inner = inner }

    var preferredExecutorPerRequest: [(url: String, hadPreference: Bool)] { records.withLock { $0 } }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
        records.withLock { $0.append((request.url, preferred)) }
        return try await inner.send(request)
    }
}
