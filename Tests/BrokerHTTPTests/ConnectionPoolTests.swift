import Testing

@testable import BrokerHTTP

/// The keep-alive pool's idle check, which several request threads run at once.
@Suite struct ConnectionPoolTests {
    @Test func aConnectionPutBackAfterTheClockWasReadIsFreshNotAnOverflow() {
        // Thread A reads the clock (100), thread B puts a connection back (idle since 200), A pops it.
        #expect(ConnectionPool.isFresh(idleSince: 200, now: 100, timeout: 4_000))
    }

    @Test func aConnectionIdleLongerThanTheTimeoutIsStale() {
        #expect(ConnectionPool.isFresh(idleSince: 1_000, now: 5_000, timeout: 4_000))
        #expect(!ConnectionPool.isFresh(idleSince: 1_000, now: 5_001, timeout: 4_000))
    }
}
