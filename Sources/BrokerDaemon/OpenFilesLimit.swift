#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The soft open-files limit raised to the hard one at start: the daemon's descriptors are
/// bounded by its own caps (connection slots, restricted sockets), and the usual soft limit of
/// 1024 should not be what runs out first. Under the units `SystemCallFilter=~@resources` refuses
/// setrlimit(2) (EPERM) and `LimitNOFILE=` sets the limit instead: a refusal is not an error.
enum OpenFilesLimit {
    enum Outcome: Sendable, Equatable {
        case raised(from: UInt64, to: UInt64)
        /// Already at the hard limit.
        case unchanged
        /// The soft limit stays where it is, and why.
        case refused(soft: UInt64, String)
    }

    static func raise() -> Outcome {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else {
            return .refused(soft: 0, "getrlimit: \(String(cString: strerror(errno)))")
        }
        let soft = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return .unchanged }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        guard setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 else {
            return .refused(soft: soft, "setrlimit: \(String(cString: strerror(errno)))")
        }
        return .raised(from: soft, to: UInt64(limit.rlim_max))
    }

    /// `RLIMIT_NOFILE` is imported as an enum case on glibc (`__rlimit_resource`).
    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
