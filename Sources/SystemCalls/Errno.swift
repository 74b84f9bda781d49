import Glibc

/// A C error number and the text people see for it. `description` is exactly `strerror`'s text,
/// so every message built from it reads as before this type existed.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) {
        self.code = code
    }

    /// The calling thread's errno, read at once (the next C call may change it).
    @inlinable
    public static var current: Errno { Errno(errno) }

    /// glibc's text for the code ("No such file or directory"; "Unknown error 4242" for unknown
    /// codes). glibc ≥ 2.32 keeps the unknown-code text per thread, so this is thread-safe.
    public var description: String { String(cString: strerror(code)) }

    /// The text followed by the number, for messages that name both: "… (errno 2)".
    public var descriptionWithCode: String { "\(description) (errno \(code))" }
}
