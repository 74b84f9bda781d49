#if canImport(Glibc)
    import Glibc
#endif

/// A value read on every request by many threads and written rarely (the token cache, the caller
/// policies), behind a `pthread_rwlock_t`: readers share the lock, so they never wait for each
/// other, only for a writer.
///
/// Why not `Mutex`: on Linux it is a priority-inheritance futex, and with 16 connection threads
/// on 2 cores a reader preempted while holding it made the others spin and then sleep in the
/// kernel (`_lockSlow` was 2.7 % of the daemon's CPU in the 16-client profile,
/// docs/BENCHMARKS-archive.md, "Token route: the remaining daemon CPU"). Readers here only copy a small value out.
///
/// `@unchecked Sendable`: the value is only touched inside `read` (shared lock held) and `write`
/// (exclusive lock held), and the lock lives at a fixed heap address for the object's life.
final class ReadMostlyLock<Value: Sendable>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        lock.initialize(to: pthread_rwlock_t())
        // Writers first: glibc's default lets a steady stream of overlapping readers hold a writer
        // off indefinitely, and the writers here are logout, a refresh and a policy change —
        // a logout must not wait behind the token requests it is meant to stop.
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the lock shared with other readers. `body` must not take this lock again,
    /// to read or to write: a nested write deadlocks, and so does a nested read once a writer
    /// waits (writers are preferred).
    func read<Result>(_ body: (Value) -> Result) -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(value)
    }

    /// Runs `body` with the lock held exclusively.
    func write<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(&value)
    }
}
