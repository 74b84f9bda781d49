import SystemCalls

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Process-wide protections applied before any secret is loaded.
enum ProcessHardening {
    // <sys/prctl.h> values; the header's prctl() is variadic, so Swift does not import it.
    private static let setDumpable: Int32 = 4  // PR_SET_DUMPABLE
    private static let getDumpable: Int32 = 3  // PR_GET_DUMPABLE

    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    /// No core dumps and no ptrace/`/proc/PID/mem` access by other same-uid processes (keys and
    /// tokens live in this memory); new files private (umask 077).
    static func apply() throws(DaemonError) {
        _ = umask(0o077)
        guard let prctl = lookUpPrctl() else { throw .hardening("prctl is not available") }
        // On Linux (x86-64, arm64) integer arguments to a variadic callee travel as for a plain call.
        guard prctl(setDumpable, 0, 0, 0, 0) == 0, prctl(getDumpable, 0, 0, 0, 0) == 0 else {
            throw .hardening("prctl(PR_SET_DUMPABLE, 0) failed: \(Errno.current)")
        }
    }

    private static func lookUpPrctl() -> Prctl? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "prctl") else { return nil }
        return unsafeBitCast(symbol, to: Prctl.self)
    }
}
