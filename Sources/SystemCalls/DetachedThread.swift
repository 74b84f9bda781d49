import Glibc

/// A detached pthread for blocking work (the daemon's HTTPS client, `authctl mcp`'s event stream).
public enum DetachedThread {
    private final class Job {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread (with `stackSize` bytes of stack, or the default), with
    /// SIGPIPE blocked on it; false when the system refused to create one.
    public static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                BrokenPipe.blockOnThisThread()  // socket and TLS I/O runs here
                Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, job)
        if result != 0 {
            Unmanaged<Job>.fromOpaque(job).release()
            return false
        }
        return true
    }
}
