import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

/// The token route's fast path as 16 keep-alive clients drive it (docs/BENCHMARKS.md, "Token
/// route"): every token served leaves one whole audit line naming its own caller, however the
/// threads interleave, and the byte-level `Accept` check answers as the header grammar says.
@Suite struct APIRouterHotPathTests {
    @Test func aSixteenThreadBurstLeavesEveryAuditLineWhole() async throws {
        let fixture = RouterFixture(cachedAccounts: ["fast"])
        let (threads, requests) = (16, 200)
        let served = await Self.onThreads(threads) { thread in
            // Each thread is one connection of its own process, as each client is.
            let connection = ConnectionInfo(
                id: UInt64(thread + 1),
                peer: .unix(PeerCredentials(pid: Int32(100 + thread), uid: RouterFixture.daemonUID, gid: 100)))
            let request = RouterFixture.request("GET", "/v1/accounts/fast/token", accept: "text/plain")
            return (0..<requests).count { _ in
                fixture.router.handleImmediately(request, connection: connection)?.text == FakeBrokerService.token + "\n"
            }
        }
        #expect(served == Array(repeating: requests, count: threads))
        let audits = fixture.logs.captured.filter { $0.contains("audit:") }
        #expect(audits.count == threads * requests)
        let expected = Set(
            (0..<threads).map { thread in
                let pid = 100 + thread
                return "info: audit: token account=fast pid=\(pid) uid=1000 exe=/usr/bin/prog-\(pid) comm=\"prog (\(pid))\" "
                    + "start=9\(pid) socket=main owner=1000"
            })
        #expect(audits.allSatisfy(expected.contains), "\(audits.first { !expected.contains($0) } ?? "")")
        for line in expected { #expect(audits.count { $0 == line } == requests, "\(line)") }
    }

    @Test(arguments: [
        ("text/plain", true), ("TEXT/Plain", true), (" \ttext/plain ", true), ("text/plain;q=1", true),
        ("text/plain ; charset=utf-8, application/json", true), ("text/plain,application/json", true),
        ("application/json, text/plain", false), ("text/plainx", false), ("text/plai", false), ("", false),
        (" ", false), (";text/plain", false), ("text/html", false), ("application/json", false),
    ])
    func plainTextIsTheFirstMediaRange(_ accept: String, _ plain: Bool) {
        #expect(APIRouter.wantsPlainText(RouterFixture.request("GET", "/", accept: accept)) == plain, "\(accept)")
        #expect(APIRouter.wantsPlainText(RouterFixture.request("GET", "/")) == false)
    }

    /// A JSON body's `Content-Type` (read on bytes, docs/BENCHMARKS-archive.md,
    /// "DPoP proofs: the rest of the proof's own CPU"): the media type
    /// before any parameter, case and blanks aside; no list, so a `,` is part of the type.
    @Test(arguments: [
        ("application/json", true), ("Application/JSON; charset=utf-8", true), (" application/json\t", true),
        ("application/json;", true), ("application/jsonx", false), ("application/json, text/plain", false),
        (";application/json", false), ("text/plain", false), ("", false), (" ", false),
    ])
    func aJSONBodyNeedsTheJSONMediaType(_ contentType: String, _ accepted: Bool) throws {
        var request = RouterFixture.request("POST", "/", body: #"{"method":"GET","url":"https://a.example/"}"#)
        request.headers.remove(name: "Content-Type")
        request.headers.add(name: "Content-Type", value: contentType)
        let decoded = Result { () throws(WireError) in
            try RouterBody.required(.dpopProof(account: "work"), from: request, plain: DPoPProofRequest.init(plainJSON:))
        }
        switch decoded {
        case .success(let body): #expect(accepted && body.method == "GET", "\(contentType)")
        case .failure(let error):
            #expect(!accepted && error.message == "The body must be application/json, not \(contentType).", "\(contentType)")
        }
    }

    /// Runs `body(index)` on `count` threads of their own (never the cooperative pool) at once.
    static func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) async -> [T] {
        let results = ThreadResults<T>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for index in 0..<count {
                group.enter()
                Thread {
                    let value = body(index)
                    results.lock.withLock { results.values[index] = value }
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
        return (0..<count).map { results.values[$0]! }
    }
}

/// What `onThreads`' threads hand back; `@unchecked Sendable`: every access holds `lock`.
private final class ThreadResults<T>: @unchecked Sendable {
    let lock = NSLock()
    var values: [Int: T] = [:]
}
