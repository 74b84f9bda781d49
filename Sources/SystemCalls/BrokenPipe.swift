import Glibc

/// SIGPIPE for the calling thread only, so a write to a peer that has gone fails with EPIPE
/// instead of killing the process — whatever the process's disposition (the daemon ignores it;
/// a test runner or a program embedding these modules may not).
///
/// Own sends pass MSG_NOSIGNAL, but OpenSSL's socket BIO writes with plain `write()`: a TLS
/// record (a server's TLS 1.3 session ticket to a client that closed after the handshake, a
/// request on a connection the server dropped) raises SIGPIPE at the writing thread. Blocked
/// there, it stays pending on that thread and is discarded when the thread ends.
public enum BrokenPipe {
    /// Blocks SIGPIPE on the calling thread: call first thing on a thread that does socket I/O.
    public static func blockOnThisThread() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Whether SIGPIPE is blocked on the calling thread (for tests).
    public static var isBlockedOnThisThread: Bool {
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        return sigismember(&current, SIGPIPE) == 1
    }
}
