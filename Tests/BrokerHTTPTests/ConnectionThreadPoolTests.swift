import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import BrokerHTTP

/// The connection threads (`ConnectionThreadPool`): a connection after another one ended runs on
/// the parked thread, no more than `maximumParked` wait, and they exit at stop or after their timeout.
extension ConnectionAdmissionTests {
    @Test func aConnectionPerRequestRunsOnTheParkedThread() async throws {
        try await withServer(configuration: HTTPServerConfiguration()) { server, path in
            for round in 1...5 {
                let status = try await onThread { try TestClient(unixPath: path).get("/\(round)")?.status }
                #expect(status == 200)
                // The thread parks after closing the connection; the next client comes after that.
                #expect(await eventually { server.threads.parkedCount == 1 })
            }
            #expect(server.threads.startedCount == 1)
        }
    }

    @Test func atMostMaximumParkedThreadsWaitAndStopEndsThem() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 20
        let pool = try await withServerReturningPool(configuration: configuration) { server, path in
            // 12 connections open at once (each holds a thread), then all closed.
            try await onThread {
                let clients = try (0..<12).map { _ in try TestClient(unixPath: path) }
                for client in clients { _ = try client.get("/") }
            }
            #expect(await eventually { server.connectionCount == 0 && server.threads.aliveCount == server.threads.maximumParked })
            #expect(server.threads.startedCount == 12)
            #expect(server.threads.parkedCount == server.threads.maximumParked)
        }
        #expect(await eventually { pool.aliveCount == 0 })
        #expect(pool.parkedCount == 0)
    }

    @Test func aParkedThreadExitsAfterItsTimeout() async throws {
        let pool = ConnectionThreadPool(maximumParked: 2, parkedTimeout: .milliseconds(50))
        let ran = Counter()
        for _ in 0..<3 { pool.run { ran.add() } }
        #expect(await eventually { ran.value == 3 && pool.aliveCount == 0 })
        #expect(pool.parkedCount == 0)
    }

    @Test func everyJobRunsWhenJobsRaceParkingThreads() async throws {
        let pool = ConnectionThreadPool(maximumParked: 2, parkedTimeout: .milliseconds(1))
        let ran = Counter()
        let group = DispatchGroup()
        try await onThread {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<100 {
                    group.enter()
                    pool.run {
                        ran.add()
                        group.leave()
                    }
                }
            }
            _ = group.wait(timeout: .now() + 30)
        }
        #expect(ran.value == 400)
        #expect(pool.parkedCount <= 2)
        pool.close()
        #expect(await eventually { pool.aliveCount == 0 })
    }

    /// `withServer`, handing back the server's pool to look at after the stop.
    private func withServerReturningPool(
        configuration: HTTPServerConfiguration, _ body: (HTTPServer, String) async throws -> Void
    ) async throws -> ConnectionThreadPool {
        var pool: ConnectionThreadPool?
        try await withServer(configuration: configuration) { server, path in
            pool = server.threads
            try await body(server, path)
        }
        return pool!
    }
}

/// Counts jobs run on the pool's threads.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
