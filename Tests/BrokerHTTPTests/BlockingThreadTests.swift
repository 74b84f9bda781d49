import BrokerHTTP
import Glibc
import SystemCalls
import Testing

/// The I/O threads' contract with SIGPIPE (found when a TLS test server's session ticket to a
/// client that had just closed killed the whole test process).
@Suite struct BlockingThreadTests {
    /// OpenSSL writes with plain write(): on an I/O thread a peer that left is EPIPE, never a
    /// process-killing SIGPIPE, whatever the process's disposition.
    @Test func aPlainWriteToAPeerThatLeftIsEPIPEOnAnIOThread() async {
        let (blocked, failedWithEPIPE) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Bool, Bool), Never>) in
            let started = BlockingThread.start {
                var pair: [Int32] = [-1, -1]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
                    return continuation.resume(returning: (false, false))
                }
                close(pair[1])
                let written = write(pair[0], "x", 1)
                let error = errno
                close(pair[0])
                continuation.resume(returning: (BrokenPipe.isBlockedOnThisThread, written == -1 && error == EPIPE))
            }
            if !started { continuation.resume(returning: (false, false)) }
        }
        #expect(blocked, "SIGPIPE must be blocked on the thread before any I/O")
        #expect(failedWithEPIPE)
    }
}
