import Testing

@testable import BrokerDaemon

/// The daemon's malloc arena limit (`Daemon.mallocArenaLimit`): one unless the user set a limit.
@Suite struct DaemonMallocArenasTests {
    @Test func theDaemonLimitsMallocToOneArena() {
        #expect(Daemon.mallocArenaLimit(environment: ["HOME": "/home/u"]) == 1)
    }

    @Test func anArenaLimitInTheEnvironmentIsLeftToGlibc() {
        #expect(Daemon.mallocArenaLimit(environment: ["MALLOC_ARENA_MAX": "8"]) == nil)
    }
}
