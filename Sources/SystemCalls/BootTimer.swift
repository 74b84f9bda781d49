import CGNU
import Glibc

/// A timerfd on CLOCK_BOOTTIME (the clock of `ContinuousClock` on Linux: it counts suspended
/// time, so a deadline that passed during a suspend fires at resume). `wait()` blocks until the
/// armed deadline passes; a disarmed timer never wakes its waiter.
public struct BootTimer: Sendable {
    private let fd: Int32

    /// nil with errno set when the kernel refuses a timerfd.
    public init?() {
        fd = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
    }

    /// Nanoseconds since boot, suspended time included.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// Arms the timer for `deadline` (absolute, as `now()`; one already past fires at once), or
    /// disarms it (nil). False with errno set on failure.
    public func arm(at deadline: Int64?) -> Bool {
        var setting = itimerspec()
        if let deadline {
            let at = max(deadline, 1)  // an all-zero value would disarm
            setting.it_value = timespec(tv_sec: Int(at / 1_000_000_000), tv_nsec: Int(at % 1_000_000_000))
        }
        return timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &setting, nil) == 0
    }

    /// Blocks until the armed deadline passes (or a signal interrupts the wait).
    public func wait() {
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, MemoryLayout<UInt64>.size)
    }
}
