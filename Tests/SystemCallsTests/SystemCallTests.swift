import Glibc
import SystemCalls
import Testing

@Suite struct SystemCallTests {
    @Test func retriesACallThatASignalInterrupted() {
        var calls = 0
        let result: Int = SystemCall.retryingInterrupts {
            calls += 1
            guard calls > 2 else {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)
    }

    @Test func returnsOtherFailuresAtOnceWithTheirErrno() {
        var calls = 0
        let result: Int32 = SystemCall.retryingInterrupts {
            calls += 1
            return close(-1)
        }
        #expect(result == -1)
        #expect(errno == EBADF)
        #expect(calls == 1)
    }

    @Test func writesEverythingThroughPartialWrites() {
        let bytes = [UInt8](0..<200).map { $0 &* 7 }
        var received: [UInt8] = []
        var calls = 0
        let failure = bytes.withUnsafeBytes { raw in
            SystemCall.writeAll(raw) { part in
                calls += 1
                if calls % 3 == 1 {  // every third call is interrupted
                    errno = EINTR
                    return -1
                }
                let count = min(part.count, 64)  // a short write, as pipes and sockets do
                received += part.prefix(count)
                return count
            }
        }
        #expect(failure == nil)
        #expect(received == bytes)
    }

    @Test func reportsTheErrnoOfAFailedWrite() throws {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        close(pair[0])
        defer { close(pair[1]) }
        // No peer left: the send fails with EPIPE (MSG_NOSIGNAL: no SIGPIPE).
        let failure = [UInt8]("lost".utf8).withUnsafeBytes { raw in
            SystemCall.writeAll(raw) { send(pair[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        #expect(failure == Errno(EPIPE))
    }

    @Test func writesARealPipeWholly() throws {
        let pipe = try #require(GNUCalls.closeOnExecPipe())
        let descriptors = [pipe.read, pipe.write]
        defer { close(descriptors[0]) }
        let bytes = [UInt8](repeating: 0x61, count: 10_000)
        let failure = bytes.withUnsafeBytes { raw in
            SystemCall.writeAll(raw) { write(descriptors[1], $0.baseAddress, $0.count) }
        }
        close(descriptors[1])
        #expect(failure == nil)
        var buffer = [UInt8](repeating: 0, count: 20_000)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { read(descriptors[0], raw.baseAddress! + total, raw.count - total) }
            }
            guard count > 0 else { break }
            total += count
        }
        #expect(total == bytes.count)
    }
}
