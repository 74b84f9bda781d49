import Glibc

/// The one seam for raw system calls (swift-nio's `syscall(blocking:)`, reduced to what this
/// project needs): retry a call a signal interrupted, and write a whole buffer. Failures keep
/// `errno` for the caller, whose messages differ by layer; `Errno` turns it into text.
public enum SystemCall {
    /// Calls `call` again as long as it fails with EINTR: a signal handler ran before the call did
    /// anything, so repeating it is always right. Any other result (and errno) is the caller's.
    @inlinable
    public static func retryingInterrupts<Result: SignedInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes all of `bytes` through `write` (a `write`/`send` of the buffer it is given, which
    /// shrinks as parts go out), retrying interrupts. Nil when everything was written, else the
    /// error of the call that failed or wrote nothing.
    @inlinable
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, _ write: (UnsafeRawBufferPointer) -> Int) -> Errno? {
        var offset = 0
        while offset < bytes.count {
            let written = retryingInterrupts { write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            guard written > 0 else { return .current }
            offset += written
        }
        return nil
    }
}
